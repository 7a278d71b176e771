"""A control plane for HPA controller tests: store, API and fake metrics on virtual time, a
manager running the ReplicaSet, Deployment, StatefulSet and HPA controllers, and a kubelet.

The ``FakePodMetrics`` provider plays metrics-server: every Running pod whose ``app`` label
has a usage set reports that CPU usage (one container, sampled "now" over a 10 s window);
``failing`` makes it fail like an unreachable API. ``push`` (a ``PushMetricsProvider``)
serves custom and external metrics. The HPA controller reads them in-process, or through
the API server app over HTTP (``metrics_over_http``); ``api_over_http`` sends the HPA
controller's own API calls there too. The kubelet marks each new pod
Running and Ready with a ``startTime`` within a second. ``CountingApi`` wraps the API the
HPA controller writes through, so tests can count its writes (and fail ``/scale`` updates).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

import httpx

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.errors import ApiError as ServerApiError
from podscale.apiserver.errors import status_body
from podscale.apiserver.http.app import create_app
from podscale.apiserver.registry.bootstrap import ensure_system_namespaces
from podscale.apiserver.state import ServerState
from podscale.client.http import ApiError, HttpApi
from podscale.client.inprocess import InProcessApi
from podscale.client.kubeconfig import Connection
from podscale.controllers.deployment.controller import DeploymentController
from podscale.controllers.hpa import (
    ControllerMetrics,
    HorizontalPodAutoscalerController,
    InProcessMetricsClient,
    MetricsClient,
    RestMetricsClient,
)
from podscale.controllers.manager import ControllerManager
from podscale.controllers.replicaset.controller import ReplicaSetController
from podscale.controllers.statefulset.controller import StatefulSetController
from podscale.history import MemoryHistory
from podscale.hpa import Config
from podscale.metrics.push import PushMetricsProvider
from podscale.runtime import VirtualClock, run_virtual
from podscale.store.memory import MemoryStore

from .cluster import EVENT, POD, START, Passthrough

JSON = dict[str, Any]
T = TypeVar("T")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
RS = kind_for("apps/v1", "ReplicaSet")
SYNC = 15.0
# Builds the autoscaler controller a manager runs: (api, clock, metrics, config, state store).
AutoscalerFactory = Callable[
    [Any, VirtualClock, MetricsClient, Config | None, MemoryHistory | None],
    HorizontalPodAutoscalerController,
]


def stamp(clock: VirtualClock, offset: float = 0.0) -> str:
    return (clock.now() + timedelta(seconds=offset)).strftime("%Y-%m-%dT%H:%M:%SZ")


class FakePodMetrics:
    """A metrics.k8s.io provider: per-``app`` CPU usage of every Running pod."""

    def __init__(self, store: MemoryStore, clock: VirtualClock) -> None:
        self._store = store
        self._clock = clock
        self.usage: dict[str, str] = {}
        self.failing: str | None = None

    def pod_metrics(self, namespace: str | None) -> list[JSON]:
        if self.failing is not None:
            raise ServerApiError(status_body(503, self.failing, "ServiceUnavailable"))
        items = []
        for pod in self._store.list("pods", namespace).items:
            meta = pod["metadata"]
            usage = self.usage.get((meta.get("labels") or {}).get("app", ""))
            if usage is None or (pod.get("status") or {}).get("phase") != "Running":
                continue
            items.append(
                {
                    "metadata": {
                        "name": meta["name"],
                        "namespace": meta["namespace"],
                        "labels": meta.get("labels") or {},
                    },
                    "timestamp": stamp(self._clock),
                    "window": "10s",
                    "containers": [{"name": "c", "usage": {"cpu": usage, "memory": "10Mi"}}],
                }
            )
        return items

    def node_metrics(self) -> list[JSON]:
        return []


class CountingApi(Passthrough):
    """The in-process API, counting the HPA controller's writes by (verb, kind, subresource)."""

    def __init__(self, inner: InProcessApi) -> None:
        super().__init__(inner)
        self.writes: list[tuple[str, str, str]] = []
        self.fail_scale_updates = 0

    def count(self, verb: str, kind: str, subresource: str = "") -> int:
        return self.writes.count((verb, kind, subresource))

    async def update(
        self, kind: KindInfo, namespace: str | None, obj: JSON, subresource: str | None = None
    ) -> JSON:
        self.writes.append(("update", kind.kind, subresource or ""))
        if subresource == "scale" and self.fail_scale_updates > 0:
            self.fail_scale_updates -= 1
            raise ApiError(409, {"kind": "Status", "message": "simulated conflict", "code": 409})
        return await self.inner.update(kind, namespace, obj, subresource)

    async def patch(
        self, kind: KindInfo, namespace: str | None, name: str, patch: Any, **kw: Any
    ) -> JSON:
        self.writes.append(("patch", kind.kind, kw.get("subresource") or ""))
        return await self.inner.patch(kind, namespace, name, patch, **kw)


def workload(kind: str, name: str, replicas: int, *, cpu: str = "100m") -> JSON:
    """A ReplicaSet, Deployment or StatefulSet whose pods request ``cpu`` and carry
    ``app=<name>``."""
    labels = {"app": name}
    spec: JSON = {
        "replicas": replicas,
        "selector": {"matchLabels": dict(labels)},
        "template": {
            "metadata": {"labels": dict(labels)},
            "spec": {
                "containers": [
                    {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}
                ]
            },
        },
    }
    if kind == "StatefulSet":
        spec["serviceName"] = name
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def replica_set(name: str, replicas: int, *, cpu: str = "100m") -> JSON:
    return workload("ReplicaSet", name, replicas, cpu=cpu)


def hpa(
    name: str,
    target: str,
    *,
    max_replicas: int = 5,
    utilization: int = 50,
    kind: str = "ReplicaSet",
    api_version: str = "apps/v1",
    **spec: Any,
) -> JSON:
    body: JSON = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": api_version, "kind": kind, "name": target},
            "minReplicas": 1,
            "maxReplicas": max_replicas,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": utilization},
                    },
                }
            ],
        },
    }
    body["spec"].update(spec)
    return body


class CountingHistory(MemoryHistory):
    """A memory history store that counts its state writes."""

    def __init__(self) -> None:
        super().__init__()
        self.puts: list[tuple[str, str]] = []

    def put_state(self, uid: str, name: str, document: dict[str, Any]) -> None:
        self.puts.append((uid, name))
        super().put_state(uid, name, document)


class HpaCluster:
    """One store and API; managers (RS + HPA controllers) come and go on it."""

    def __init__(
        self,
        *,
        config: Config | None = None,
        persist_history: bool = True,
        metrics_over_http: bool = False,
        api_over_http: bool = False,
        autoscaler: AutoscalerFactory | None = None,
    ) -> None:
        self.clock = VirtualClock(START)
        self._autoscaler = autoscaler
        self.store = MemoryStore(self.clock)
        ensure_system_namespaces(self.store)
        self.metrics = FakePodMetrics(self.store, self.clock)
        self.push = PushMetricsProvider(self.clock, ttl=None)
        self.state = ServerState(
            store=self.store,
            clock=self.clock,
            metrics_provider=self.metrics,
            custom_metrics_provider=self.push,
            external_metrics_provider=self.push,
        )
        self.api = InProcessApi(self.state)
        self.counting = CountingApi(self.api)
        self.config = config
        self.persist_history = persist_history
        # The controller's state store, kept across its restarts like the plane's.
        self.history = CountingHistory()
        self._http: HttpApi | None = None
        if metrics_over_http or api_over_http:
            app = create_app(
                self.store,
                clock=self.clock,
                metrics_provider=self.metrics,
                custom_metrics_provider=self.push,
                external_metrics_provider=self.push,
            )
            transport = httpx.ASGITransport(app=app)
            self._http = HttpApi(Connection(server="http://podscale"), transport=transport)
        if api_over_http and self._http is not None:
            # The HPA controller's own reads and writes (discovery, /scale, status) over HTTP.
            self.counting = CountingApi(self._http)  # type: ignore[arg-type]
        self._metrics_over_http = metrics_over_http
        self.controller: HorizontalPodAutoscalerController | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._kubelet: asyncio.Task[None] | None = None

    async def start(self) -> HorizontalPodAutoscalerController:
        manager = ControllerManager(self.api, self.clock)
        manager.register(
            ReplicaSetController(self.api, self.clock, rng=random.Random(1), burst=500)
        )
        manager.register(DeploymentController(self.api, self.clock))
        manager.register(StatefulSetController(self.api, self.clock))
        metrics: MetricsClient = (
            InProcessMetricsClient(self.state)
            if not self._metrics_over_http or self._http is None
            else RestMetricsClient(self._http)
        )
        state = self.history if self.persist_history else None
        if self._autoscaler is not None:
            controller = self._autoscaler(self.counting, self.clock, metrics, self.config, state)
        else:
            controller = HorizontalPodAutoscalerController(
                self.counting,  # type: ignore[arg-type]
                self.clock,
                metrics,
                config=self.config,
                history=state,
                monitor=ControllerMetrics(),
            )
        manager.register(controller)
        self._tasks.append(asyncio.create_task(manager.run()))
        await manager.wait_started()
        if self._kubelet is None:
            self._kubelet = asyncio.create_task(self._run_kubelet())
        self.controller = controller
        return controller

    async def stop(self) -> None:
        """Stop the newest manager at once (a controller crash)."""
        task = self._tasks.pop()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def stop_all(self) -> None:
        while self._tasks:
            await self.stop()
        if self._kubelet is not None:
            self._kubelet.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._kubelet
        if self._http is not None:
            await self._http.aclose()

    async def _run_kubelet(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            for pod in (await self.api.list(POD, "default"))["items"]:
                status = pod.get("status") or {}
                if status.get("phase") == "Running" or pod["metadata"].get("deletionTimestamp"):
                    continue
                now = stamp(self.clock)
                pod["status"] = {
                    **status,
                    "phase": "Running",
                    "startTime": now,
                    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": now}],
                }
                with contextlib.suppress(Exception):
                    await self.api.update(POD, "default", pod, "status")

    async def replicas(self, name: str, kind: str = "ReplicaSet") -> int:
        """The target's ``spec.replicas``, read through its ``scale`` subresource."""
        scale = await self.api.get(kind_for("apps/v1", kind), "default", name, "scale")
        return int(scale["spec"]["replicas"])

    async def hpa(self, name: str) -> JSON:
        return await self.api.get(HPA, "default", name)

    async def events(self, name: str) -> list[JSON]:
        items = (await self.api.list(EVENT, "default"))["items"]
        return [
            e
            for e in items
            if e["involvedObject"]["name"] == name
            and e["involvedObject"]["kind"] == "HorizontalPodAutoscaler"
        ]

    async def reasons(self, name: str) -> list[str]:
        return [e["reason"] for e in await self.events(name)]

    async def replicas_over(self, name: str, seconds: float, step: float = 1.0) -> list[int]:
        """The RS's spec.replicas sampled every ``step`` seconds for ``seconds``."""
        seen = []
        for _ in range(int(seconds / step)):
            await asyncio.sleep(step)
            seen.append(await self.replicas(name))
        return seen


def run_scenario(
    scenario: Callable[[HpaCluster], Awaitable[T]],
    *,
    until: timedelta = timedelta(hours=1),
    **options: Any,
) -> T:
    async def main() -> tuple[T]:
        cluster = HpaCluster(**options)
        try:
            return (await scenario(cluster),)
        finally:
            await cluster.stop_all()

    result = run_virtual(main(), start=START, until=until)
    assert result is not None, "scenario did not finish before its virtual deadline"
    return result[0]


def condition(hpa_obj: JSON, kind: str) -> JSON:
    for cond in hpa_obj["status"].get("conditions") or []:
        if cond["type"] == kind:
            return dict(cond)
    raise AssertionError(f"no {kind} condition in {hpa_obj['status']}")
