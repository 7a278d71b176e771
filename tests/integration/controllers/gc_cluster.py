"""A control plane for garbage collector tests: ``cluster.Cluster`` whose managers run the
ReplicaSet controller and the garbage collector together, plus object builders.

Scenarios run under ``run_gc`` (virtual time, bounded); ``settle`` lets the cascade finish.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.controllers.garbagecollector.controller import GarbageCollectorController
from podscale.controllers.manager import ControllerManager
from podscale.controllers.replicaset.controller import ReplicaSetController
from podscale.controllers.runtime_api import ControllerApi
from podscale.runtime import run_virtual
from podscale.store.interface import Preconditions

from .cluster import POD, RS, START, UNTIL, Cluster, Passthrough, replica_set

JSON = dict[str, Any]
DEPLOYMENT = kind_for("apps/v1", "Deployment")


class GcCluster(Cluster):
    """Managers here run a ReplicaSet controller (unless ``replicaset=False``) and a GC."""

    gc: GarbageCollectorController | None = None

    async def start(
        self,
        seed: int = 1,
        *,
        api: ControllerApi | None = None,
        burst: int = 500,
        replicaset: bool = True,
    ) -> ReplicaSetController:
        through = api or self.api
        manager = ControllerManager(through, self.clock)
        controller = ReplicaSetController(through, self.clock, rng=random.Random(seed), burst=burst)
        if replicaset:
            manager.register(controller)
        self.gc = GarbageCollectorController(through, self.clock)
        manager.register(self.gc)
        task = asyncio.create_task(manager.run())
        await manager.wait_started()
        self._running.append((manager, task))
        return controller

    async def get(self, kind: KindInfo, name: str, ns: str = "default") -> JSON | None:
        try:
            return await self.api.get(kind, ns, name)
        except ApiError as err:
            if err.status == 404:
                return None
            raise

    async def delete(self, kind: KindInfo, name: str, policy: str, ns: str = "default") -> None:
        await self.api.delete(kind, ns, name, propagation=policy)

    async def wait_pods(self, count: int, ns: str = "default") -> list[JSON]:
        """Let the ReplicaSet controller create ``count`` pods (bounded in virtual time)."""
        for _ in range(600):
            pods = await self.pods(ns)
            if len(pods) == count:
                return pods
            await asyncio.sleep(0.1)
        raise AssertionError(f"expected {count} pods, have {len(await self.pods(ns))}")


class SlowDeletes(Passthrough):
    """``InProcessApi`` whose pod deletions go one at a time, ``delay`` virtual seconds each;
    ``reached`` is set once ``mark`` pods have been deleted (to interrupt a cascade)."""

    def __init__(self, inner: InProcessApi, *, delay: float, mark: int) -> None:
        super().__init__(inner)
        self.delay = delay
        self.mark = mark
        self.deleted = 0
        self.reached = asyncio.Event()
        self._one_at_a_time = asyncio.Lock()

    async def delete(
        self,
        kind: KindInfo,
        namespace: str | None,
        name: str,
        *,
        propagation: str | None = None,
        preconditions: Preconditions | None = None,
    ) -> JSON:
        if kind.kind != "Pod":
            return await self.inner.delete(
                kind, namespace, name, propagation=propagation, preconditions=preconditions
            )
        async with self._one_at_a_time:
            await asyncio.sleep(self.delay)
            result = await self.inner.delete(
                kind, namespace, name, propagation=propagation, preconditions=preconditions
            )
            self.deleted += 1
            if self.deleted >= self.mark:
                self.reached.set()
            return result


class LaggingWatch(Passthrough):
    """``InProcessApi`` whose watch events of ``kind`` arrive ``lag`` virtual seconds late
    (a slow informer: the collector's cache behind the API server)."""

    def __init__(self, inner: InProcessApi, *, kind: str, lag: float) -> None:
        super().__init__(inner)
        self.kind = kind
        self.lag = lag

    async def watch(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        resource_version: str = "",
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> AsyncIterator[tuple[str, JSON]]:
        events = self.inner.watch(
            kind,
            namespace,
            resource_version=resource_version,
            label_selector=label_selector,
            field_selector=field_selector,
        )
        async for event in events:
            if kind.kind == self.kind:
                await asyncio.sleep(self.lag)
            yield event


def run_gc(scenario: Callable[[GcCluster], Awaitable[None]]) -> None:
    """Run ``scenario`` on a fresh cluster on virtual time; every manager stops after."""

    async def main() -> bool:
        cluster = GcCluster()
        try:
            await scenario(cluster)
        finally:
            await cluster.stop_all()
        return True

    assert run_virtual(main(), start=START, until=UNTIL) is True


def owner_ref(owner: JSON, *, controller: bool = True, block: bool = True) -> JSON:
    """An ownerReference to ``owner`` as controllers write them."""
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": controller,
        "blockOwnerDeletion": block,
    }


def deployment(name: str, *, ns: str = "default") -> JSON:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def owned_replica_set(name: str, replicas: int, owners: list[JSON], *, ns: str = "default") -> JSON:
    rs = replica_set(name, replicas, ns=ns)
    rs["metadata"]["ownerReferences"] = owners
    return rs


def owner_uids(obj: JSON) -> list[str]:
    return [ref["uid"] for ref in obj["metadata"].get("ownerReferences") or ()]


__all__ = [
    "DEPLOYMENT",
    "POD",
    "RS",
    "GcCluster",
    "LaggingWatch",
    "SlowDeletes",
    "deployment",
    "owned_replica_set",
    "owner_ref",
    "owner_uids",
    "replica_set",
    "run_gc",
]
