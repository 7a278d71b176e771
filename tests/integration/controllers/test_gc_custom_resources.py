"""The garbage collector with custom resources, on virtual time: kinds a CRD adds while the
collector runs are monitored at once (and dropped when the CRD goes), a custom resource owned
by a Deployment is collected with it, and ReplicaSets and pods owned by a custom resource
follow every propagation policy (Background, Foreground with blockOwnerDeletion, Orphan)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from podscale.api.kinds import KindInfo
from podscale.controllers.garbagecollector.controller import DISCOVERY_SYNC_PERIOD

from .cluster import Passthrough
from .crd_fixtures import CRD, gizmo, install_gizmos
from .gc_cluster import (
    DEPLOYMENT,
    RS,
    GcCluster,
    deployment,
    owned_replica_set,
    owner_ref,
    owner_uids,
    run_gc,
)

JSON = dict[str, Any]


def _monitored(cluster: GcCluster) -> set[str]:
    """The kinds the collector watches, checked against the manager's running informers."""
    assert cluster.gc is not None
    monitored = {f"{k.plural}.{k.group}" for k in cluster.gc.monitored}
    manager, _ = cluster._running[-1]
    informers = {name for name, informer in manager.informers.named() if not informer.stopped}
    assert ("gizmos.toys.podscale.test" in informers) == ("gizmos.toys.podscale.test" in monitored)
    return monitored


@pytest.mark.parametrize("policy", ["Background", "Foreground"])
def test_a_custom_resource_owned_by_a_deployment_goes_with_it(policy: str) -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start(replicaset=False)
        gizmos = await install_gizmos(cluster.api)  # after the collector started
        await cluster.settle(1)
        assert "gizmos.toys.podscale.test" in _monitored(cluster)
        owner = await cluster.api.create(DEPLOYMENT, "default", deployment("web"))
        await cluster.api.create(gizmos, "default", gizmo("g", owners=[owner_ref(owner)]))
        await cluster.delete(DEPLOYMENT, "web", policy)
        await cluster.settle()
        assert await cluster.get(gizmos, "g") is None
        assert await cluster.get(DEPLOYMENT, "web") is None

    run_gc(scenario)


async def _gizmo_with_replica_set(cluster: GcCluster, replicas: int) -> tuple[KindInfo, JSON]:
    gizmos = await install_gizmos(cluster.api)
    owner = await cluster.api.create(gizmos, "default", gizmo("g"))
    rs = owned_replica_set("web", replicas, [owner_ref(owner)])
    await cluster.api.create(RS, "default", rs)
    await cluster.wait_pods(replicas)
    return gizmos, owner


def test_background_deletion_of_a_custom_owner_collects_its_replica_set_and_pods() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start()
        gizmos, _ = await _gizmo_with_replica_set(cluster, 2)
        await cluster.delete(gizmos, "g", "Background")
        assert await cluster.get(gizmos, "g") is None
        await cluster.settle()
        assert await cluster.get(RS, "web") is None
        assert await cluster.pods() == []

    run_gc(scenario)


def test_foreground_deletion_of_a_custom_owner_waits_for_its_blocking_dependents() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start()
        gizmos, _ = await _gizmo_with_replica_set(cluster, 2)
        await cluster.stop()  # hold the cascade to look at the owner
        await cluster.delete(gizmos, "g", "Foreground")
        waiting = await cluster.get(gizmos, "g")
        assert waiting is not None
        assert waiting["metadata"]["finalizers"] == ["foregroundDeletion"]
        await cluster.start()
        await cluster.settle()
        assert await cluster.get(RS, "web") is None
        assert await cluster.pods() == []
        assert await cluster.get(gizmos, "g") is None

    run_gc(scenario)


def test_orphan_deletion_of_a_custom_owner_keeps_its_replica_set() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start()
        gizmos, owner = await _gizmo_with_replica_set(cluster, 1)
        await cluster.delete(gizmos, "g", "Orphan")
        await cluster.settle()
        assert await cluster.get(gizmos, "g") is None
        rs = await cluster.get(RS, "web")
        assert rs is not None
        assert owner["metadata"]["uid"] not in owner_uids(rs)
        assert len(await cluster.pods()) == 1

    run_gc(scenario)


def test_a_custom_owner_of_a_kind_not_yet_discovered_is_resolved_on_retry() -> None:
    """A dependent naming a custom kind the collector has not discovered: the REST mapping
    miss makes it rediscover, and the dependent is collected once its owner is gone."""

    async def scenario(cluster: GcCluster) -> None:
        gizmos = await install_gizmos(cluster.api)  # before the collector starts
        owner = await cluster.api.create(gizmos, "default", gizmo("g"))
        await cluster.api.create(RS, "default", owned_replica_set("web", 0, [owner_ref(owner)]))
        await cluster.api.delete(gizmos, "default", "g")
        await cluster.start(replicaset=False)
        await cluster.settle()
        assert await cluster.get(RS, "web") is None

    run_gc(scenario)


def test_monitors_follow_the_custom_resource_definitions() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start(replicaset=False)
        assert "gizmos.toys.podscale.test" not in _monitored(cluster)
        gizmos = await install_gizmos(cluster.api)
        await cluster.api.create(gizmos, "default", gizmo("g"))
        await cluster.settle(1)
        assert "gizmos.toys.podscale.test" in _monitored(cluster)
        await cluster.api.delete(CRD, None, "gizmos.toys.podscale.test")
        await cluster.settle(1)
        assert "gizmos.toys.podscale.test" not in _monitored(cluster)
        # Back again (a new CRD of the same name): monitored again, and collected again.
        gizmos = await install_gizmos(cluster.api)
        await cluster.settle(1)
        assert "gizmos.toys.podscale.test" in _monitored(cluster)
        owner = await cluster.api.create(DEPLOYMENT, "default", deployment("web"))
        await cluster.api.create(gizmos, "default", gizmo("g2", owners=[owner_ref(owner)]))
        await cluster.delete(DEPLOYMENT, "web", "Background")
        await cluster.settle()
        assert await cluster.get(gizmos, "g2") is None

    run_gc(scenario)


class NoDefinitionEvents(Passthrough):
    """``InProcessApi`` whose CRD watches stay silent: the collector learns of a new CRD
    only from its periodic discovery sync."""

    async def watch(
        self, kind: KindInfo, namespace: str | None = None, **options: Any
    ) -> AsyncIterator[tuple[str, JSON]]:
        async for event in self.inner.watch(kind, namespace, **options):
            if kind.kind != "CustomResourceDefinition":
                yield event


def test_the_periodic_sync_notices_kinds_without_any_event() -> None:
    async def scenario(cluster: GcCluster) -> None:
        await cluster.start(replicaset=False, api=NoDefinitionEvents(cluster.api))
        await install_gizmos(cluster.api)
        await cluster.settle(1)
        assert "gizmos.toys.podscale.test" not in _monitored(cluster)
        await cluster.settle(DISCOVERY_SYNC_PERIOD.total_seconds())
        assert "gizmos.toys.podscale.test" in _monitored(cluster)

    run_gc(scenario)
