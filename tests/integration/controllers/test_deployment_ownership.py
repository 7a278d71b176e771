"""Which ReplicaSets a Deployment controls, on virtual time: adoption of matching orphans
(as its new or as an old ReplicaSet), release when labels stop matching (and the hash
collision that follows when the released one holds the name), other controllers' and
non-matching ReplicaSets left alone, and no ReplicaSet created while being deleted."""

from __future__ import annotations

import copy
from typing import Any

from .cluster import RS
from .deploy_cluster import DEPLOYMENT, REVISION, DeployCluster, deployment, run_deploy


def _orphan(name: str, image: str, replicas: int = 2, app: str = "web") -> dict[str, Any]:
    template = copy.deepcopy(deployment(app, 1, image=image)["spec"]["template"])
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": app}},
            "template": template,
        },
    }


def _owner_uids(rs: dict[str, Any]) -> list[str]:
    refs = rs["metadata"].get("ownerReferences") or []
    return [ref["uid"] for ref in refs if ref.get("controller")]


def test_orphan_with_the_same_template_is_adopted_as_the_new_replica_set() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        await cluster.api.create(RS, "default", _orphan("web-manual", "nginx:1"))
        await cluster.settle(10)
        d = await cluster.api.create(DEPLOYMENT, "default", deployment("web", 3))
        await cluster.settle(30)
        [rs] = await cluster.replica_sets()
        assert rs["metadata"]["name"] == "web-manual"
        assert _owner_uids(rs) == [d["metadata"]["uid"]]
        assert rs["spec"]["replicas"] == 3
        assert rs["metadata"]["annotations"][REVISION] == "1"
        assert len(await cluster.pods_of(rs)) == 3
        assert (await cluster.deploy())["status"]["availableReplicas"] == 3

    run_deploy(scenario)


def test_orphan_with_another_template_is_adopted_and_rolled_away() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        await cluster.api.create(RS, "default", _orphan("legacy", "nginx:0"))
        await cluster.api.create(RS, "default", _orphan("stranger", "nginx:0", app="other"))
        await cluster.settle(10)
        d = await cluster.api.create(DEPLOYMENT, "default", deployment("web", 2))
        await cluster.settle(60)
        legacy = await cluster.rs("legacy")
        assert _owner_uids(legacy) == [d["metadata"]["uid"]]
        assert legacy["spec"]["replicas"] == 0
        stranger = await cluster.rs("stranger")
        assert _owner_uids(stranger) == []
        assert stranger["spec"]["replicas"] == 2
        owned = [
            rs
            for rs in (await cluster.api.list(RS, "default"))["items"]
            if _owner_uids(rs) == [d["metadata"]["uid"]] and rs["metadata"]["name"] != "legacy"
        ]
        assert [rs["spec"]["replicas"] for rs in owned] == [2]
        assert owned[0]["metadata"]["annotations"][REVISION] == "1"

    run_deploy(scenario)


def test_released_replica_set_keeps_its_name_so_the_next_one_hashes_past_the_collision() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        d = await cluster.api.create(DEPLOYMENT, "default", deployment("web", 2))
        await cluster.settle(30)
        [first] = await cluster.replica_sets()
        patch = {"metadata": {"labels": {"app": "elsewhere"}}}
        await cluster.api.patch(RS, "default", first["metadata"]["name"], patch)
        await cluster.settle(60)
        released = await cluster.rs(first["metadata"]["name"])
        assert released["metadata"].get("ownerReferences") in (None, [])
        items = (await cluster.api.list(RS, "default"))["items"]
        [second] = [rs for rs in items if _owner_uids(rs) == [d["metadata"]["uid"]]]
        assert second["metadata"]["name"] != first["metadata"]["name"]
        assert second["spec"]["replicas"] == 2
        assert (await cluster.deploy())["status"]["collisionCount"] == 1

    run_deploy(scenario)


def test_no_replica_set_is_created_while_the_deployment_is_being_deleted() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", 2)
        body["metadata"]["finalizers"] = ["example.com/hold"]
        await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(30)
        await cluster.api.delete(DEPLOYMENT, "default", "web")
        await cluster.set_image("nginx:2")
        await cluster.scale_deployment(5)
        await cluster.settle(60)
        [rs] = await cluster.replica_sets()
        assert rs["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1"
        assert rs["spec"]["replicas"] == 2
        d = await cluster.deploy()
        assert d["metadata"]["deletionTimestamp"]
        assert d["status"]["observedGeneration"] == d["metadata"]["generation"]
        assert d["status"]["replicas"] == 2

    run_deploy(scenario)
