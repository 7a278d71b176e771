"""A control plane for Deployment tests: the ReplicaSet and Deployment controllers in one
manager on virtual time, a stand-in kubelet that marks new pods ready after a delay, a
rollout watcher that checks the maxSurge/maxUnavailable promises on every watch event,
and kubectl's ``rollout status`` verdict (``polymorphichelpers/rollout_status.go``).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.controllers.deployment.controller import DeploymentController
from podscale.controllers.deployment.fenceposts import max_surge, max_unavailable, strategy_of
from podscale.controllers.manager import ControllerManager
from podscale.controllers.replicaset.controller import ReplicaSetController
from podscale.controllers.runtime_api import ControllerApi
from podscale.runtime import run_virtual

from .cluster import POD, RS, START, UNTIL, Cluster, controller_uid

JSON = dict[str, Any]
T = TypeVar("T")
DEPLOYMENT = kind_for("apps/v1", "Deployment")
REVISION = "deployment.kubernetes.io/revision"


def deployment(name: str, replicas: int, *, image: str = "nginx:1", **spec: Any) -> JSON:
    labels = {"app": name}
    body: JSON = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"containers": [{"name": "c", "image": image}]},
            },
        },
    }
    body["spec"].update(spec)
    return body


def rolling(max_surge_value: int | str, max_unavailable_value: int | str) -> JSON:
    return {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": max_surge_value, "maxUnavailable": max_unavailable_value},
    }


def is_ready(pod: JSON) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or ()
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def kubectl_rollout_status(d: JSON) -> tuple[str, bool]:
    """kubectl's ``DeploymentStatusViewer.Status`` verdict: (message, done); a timed-out
    rollout is kubectl's error text with done False."""
    name = d["metadata"]["name"]
    status = d.get("status") or {}
    if d["metadata"].get("generation", 0) > status.get("observedGeneration", 0):
        return "Waiting for deployment spec update to be observed...", False
    for condition in status.get("conditions") or ():
        if condition["type"] == "Progressing" and condition["reason"] == "ProgressDeadlineExceeded":
            return f'error: deployment "{name}" exceeded its progress deadline', False
    replicas = d["spec"].get("replicas", 1)
    updated = status.get("updatedReplicas", 0)
    total = status.get("replicas", 0)
    available = status.get("availableReplicas", 0)
    if updated < replicas:
        return f"{updated} out of {replicas} new replicas have been updated", False
    if total > updated:
        return f"{total - updated} old replicas are pending termination", False
    if available < updated:
        return f"{available} of {updated} updated replicas are available", False
    return f'deployment "{name}" successfully rolled out', True


@dataclass
class RolloutWatch:
    """Checks, on every ReplicaSet and pod watch event, that the ReplicaSets ask for at
    most ``replicas + maxSurge`` pods and, once ``armed``, that at least
    ``replicas - maxUnavailable`` non-terminating pods are ready. The test moves the
    bounds (``ceiling``/``floor``) itself when it changes the Deployment's size."""

    ceiling: int
    floor: int
    armed: bool = False
    replica_sets: dict[str, JSON] = field(default_factory=dict)
    pods: dict[str, JSON] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    max_spec_total: int = 0
    events: int = 0
    extra_checks: list[Callable[[RolloutWatch], str | None]] = field(default_factory=list)

    @classmethod
    def for_deployment(cls, d: JSON) -> RolloutWatch:
        replicas = d["spec"]["replicas"]
        strategy = strategy_of(d)
        floor = replicas - max_unavailable(strategy, replicas)
        return cls(ceiling=replicas + max_surge(strategy, replicas), floor=floor)

    def observe(self, store: dict[str, JSON], kind: str, obj: JSON) -> None:
        if kind == "BOOKMARK":
            return
        if kind == "DELETED":
            store.pop(obj["metadata"]["name"], None)
        else:
            store[obj["metadata"]["name"]] = obj
        self.events += 1
        spec_total = sum(rs["spec"].get("replicas", 1) for rs in self.replica_sets.values())
        self.max_spec_total = max(self.max_spec_total, spec_total)
        if spec_total > self.ceiling:
            self.violations.append(f"ReplicaSets ask for {spec_total} > {self.ceiling}")
        ready = [
            p
            for p in self.pods.values()
            if is_ready(p) and not p["metadata"].get("deletionTimestamp")
        ]
        if self.armed and len(ready) < self.floor:
            self.violations.append(f"{len(ready)} ready pods < {self.floor}")
        for check in self.extra_checks:
            problem = check(self)
            if problem is not None:
                self.violations.append(problem)


class DeployCluster(Cluster):
    """``Cluster`` with both controllers; ``ready_after`` seconds after a pod appears it is
    marked Ready (``None``: pods never become ready)."""

    def __init__(self, ready_after: float | None = 2.0) -> None:
        super().__init__()
        self.ready_after = ready_after
        self._tasks: list[asyncio.Task[None]] = []
        self.deployments: list[DeploymentController] = []

    async def start_all(self, seed: int = 1, *, api: ControllerApi | None = None) -> None:
        """Run both controllers; the Deployment controller talks through ``api`` if given."""
        manager = ControllerManager(self.api, self.clock)
        manager.register(ReplicaSetController(self.api, self.clock, rng=random.Random(seed)))
        controller = DeploymentController(api or self.api, self.clock)
        manager.register(controller)
        self.deployments.append(controller)
        task = asyncio.create_task(manager.run())
        await manager.wait_started()
        self._running.append((manager, task))
        if self.ready_after is not None:
            self._tasks.append(asyncio.create_task(self._kubelet(self.ready_after)))

    async def _kubelet(self, delay: float) -> None:
        listed = await self.api.list(POD, "default")
        rv = listed["metadata"]["resourceVersion"]
        async for kind, pod in self.api.watch(POD, "default", resource_version=rv):
            if kind == "ADDED" and not is_ready(pod):
                self._tasks.append(asyncio.create_task(self._ready_later(pod, delay)))

    async def _ready_later(self, pod: JSON, delay: float) -> None:
        await asyncio.sleep(delay)
        with contextlib.suppress(ApiError):
            await self.make_ready(pod)

    async def watch_rollout(self, watch: RolloutWatch) -> None:
        """Feed ``watch`` from ReplicaSet and pod watches until the scenario ends."""
        for kind, store in ((RS, watch.replica_sets), (POD, watch.pods)):
            listed = await self.api.list(kind, "default")
            for item in listed["items"]:
                store[item["metadata"]["name"]] = item
            self._tasks.append(
                asyncio.create_task(
                    self._feed(kind, store, watch, listed["metadata"]["resourceVersion"])
                )
            )

    async def _feed(self, kind: Any, store: dict[str, JSON], watch: RolloutWatch, rv: str) -> None:
        async for event, obj in self.api.watch(kind, "default", resource_version=rv):
            watch.observe(store, event, obj)

    async def shutdown(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.stop_all()

    async def deploy(self, name: str = "web") -> JSON:
        return await self.api.get(DEPLOYMENT, "default", name)

    async def replica_sets(self) -> list[JSON]:
        items = (await self.api.list(RS, "default"))["items"]
        return sorted(items, key=lambda rs: int(rs["metadata"]["annotations"][REVISION]))

    async def pods_of(self, rs: JSON) -> list[JSON]:
        return [p for p in await self.pods() if controller_uid(p) == rs["metadata"]["uid"]]

    async def patch_deployment(self, patch: JSON, name: str = "web") -> JSON:
        return await self.api.patch(DEPLOYMENT, "default", name, patch)

    async def set_image(self, image: str, name: str = "web") -> JSON:
        template = {"spec": {"containers": [{"name": "c", "image": image}]}}
        return await self.patch_deployment({"spec": {"template": template}}, name)

    async def scale_deployment(self, replicas: int, name: str = "web") -> None:
        patch = {"spec": {"replicas": replicas}}
        await self.api.patch(DEPLOYMENT, "default", name, patch, subresource="scale")

    async def ready_all(self) -> int:
        """Mark every pod not yet ready Ready (a kubelet catching up); how many."""
        waiting = [p for p in await self.pods() if not is_ready(p)]
        for pod in waiting:
            with contextlib.suppress(ApiError):
                await self.make_ready(pod)
        return len(waiting)

    async def roll_to_completion(self, rounds: int = 20) -> None:
        """Alternate marking pods ready and letting the controllers act until stable."""
        for _ in range(rounds):
            await self.settle(5)
            if await self.ready_all() == 0:
                await self.settle(5)
                if await self.ready_all() == 0:
                    return
        raise AssertionError("rollout did not settle")

    async def deployment_events(self) -> list[str]:
        events = [e for e in await self.events() if e["involvedObject"]["kind"] == "Deployment"]
        events.sort(key=lambda e: e["metadata"]["name"])
        return [e["message"] for e in events]


def run_deploy(
    scenario: Callable[[DeployCluster], Awaitable[T]],
    *,
    ready_after: float | None = 2.0,
    wrap: Callable[[InProcessApi], ControllerApi] | None = None,
) -> T:
    async def main() -> tuple[T]:
        cluster = DeployCluster(ready_after)
        try:
            await cluster.start_all(api=None if wrap is None else wrap(cluster.api))
            return (await scenario(cluster),)
        finally:
            await cluster.shutdown()

    result = run_virtual(main(), start=START, until=UNTIL)
    assert result is not None, "scenario did not finish before its virtual deadline"
    return result[0]
