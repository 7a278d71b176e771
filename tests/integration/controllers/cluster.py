"""A control plane for controller tests: a MemoryStore on virtual time, the in-process API,
and controller managers that can be started, stopped and replaced on the same store.

Tests run their scenario as a coroutine under ``podscale.runtime.run_virtual`` with an
``until=`` bound; ``settle`` lets virtual time pass so informers, workers and events
quiesce (nothing sleeps in wall time).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.controllers.manager import ControllerManager
from podscale.controllers.replicaset.controller import ReplicaSetController
from podscale.controllers.runtime_api import ControllerApi
from podscale.runtime import VirtualClock
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
START = datetime(2026, 3, 1, tzinfo=UTC)
UNTIL = timedelta(minutes=30)
RS = kind_for("apps/v1", "ReplicaSet")
POD = kind_for("v1", "Pod")
EVENT = kind_for("v1", "Event")
NAME_PATTERN = r"[bcdfghjklmnpqrstvwxz2456789]{5}"


def replica_set(name: str, replicas: int, *, app: str | None = None, ns: str = "default") -> JSON:
    labels = {"app": app or name}
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def bare_pod(name: str, labels: dict[str, str], *, owners: list[JSON] | None = None) -> JSON:
    metadata: JSON = {"name": name, "namespace": "default", "labels": labels}
    if owners is not None:
        metadata["ownerReferences"] = owners
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def controller_uid(pod: JSON) -> str | None:
    for ref in pod["metadata"].get("ownerReferences") or ():
        if ref.get("controller"):
            return str(ref["uid"])
    return None


class Cluster:
    """One store and API; managers come and go on it (a controller restart)."""

    def __init__(self) -> None:
        self.clock = VirtualClock(START)
        self.api = InProcessApi.for_store(MemoryStore(self.clock), self.clock)
        self._running: list[tuple[ControllerManager, asyncio.Task[None]]] = []

    async def start(
        self, seed: int = 1, *, api: ControllerApi | None = None, burst: int = 500
    ) -> ReplicaSetController:
        """Run a manager with a ReplicaSet controller; ``api`` wraps ``self.api`` if given."""
        through = api or self.api
        manager = ControllerManager(through, self.clock)
        controller = ReplicaSetController(through, self.clock, rng=random.Random(seed), burst=burst)
        manager.register(controller)
        task = asyncio.create_task(manager.run())
        await manager.wait_started()
        self._running.append((manager, task))
        return controller

    async def stop(self) -> None:
        """Stop the newest manager at once, whatever it was doing (a crash)."""
        _, task = self._running.pop()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def stop_all(self) -> None:
        while self._running:
            await self.stop()

    async def settle(self, seconds: float = 5.0) -> None:
        await asyncio.sleep(seconds)

    async def pods(self, ns: str = "default") -> list[JSON]:
        return list((await self.api.list(POD, ns))["items"])

    async def rs(self, name: str, ns: str = "default") -> JSON:
        return await self.api.get(RS, ns, name)

    async def events(self, ns: str = "default") -> list[JSON]:
        return list((await self.api.list(EVENT, ns))["items"])

    async def scale(self, name: str, replicas: int) -> None:
        await self.api.patch(
            RS, "default", name, {"spec": {"replicas": replicas}}, subresource="scale"
        )

    async def make_ready(self, pod: JSON) -> None:
        """Mark ``pod`` scheduled, Running and Ready (as a kubelet would, via status)."""
        now = self.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
        fresh = await self.api.get(POD, "default", pod["metadata"]["name"])
        fresh["status"] = {
            **fresh.get("status", {}),
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": now}],
        }
        await self.api.update(POD, "default", fresh, "status")


def owned_by(pods: list[JSON], rs: JSON) -> list[JSON]:
    return [pod for pod in pods if controller_uid(pod) == rs["metadata"]["uid"]]


class Passthrough:
    """An API wrapper forwarding every call it does not define to ``inner``: fault-injecting
    test APIs subclass it and override only the calls they fake."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class WrappedApi(Passthrough):
    """``InProcessApi`` with faults: pod watch events ``watch_delay`` virtual seconds late
    (a slow watch), and the first ``failing_creates`` pod creations refused with 403."""

    def __init__(
        self, inner: InProcessApi, *, watch_delay: float = 0.0, failing_creates: int = 0
    ) -> None:
        super().__init__(inner)
        self.watch_delay = watch_delay
        self.failing_creates = failing_creates

    async def create(self, kind: KindInfo, namespace: str | None, obj: JSON) -> JSON:
        if kind.kind == "Pod" and self.failing_creates > 0:
            self.failing_creates -= 1
            raise ApiError(403, FORBIDDEN)
        return await self.inner.create(kind, namespace, obj)

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
            if kind.kind == "Pod" and self.watch_delay:
                await asyncio.sleep(self.watch_delay)
            yield event


FORBIDDEN: JSON = {
    "kind": "Status",
    "apiVersion": "v1",
    "status": "Failure",
    "message": 'pods "web-x" is forbidden: exceeded quota: compute-resources',
    "reason": "Forbidden",
    "code": 403,
}
