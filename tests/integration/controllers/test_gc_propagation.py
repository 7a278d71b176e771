"""Each propagation policy end to end on virtual time, with the ReplicaSet controller and the
garbage collector in one manager: Background, Foreground (the owner waits, holding its
``foregroundDeletion`` finalizer), Orphan (dependents lose the ownerReference), a
three-level Foreground cascade, and a restart of the manager in the middle of a cascade."""

from __future__ import annotations

import asyncio

import pytest

from podscale.api.kinds import KindInfo
from podscale.client.http import ApiError

from .gc_cluster import (
    DEPLOYMENT,
    POD,
    RS,
    GcCluster,
    SlowDeletes,
    deployment,
    owned_replica_set,
    owner_ref,
    owner_uids,
    replica_set,
    run_gc,
)


def test_background_deletes_the_owner_at_once_then_its_pods() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 3))
        await cluster.wait_pods(3)
        await cluster.delete(RS, "web", "Background")
        assert await cluster.get(RS, "web") is None  # no finalizer: gone before any pod
        await cluster.settle()
        assert await cluster.pods() == []

    run_gc(scenario)


def test_foreground_keeps_the_owner_until_its_pods_are_gone() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 4))
        await cluster.wait_pods(4)
        await cluster.stop()  # hold the cascade to look at the owner's state
        await cluster.delete(RS, "web", "Foreground")
        waiting = await cluster.rs("web")
        assert waiting["metadata"]["finalizers"] == ["foregroundDeletion"]
        assert waiting["metadata"]["deletionTimestamp"]
        await cluster.start()
        await cluster.settle()
        assert await cluster.pods() == []
        assert await cluster.get(RS, "web") is None

    run_gc(scenario)


def test_foreground_owner_disappears_only_after_its_last_pod() -> None:
    """Watch the cascade: no DELETED event for the RS before every pod's DELETED."""

    async def scenario(cluster: GcCluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 5))
        await cluster.wait_pods(5)
        order: list[str] = []

        async def record(kind_name: str, kind: KindInfo) -> None:
            async for event, obj in cluster.api.watch(kind, "default"):
                if event == "DELETED":
                    order.append(f"{kind_name}/{obj['metadata']['name']}")

        watchers = [
            asyncio.create_task(record("pod", POD)),
            asyncio.create_task(record("rs", RS)),
        ]
        await asyncio.sleep(0)
        await cluster.delete(RS, "web", "Foreground")
        await cluster.settle()
        for task in watchers:
            task.cancel()
        assert len(order) == 6
        assert order[-1] == "rs/web"

    run_gc(scenario)


def test_orphan_leaves_the_pods_without_owner_reference() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 3))
        before = await cluster.wait_pods(3)
        await cluster.delete(RS, "web", "Orphan")
        await cluster.settle()
        assert await cluster.get(RS, "web") is None
        after = await cluster.pods()
        assert sorted(p["metadata"]["uid"] for p in after) == sorted(
            p["metadata"]["uid"] for p in before
        )
        assert [owner_uids(p) for p in after] == [[], [], []]

    run_gc(scenario)


def test_orphan_keeps_a_second_owner_reference() -> None:
    """Only the deleted owner's reference goes; another owner's stays on the pod."""

    async def scenario(cluster: GcCluster) -> None:
        await cluster.start(replicaset=False)
        first = await cluster.api.create(RS, "default", replica_set("a", 0))
        second = await cluster.api.create(RS, "default", replica_set("b", 0))
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": "shared",
                "namespace": "default",
                "ownerReferences": [owner_ref(first), owner_ref(second, controller=False)],
            },
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        }
        await cluster.api.create(POD, "default", pod)
        await cluster.delete(RS, "a", "Orphan")
        await cluster.settle()
        assert await cluster.get(RS, "a") is None
        shared = await cluster.get(POD, "shared")
        assert shared is not None
        assert owner_uids(shared) == [second["metadata"]["uid"]]

    run_gc(scenario)


@pytest.mark.parametrize(
    ("policy", "survivors"),
    [("Foreground", 0), ("Background", 0), ("Orphan", 3)],
    ids=["foreground", "background", "orphan"],
)
def test_deployment_chain_by_policy(policy: str, survivors: int) -> None:
    """Deployment -> ReplicaSet -> Pods built with explicit ownerReferences."""

    async def scenario(cluster: GcCluster) -> None:
        await cluster.start()
        deploy = await cluster.api.create(DEPLOYMENT, "default", deployment("app"))
        rs = owned_replica_set("app-1", 3, [owner_ref(deploy)])
        await cluster.api.create(RS, "default", rs)
        await cluster.wait_pods(3)
        await cluster.delete(DEPLOYMENT, "app", policy)
        await cluster.settle()
        assert await cluster.get(DEPLOYMENT, "app") is None
        remaining_rs = await cluster.get(RS, "app-1")
        assert (remaining_rs is not None) == (policy == "Orphan")
        if remaining_rs is not None:
            assert owner_uids(remaining_rs) == []
        assert len(await cluster.pods()) == survivors

    run_gc(scenario)


def test_foreground_chain_holds_every_level_until_the_one_below_is_gone() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start()
        deploy = await cluster.api.create(DEPLOYMENT, "default", deployment("app"))
        await cluster.api.create(RS, "default", owned_replica_set("app-1", 3, [owner_ref(deploy)]))
        await cluster.wait_pods(3)
        await cluster.stop()
        await cluster.delete(DEPLOYMENT, "app", "Foreground")
        await cluster.start(replicaset=False)
        # The first steps of the cascade: the RS is deleted in Foreground too.
        for _ in range(100):
            rs = await cluster.get(RS, "app-1")
            if rs is not None and rs["metadata"].get("deletionTimestamp"):
                break
            await asyncio.sleep(0)
        assert rs is not None
        assert rs["metadata"]["finalizers"] == ["foregroundDeletion"]
        held = await cluster.get(DEPLOYMENT, "app")
        assert held is not None
        assert held["metadata"]["finalizers"] == ["foregroundDeletion"]
        await cluster.settle()
        assert await cluster.pods() == []
        assert await cluster.get(RS, "app-1") is None
        assert await cluster.get(DEPLOYMENT, "app") is None

    run_gc(scenario)


@pytest.mark.parametrize("stop_after", [1, 10, 25], ids=["after-1", "after-10", "after-25"])
def test_restart_mid_foreground_cascade_reaches_the_same_end(stop_after: int) -> None:
    async def scenario(cluster: GcCluster) -> None:
        slow = SlowDeletes(cluster.api, delay=0.5, mark=stop_after)
        await cluster.start(api=slow)
        await cluster.api.create(RS, "default", replica_set("web", 40))
        await cluster.wait_pods(40)
        await cluster.delete(RS, "web", "Foreground")
        await slow.reached.wait()
        await cluster.stop()  # cancel the manager in the middle of the cascade
        left = len(await cluster.pods())
        assert left == 40 - slow.deleted
        assert 0 < left <= 40 - stop_after
        rs = await cluster.rs("web")
        assert rs["metadata"]["finalizers"] == ["foregroundDeletion"]
        await cluster.settle()
        assert len(await cluster.pods()) == left  # nobody collects while it is down
        await cluster.start(seed=2)
        await cluster.settle()
        assert await cluster.pods() == []
        with pytest.raises(ApiError) as gone:
            await cluster.rs("web")
        assert gone.value.status == 404

    run_gc(scenario)
