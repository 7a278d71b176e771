"""Ownership on virtual time: which pods a ReplicaSet claims (the four ownerReference
cases), release when labels stop matching, and overlapping selectors."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.runtime import run_virtual

from .cluster import POD, RS, START, UNTIL, Cluster, bare_pod, controller_uid, owned_by, replica_set

JSON = dict[str, Any]
OTHER_UID = "00000000-0000-0000-0000-00000000beef"
OTHER_OWNER = {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": OTHER_UID}


def run(scenario: Any) -> None:
    async def main() -> bool:
        cluster = Cluster()
        try:
            await scenario(cluster)
        finally:
            await cluster.stop_all()
        return True

    assert run_virtual(main(), start=START, until=UNTIL) is True


# (labels, ownerReferences, adopted?, other refs kept on the pod)
CASES = [
    ({"app": "web"}, None, True, []),
    ({"app": "web"}, [OTHER_OWNER], True, [OTHER_OWNER]),
    (
        {"app": "web"},
        [{**OTHER_OWNER, "controller": True}],
        False,
        [{**OTHER_OWNER, "controller": True}],
    ),
    ({"app": "db"}, None, False, []),
]


@pytest.mark.parametrize(
    ("labels", "owners", "adopted", "kept"),
    CASES,
    ids=["orphan-matching", "non-controller-ref", "other-controller", "orphan-not-matching"],
)
def test_claims_only_matching_orphans(
    labels: dict[str, str], owners: list[JSON] | None, adopted: bool, kept: list[JSON]
) -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.api.create(POD, "default", bare_pod("stray", labels, owners=owners))
        await cluster.start()
        rs = await cluster.api.create(RS, "default", replica_set("web", 2))
        await cluster.settle()
        stray = await cluster.api.get(POD, "default", "stray")
        refs = stray["metadata"].get("ownerReferences") or []
        mine = [r for r in refs if r["uid"] == rs["metadata"]["uid"]]
        assert [r for r in refs if r["uid"] != rs["metadata"]["uid"]] == kept
        assert len(mine) == (1 if adopted else 0)
        if adopted:
            assert mine[0]["controller"] is True
            assert mine[0]["blockOwnerDeletion"] is True
        pods = await cluster.pods()
        assert len(owned_by(pods, rs)) == 2
        assert len(pods) == (2 if adopted else 3)
        assert (await cluster.rs("web"))["status"]["replicas"] == 2

    run(scenario)


def test_pod_whose_labels_change_is_released_and_replaced() -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        rs = await cluster.api.create(RS, "default", replica_set("web", 2))
        await cluster.settle()
        name = (await cluster.pods())[0]["metadata"]["name"]
        await cluster.api.patch(POD, "default", name, {"metadata": {"labels": {"app": "off"}}})
        await cluster.settle()
        released = await cluster.api.get(POD, "default", name)
        assert released["metadata"].get("ownerReferences") in (None, [])
        pods = await cluster.pods()
        assert len(pods) == 3
        assert len(owned_by(pods, rs)) == 2
        assert name not in {p["metadata"]["name"] for p in owned_by(pods, rs)}

    run(scenario)


def test_replica_sets_with_the_same_selector_count_only_their_own() -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        first = await cluster.api.create(RS, "default", replica_set("a", 2, app="shared"))
        second = await cluster.api.create(RS, "default", replica_set("b", 3, app="shared"))
        await cluster.settle()
        await cluster.scale("a", 1)
        await cluster.settle()
        pods = await cluster.pods()
        assert len(pods) == 4
        assert len(owned_by(pods, first)) == 1
        assert len(owned_by(pods, second)) == 3
        assert all(controller_uid(p) is not None for p in pods)
        assert (await cluster.rs("a"))["status"]["replicas"] == 1
        assert (await cluster.rs("b"))["status"]["replicas"] == 3

    run(scenario)


def test_a_replica_set_being_deleted_neither_adopts_nor_creates() -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        body = replica_set("web", 2)
        body["metadata"]["finalizers"] = ["example.com/hold"]
        rs = await cluster.api.create(RS, "default", body)
        await cluster.settle()
        await cluster.api.delete(RS, "default", "web")
        assert (await cluster.rs("web"))["metadata"]["deletionTimestamp"]
        await cluster.api.create(POD, "default", bare_pod("stray", {"app": "web"}))
        victim = owned_by(await cluster.pods(), rs)[0]["metadata"]["name"]
        await cluster.api.delete(POD, "default", victim)
        await cluster.settle()
        stray = await cluster.api.get(POD, "default", "stray")
        assert not stray["metadata"].get("ownerReferences")
        assert len(await cluster.pods()) == 2  # one left of its own, plus the stray

    run(scenario)
