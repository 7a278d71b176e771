"""A control plane for CronHorizontalPodAutoscaler tests on virtual time.

One store and in-process API (which serves the CronHPA's CRD once created) that outlive
controller managers: ``start`` runs a manager with only the CronHPA controller, ``stop``
kills the newest one at once (a crash or leader change), so a test can restart the
controller around a fire time. Deployments are scaled through ``/scale`` only (no
Deployment controller is needed to see ``spec.replicas``); an HPA here is a plain object
whose ``status.currentReplicas`` the test sets, as no HPA controller runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from podscale.api.kinds import kind_for
from podscale.apiserver.registry.bootstrap import ensure_system_namespaces
from podscale.apiserver.state import ServerState
from podscale.client.inprocess import InProcessApi
from podscale.controllers.cronhpa.controller import CronHorizontalPodAutoscalerController
from podscale.controllers.cronhpa.kind import CRONHPA, definition
from podscale.controllers.manager import ControllerManager
from podscale.runtime import VirtualClock, run_virtual
from podscale.store.memory import MemoryStore

from .cluster import EVENT, START
from .hpa_cluster import HPA, hpa, workload

JSON = dict[str, Any]
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
DEPLOY = kind_for("apps/v1", "Deployment")

__all__ = ["CRONHPA", "DEPLOY", "HPA", "CronCluster", "cronhpa", "on_cluster"]


def cronhpa(
    jobs: list[JSON],
    *,
    target: JSON | None = None,
    exclude_dates: list[str] | None = None,
    annotations: dict[str, str] | None = None,
) -> JSON:
    spec: JSON = {
        "scaleTargetRef": target or {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "jobs": jobs,
    }
    if exclude_dates is not None:
        spec["excludeDates"] = exclude_dates
    metadata: JSON = {"name": "cron", "namespace": "default"}
    if annotations:
        metadata["annotations"] = annotations
    return {
        "apiVersion": "autoscaling.alibabacloud.com/v1beta1",
        "kind": "CronHorizontalPodAutoscaler",
        "metadata": metadata,
        "spec": spec,
    }


class CronCluster:
    """One store and API; CronHPA controller managers come and go on it."""

    def __init__(self, zone: str = "UTC", start: datetime = START) -> None:
        self.clock = VirtualClock(start)
        self.store = MemoryStore(self.clock)
        ensure_system_namespaces(self.store)
        self.api = InProcessApi(ServerState(store=self.store, clock=self.clock))
        self.zone = ZoneInfo(zone)
        self._tasks: list[asyncio.Task[None]] = []
        self._seed = 0

    async def install(self, *, deployment_replicas: int = 1) -> None:
        await self.api.create(CRD, None, definition())
        await self.api.create(DEPLOY, "default", workload("Deployment", "web", deployment_replicas))

    async def add_hpa(self, *, min_replicas: int, max_replicas: int, current: int) -> None:
        body = hpa("web-hpa", "web", kind="Deployment", max_replicas=max_replicas)
        body["spec"]["minReplicas"] = min_replicas
        created = await self.api.create(HPA, "default", body)
        created["status"] = {"currentReplicas": current, "desiredReplicas": current}
        await self.api.update(HPA, "default", created, "status")

    async def start(self) -> None:
        manager = ControllerManager(self.api, self.clock)
        self._seed += 1
        manager.register(
            CronHorizontalPodAutoscalerController(
                self.api, self.clock, zone=self.zone, rng=random.Random(self._seed)
            )
        )
        self._tasks.append(asyncio.create_task(manager.run()))
        await manager.wait_started()

    async def stop(self) -> None:
        task = self._tasks.pop()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def stop_all(self) -> None:
        while self._tasks:
            await self.stop()

    async def replicas(self) -> int:
        scale = await self.api.get(DEPLOY, "default", "web", "scale")
        return int(scale["spec"]["replicas"])

    async def set_replicas(self, replicas: int) -> None:
        await self.api.patch(
            DEPLOY, "default", "web", {"spec": {"replicas": replicas}}, subresource="scale"
        )

    async def conditions(self) -> dict[str, JSON]:
        obj = await self.api.get(CRONHPA, "default", "cron")
        return {c["name"]: c for c in (obj.get("status") or {}).get("conditions") or ()}

    async def events(self) -> list[tuple[str, str, str]]:
        items = (await self.api.list(EVENT, "default"))["items"]
        return [
            (e["type"], e["reason"], e["message"])
            for e in sorted(items, key=lambda e: e["metadata"]["creationTimestamp"])
            if e["involvedObject"]["kind"] == "CronHorizontalPodAutoscaler"
        ]

    async def sleep_until(self, hour: int, minute: int, second: int = 0, day: int = 0) -> None:
        """Sleep until the cluster's start + the given offset (virtual time)."""
        offset = timedelta(days=day, hours=hour, minutes=minute, seconds=second)
        await self.sleep_to(self.clock.start + offset)

    async def sleep_to(self, instant: datetime) -> None:
        """Sleep until ``instant`` (virtual time)."""
        await asyncio.sleep((instant - self.clock.now()).total_seconds())


def on_cluster(
    body: Callable[[CronCluster], Awaitable[None]],
    *,
    zone: str = "UTC",
    until: timedelta = timedelta(days=3),
    start: datetime = START,
) -> None:
    async def main() -> bool:
        cluster = CronCluster(zone, start)
        try:
            await body(cluster)
        finally:
            await cluster.stop_all()
        return True

    assert run_virtual(main(), start=start, until=until), "did not finish in virtual time"
