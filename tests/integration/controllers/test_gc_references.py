"""What an ownerReference means to the collector, on virtual time: dangling owners are
collected, an owner only in another namespace is absent (and reported once), owners the
registry does not know leave the dependent alone, ownership cycles do not block a
Foreground deletion, a collector whose cache lags behind a new owner verifies it live, and
a dependent re-created under the same name is never deleted by the uid precondition."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.inprocess import InProcessApi
from podscale.store.interface import Preconditions

from .cluster import Passthrough
from .gc_cluster import (
    DEPLOYMENT,
    POD,
    RS,
    GcCluster,
    LaggingWatch,
    deployment,
    owned_replica_set,
    owner_ref,
    owner_uids,
    replica_set,
    run_gc,
)

JSON = dict[str, Any]
NODE = kind_for("v1", "Node")
NAMESPACE = kind_for("v1", "Namespace")


def pod(name: str, owners: list[JSON], *, ns: str = "default") -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "ownerReferences": owners},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def ref(api_version: str, kind: str, name: str, uid: str) -> JSON:
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid}


async def no_owner(cluster: GcCluster) -> list[JSON]:
    return [ref("apps/v1", "ReplicaSet", "ghost", "00000000-0000-0000-0000-000000000001")]


async def owner_recreated(cluster: GcCluster) -> list[JSON]:
    old = await cluster.api.create(RS, "default", replica_set("web", 0))
    await cluster.api.delete(RS, "default", "web")
    await cluster.api.create(RS, "default", replica_set("web", 0))
    return [owner_ref(old)]


async def wrong_name(cluster: GcCluster) -> list[JSON]:
    owner = await cluster.api.create(RS, "default", replica_set("web", 0))
    return [{**owner_ref(owner), "name": "other"}]


async def live_owner(cluster: GcCluster) -> list[JSON]:
    return [owner_ref(await cluster.api.create(RS, "default", replica_set("web", 0)))]


async def cluster_scoped_owner(cluster: GcCluster) -> list[JSON]:
    node = await cluster.api.create(NODE, None, {"apiVersion": "v1", "kind": "Node",
                                                 "metadata": {"name": "n1"}})  # fmt: skip
    return [owner_ref(node, controller=False)]


async def unknown_kind(cluster: GcCluster) -> list[JSON]:
    return [ref("example.com/v1", "Widget", "w", "00000000-0000-0000-0000-000000000002")]


async def one_live_one_dangling(cluster: GcCluster) -> list[JSON]:
    owner = await cluster.api.create(RS, "default", replica_set("web", 0))
    return [owner_ref(owner), *await no_owner(cluster)]


Owners = Callable[[GcCluster], Any]


@pytest.mark.parametrize(
    ("make_owners", "collected", "remaining_owners"),
    [
        (no_owner, True, 0),
        (owner_recreated, True, 0),
        (wrong_name, True, 0),
        (live_owner, False, 1),
        (cluster_scoped_owner, False, 1),
        (unknown_kind, False, 1),
        (one_live_one_dangling, False, 1),
    ],
    ids=[
        "no-such-owner",
        "owner-recreated-new-uid",
        "owner-uid-under-another-name",
        "live-owner",
        "live-cluster-scoped-owner",
        "kind-unknown-left-alone",
        "dangling-reference-pruned",
    ],
)
def test_a_dependent_is_collected_only_when_every_owner_is_absent(
    make_owners: Owners, collected: bool, remaining_owners: int
) -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start(replicaset=False)
        await cluster.api.create(POD, "default", pod("dep", await make_owners(cluster)))
        await cluster.settle()
        left = await cluster.get(POD, "dep")
        assert (left is None) == collected
        if left is not None:
            assert len(owner_uids(left)) == remaining_owners

    run_gc(scenario)


def test_deleting_a_cluster_scoped_owner_collects_namespaced_dependents() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start(replicaset=False)
        owners = await cluster_scoped_owner(cluster)
        await cluster.api.create(POD, "default", pod("dep", owners))
        await cluster.settle()
        assert await cluster.get(POD, "dep") is not None
        await cluster.api.delete(NODE, None, "n1")
        await cluster.settle()
        assert await cluster.get(POD, "dep") is None

    run_gc(scenario)


def test_an_owner_in_another_namespace_is_absent_and_reported_once() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.api.create(
            NAMESPACE, None, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}}
        )
        owner = await cluster.api.create(RS, "b", replica_set("web", 0, ns="b"))
        await cluster.start(replicaset=False)
        dep = await cluster.api.create(POD, "default", pod("dep", [owner_ref(owner)]))
        await cluster.settle()
        assert await cluster.get(POD, "dep") is None
        assert await cluster.get(RS, "web", ns="b") is not None
        events = [e for e in await cluster.events() if e["reason"] == "OwnerRefInvalidNamespace"]
        uid = owner["metadata"]["uid"]
        assert [(e["type"], e["message"]) for e in events] == [
            (
                "Warning",
                f"ownerRef [apps/v1/ReplicaSet, namespace: default, name: web, uid: {uid}] "
                'does not exist in namespace "default"',
            )
        ]
        assert events[0]["involvedObject"]["uid"] == dep["metadata"]["uid"]
        assert events[0]["source"] == {"component": "garbage-collector-controller"}

    run_gc(scenario)


async def make_cycle(cluster: GcCluster, replicas: int) -> None:
    first = await cluster.api.create(RS, "default", replica_set("a", replicas))
    second = await cluster.api.create(
        RS, "default", owned_replica_set("b", replicas, [owner_ref(first, controller=False)])
    )
    first = await cluster.rs("a")
    first["metadata"]["ownerReferences"] = [owner_ref(second, controller=False)]
    await cluster.api.update(RS, "default", first)


@pytest.mark.parametrize("replicas", [0, 2], ids=["no-pods", "with-pods"])
def test_an_ownership_cycle_does_not_block_foreground_deletion(replicas: int) -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start()
        await make_cycle(cluster, replicas)
        await cluster.wait_pods(2 * replicas)
        await cluster.delete(RS, "a", "Foreground")
        await cluster.settle(30)
        assert await cluster.get(RS, "a") is None
        assert await cluster.get(RS, "b") is None
        assert await cluster.pods() == []

    run_gc(scenario)


def test_a_lagging_cache_never_collects_a_dependent_of_a_new_owner() -> None:
    """The Deployment informer is 10 s behind: its ReplicaSet looks dangling in the cache,
    and only the live GET (upstream's isDangling) keeps it."""

    async def scenario(cluster: GcCluster) -> None:
        await cluster.start(api=LaggingWatch(cluster.api, kind="Deployment", lag=10.0))
        deploy = await cluster.api.create(DEPLOYMENT, "default", deployment("app"))
        await cluster.api.create(RS, "default", owned_replica_set("app-1", 2, [owner_ref(deploy)]))
        await cluster.settle(30)
        assert await cluster.get(RS, "app-1") is not None
        assert len(await cluster.pods()) == 2
        await cluster.delete(DEPLOYMENT, "app", "Background")
        await cluster.settle(30)
        assert await cluster.get(RS, "app-1") is None
        assert await cluster.pods() == []

    run_gc(scenario)


class RecreateBeforeDelete(Passthrough):
    """Re-creates ``name`` (new uid, no owners) just before the collector's DELETE lands."""

    def __init__(self, inner: InProcessApi, name: str) -> None:
        super().__init__(inner)
        self.name = name
        self.raced = False

    async def delete(
        self,
        kind: KindInfo,
        namespace: str | None,
        name: str,
        *,
        propagation: str | None = None,
        preconditions: Preconditions | None = None,
    ) -> JSON:
        if kind.kind == "Pod" and name == self.name and not self.raced:
            self.raced = True
            current = await self.inner.get(kind, namespace, name)
            await self.inner.delete(kind, namespace, name)
            fresh = copy.deepcopy(current)
            fresh["metadata"] = {"name": name, "namespace": namespace}
            await self.inner.create(kind, namespace, fresh)
        return await self.inner.delete(
            kind, namespace, name, propagation=propagation, preconditions=preconditions
        )


def test_a_dependent_recreated_under_the_same_name_is_not_deleted() -> None:
    async def scenario(cluster: GcCluster) -> None:
        racing = RecreateBeforeDelete(cluster.api, "dep")
        await cluster.start(api=racing, replicaset=False)
        await cluster.api.create(POD, "default", pod("dep", await no_owner(cluster)))
        await cluster.settle()
        assert racing.raced
        survivor = await cluster.get(POD, "dep")
        assert survivor is not None
        assert owner_uids(survivor) == []

    run_gc(scenario)
