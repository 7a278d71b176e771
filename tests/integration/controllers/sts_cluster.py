"""A control plane for StatefulSet controller tests: a MemoryStore on virtual time, the
in-process API and a manager running only the StatefulSet controller.

Nothing plays the kubelet: tests move pods through their phases by writing pod status
(``make_ready``, ``make_failed``), as ``cluster.Cluster.make_ready`` does. ``run_scenario``
runs a coroutine under ``podscale.runtime.run_virtual`` with an ``until=`` bound.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from podscale.api.kinds import kind_for
from podscale.client.inprocess import InProcessApi
from podscale.controllers.manager import ControllerManager
from podscale.controllers.statefulset.controller import StatefulSetController
from podscale.runtime import VirtualClock, run_virtual
from podscale.store.memory import MemoryStore

from .cluster import EVENT, POD, START, UNTIL

JSON = dict[str, Any]
T = TypeVar("T")
STS = kind_for("apps/v1", "StatefulSet")


def stateful_set(
    name: str,
    replicas: int,
    *,
    policy: str = "OrderedReady",
    service: str = "nginx",
    min_ready: int = 0,
    start: int | None = None,
) -> JSON:
    labels = {"app": name}
    spec: JSON = {
        "replicas": replicas,
        "serviceName": service,
        "podManagementPolicy": policy,
        "selector": {"matchLabels": dict(labels)},
        "template": {
            "metadata": {"labels": dict(labels)},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        },
    }
    if min_ready:
        spec["minReadySeconds"] = min_ready
    if start is not None:
        spec["ordinals"] = {"start": start}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


class StsCluster:
    """One store and API with a StatefulSet controller manager on it."""

    def __init__(self) -> None:
        self.clock = VirtualClock(START)
        self.api = InProcessApi.for_store(MemoryStore(self.clock), self.clock)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> StatefulSetController:
        manager = ControllerManager(self.api, self.clock)
        controller = StatefulSetController(self.api, self.clock)
        manager.register(controller)
        self._task = asyncio.create_task(manager.run())
        await manager.wait_started()
        return controller

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def settle(self, seconds: float = 5.0) -> None:
        await asyncio.sleep(seconds)

    async def pod_names(self) -> list[str]:
        pods = (await self.api.list(POD, "default"))["items"]
        return sorted((p["metadata"]["name"] for p in pods), key=_by_ordinal)

    async def pod(self, name: str) -> JSON:
        return await self.api.get(POD, "default", name)

    async def sts(self, name: str) -> JSON:
        return await self.api.get(STS, "default", name)

    async def events(self) -> list[JSON]:
        items = (await self.api.list(EVENT, "default"))["items"]
        return sorted(items, key=lambda e: e["metadata"]["name"])

    async def scale(self, name: str, replicas: int) -> None:
        patch = {"spec": {"replicas": replicas}}
        await self.api.patch(STS, "default", name, patch, subresource="scale")

    async def set_phase(self, name: str, phase: str, *, ready: bool) -> None:
        """Write the pod's status as a kubelet would."""
        now = self.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
        fresh = await self.pod(name)
        condition = {"type": "Ready", "status": "True" if ready else "False"}
        fresh["status"] = {
            **fresh.get("status", {}),
            "phase": phase,
            "conditions": [{**condition, "lastTransitionTime": now}],
        }
        await self.api.update(POD, "default", fresh, "status")

    async def make_ready(self, name: str) -> None:
        await self.set_phase(name, "Running", ready=True)

    async def make_failed(self, name: str) -> None:
        await self.set_phase(name, "Failed", ready=False)

    async def make_all_ready(self) -> None:
        for name in await self.pod_names():
            pod = await self.pod(name)
            if pod.get("status", {}).get("phase") != "Running":
                await self.make_ready(name)

    async def bring_up(self, count: int, *, rounds: int = 20) -> None:
        """Play kubelet until ``count`` pods exist and every one is Running and Ready."""
        for _ in range(rounds):
            await self.settle()
            await self.make_all_ready()
            if len(await self.pod_names()) == count:
                await self.settle()
                return
        raise AssertionError(f"never reached {count} pods: {await self.pod_names()}")


def _by_ordinal(name: str) -> tuple[str, int]:
    base, _, ordinal = name.rpartition("-")
    return (base, int(ordinal)) if ordinal.isdigit() else (name, -1)


def run_scenario(scenario: Callable[[StsCluster], Awaitable[T]]) -> T:
    async def main() -> tuple[T]:
        cluster = StsCluster()
        try:
            return (await scenario(cluster),)
        finally:
            await cluster.stop()

    result = run_virtual(main(), start=START, until=UNTIL)
    assert result is not None, "scenario did not finish before its virtual deadline"
    return result[0]
