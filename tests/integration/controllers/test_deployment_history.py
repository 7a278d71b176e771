"""Revision history on virtual time: each template gets the next revision, returning to an
old template reuses (and renumbers) its ReplicaSet, ``revisionHistoryLimit`` deletes the
oldest scaled-down ReplicaSets, and the Deployment's own annotations reach its ReplicaSets."""

from __future__ import annotations

from typing import Any

import pytest

from .deploy_cluster import DEPLOYMENT, REVISION, DeployCluster, deployment, run_deploy

HISTORY = "deployment.kubernetes.io/revision-history"


async def _roll(cluster: DeployCluster, image: str) -> None:
    await cluster.set_image(image)
    await cluster.settle(60)


def _revisions(replica_sets: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    return [
        (
            rs["spec"]["template"]["spec"]["containers"][0]["image"],
            rs["metadata"]["annotations"][REVISION],
            rs["spec"]["replicas"],
        )
        for rs in replica_sets
    ]


def test_returning_to_an_old_template_reuses_its_replica_set() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        await cluster.api.create(DEPLOYMENT, "default", deployment("web", 2))
        await cluster.settle(30)
        first = (await cluster.replica_sets())[0]
        await _roll(cluster, "nginx:2")
        await _roll(cluster, "nginx:1")  # what `kubectl rollout undo` does to the template
        replica_sets = await cluster.replica_sets()
        assert _revisions(replica_sets) == [("nginx:2", "2", 0), ("nginx:1", "3", 2)]
        back = replica_sets[1]
        assert back["metadata"]["uid"] == first["metadata"]["uid"]
        assert back["metadata"]["name"] == first["metadata"]["name"]
        assert back["metadata"]["annotations"][HISTORY] == "1"
        d = await cluster.deploy()
        assert d["metadata"]["annotations"][REVISION] == "3"
        await _roll(cluster, "nginx:2")
        await _roll(cluster, "nginx:1")
        replica_sets = await cluster.replica_sets()
        assert _revisions(replica_sets) == [("nginx:2", "4", 0), ("nginx:1", "5", 2)]
        assert replica_sets[0]["metadata"]["annotations"][HISTORY] == "2"
        assert replica_sets[1]["metadata"]["annotations"][HISTORY] == "1,3"

    run_deploy(scenario)


@pytest.mark.parametrize(
    ("limit", "kept"),
    [(0, ["5"]), (1, ["4", "5"]), (2, ["3", "4", "5"]), (10, ["1", "2", "3", "4", "5"])],
    ids=["limit-0", "limit-1", "limit-2", "default-10"],
)
def test_revision_history_limit_deletes_the_oldest_scaled_down(limit: int, kept: list[str]) -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", 2, revisionHistoryLimit=limit)
        await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(30)
        for version in range(2, 6):
            await _roll(cluster, f"nginx:{version}")
        replica_sets = await cluster.replica_sets()
        assert [rs["metadata"]["annotations"][REVISION] for rs in replica_sets] == kept
        assert replica_sets[-1]["spec"]["replicas"] == 2
        assert len(await cluster.pods()) == 2

    run_deploy(scenario)


def test_deployment_annotations_are_copied_but_bookkeeping_is_not() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", 1)
        body["metadata"]["annotations"] = {
            "team": "blue",
            "kubectl.kubernetes.io/last-applied-configuration": "{}",
        }
        await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(30)
        [rs] = await cluster.replica_sets()
        annotations = rs["metadata"]["annotations"]
        assert annotations["team"] == "blue"
        assert "kubectl.kubernetes.io/last-applied-configuration" not in annotations
        await cluster.patch_deployment({"metadata": {"annotations": {"team": "green"}}})
        await cluster.settle(10)
        [rs] = await cluster.replica_sets()
        assert rs["metadata"]["annotations"]["team"] == "green"
        assert rs["metadata"]["annotations"][REVISION] == "1"

    run_deploy(scenario)
