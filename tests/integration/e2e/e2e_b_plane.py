"""Helpers of the ``test_e2e_b_*`` tests: upstream's HPA e2e behaviours on the whole stack.

Each test states its cluster as an inline scenario (``e2e_b_manifests``: manifests, metric
specs and loads) and plays it on a fresh ``EmbeddedControlPlane`` on virtual time with
``run_e2e``: API server in-process, the workload and HPA controllers, simulated nodes and
kubelets, ``SimulatedUsage`` feeding the metrics server, and the push provider serving
custom and external metrics.

The body gets an ``E2E``: ``advance`` lets virtual time pass while firing the scenario's
timeline events and taking a ``ScenarioSnapshot`` every tick (what ``kubectl get`` would
show), which the tests then read for bounds such as "never below 4 before t=300". External
and per-pod custom metrics are set with ``set_external``/``set_pods_metric`` and re-pushed
every ``FEED_PERIOD`` by a feeder task, as a metrics adapter keeps serving a live source
(the push provider forgets values after two minutes). ``HpaRestarter`` runs the HPA
controller in a manager of its own on the plane's API, so a test can crash and restart it
while the rest of the control plane keeps running.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, TypeVar

from podscale.api.kinds import KindInfo, kind_for
from podscale.controllers.hpa import HorizontalPodAutoscalerController, InProcessMetricsClient
from podscale.controllers.manager import ControllerManager
from podscale.plane.controller_sets import controllers_from_flag
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.load import ConstantRate
from podscale.scenario.model import Scenario
from podscale.scenario.run import ScenarioRun, plane_for
from podscale.scenario.snapshot import ScenarioSnapshot, SeenEvent

from .e2e_b_manifests import JSON, NAMESPACE

T = TypeVar("T")

START: Final = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
SYNC: Final = 15.0
"""The HPA controller's sync period (upstream's default), in seconds."""
FEED_PERIOD: Final = 15.0
DEPLOYMENT: Final = kind_for("apps/v1", "Deployment")
REPLICA_SET: Final = kind_for("apps/v1", "ReplicaSet")
HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
POD: Final = kind_for("v1", "Pod")
WITHOUT_HPA_CONTROLLER: Final = "*,-horizontalpodautoscaling"


@dataclass(frozen=True, slots=True)
class PodsMetricFeed:
    """A per-pod custom metric pushed for every pod labelled ``app=<app>``."""

    app: str
    metric: str
    value: str


class E2E:
    """A started scenario on a running plane; see the module docstring."""

    def __init__(self, run: ScenarioRun) -> None:
        self.run = run
        self.plane: EmbeddedControlPlane = run.plane
        self.api = run.plane.api
        self.snapshots: list[ScenarioSnapshot] = []
        self._external: dict[str, str] = {}
        self._pods_feeds: dict[tuple[str, str], PodsMetricFeed] = {}

    # -- time -------------------------------------------------------------------------------

    def now(self) -> float:
        """Seconds since the scenario started."""
        return self.run.offset().total_seconds()

    async def advance(self, to: float, *, tick: float = 5.0) -> None:
        """Let virtual time pass until ``to`` seconds after the start, firing due timeline
        events and taking a snapshot at every multiple of ``tick`` (and at ``to``)."""
        while True:
            now = self.now()
            next_tick = (int(now / tick) + 1) * tick
            event_at = self.run.next_event_at()
            wake = min(next_tick, to)
            if event_at is not None:
                wake = min(wake, event_at.total_seconds())
            await asyncio.sleep(max(wake - now, 0.0))
            await self.run.fire_due()
            self.snapshots.append(await self.run.snapshot())
            if self.now() >= to:
                return

    # -- reading ----------------------------------------------------------------------------

    def replicas_seen(self, workload: str, start: float, end: float) -> list[int]:
        """``spec.replicas`` of ``workload`` at each snapshot in ``[start, end)``."""
        return [
            s.workload(workload).replicas
            for s in self.snapshots
            if start <= s.offset.total_seconds() < end
        ]

    def first_time(self, workload: str, replicas: int, *, after: float = 0.0) -> float | None:
        """The offset of the first snapshot at or after ``after`` showing ``replicas``."""
        for s in self.snapshots:
            at = s.offset.total_seconds()
            if at >= after and s.workload(workload).replicas == replicas:
                return at
        return None

    def events_of(
        self,
        hpa_name: str,
        reason: str | None = None,
        *,
        start: float = 0.0,
        end: float = float("inf"),
    ) -> list[SeenEvent]:
        """The Events of HPA ``hpa_name`` first seen (or repeated) by a snapshot in
        ``[start, end)``, optionally only those with ``reason``."""
        return [
            e
            for s in self.snapshots
            if start <= s.offset.total_seconds() < end
            for e in s.events
            if e.kind == "HorizontalPodAutoscaler" and e.name == hpa_name
            if reason is None or e.reason == reason
        ]

    async def replicas(self, name: str, kind: KindInfo = DEPLOYMENT) -> int:
        scale = await self.api.get(kind, NAMESPACE, name, "scale")
        return int(scale["spec"]["replicas"])

    async def hpa(self, name: str) -> JSON:
        return await self.api.get(HPA, NAMESPACE, name)

    async def condition(self, hpa_name: str, condition_type: str) -> JSON:
        """The HPA's condition of ``condition_type`` as the API shows it now."""
        obj = await self.hpa(hpa_name)
        for cond in (obj.get("status") or {}).get("conditions") or []:
            if cond.get("type") == condition_type:
                return dict(cond)
        raise AssertionError(f"no {condition_type} condition in {obj.get('status')}")

    async def replica_sets(self, app: str) -> list[JSON]:
        listed = await self.api.list(REPLICA_SET, NAMESPACE, label_selector=f"app={app}")
        return list(listed.get("items") or [])

    async def pods(self, app: str) -> list[JSON]:
        listed = await self.api.list(POD, NAMESPACE, label_selector=f"app={app}")
        return list(listed.get("items") or [])

    # -- acting -----------------------------------------------------------------------------

    async def scale(self, name: str, replicas: int, kind: KindInfo = DEPLOYMENT) -> None:
        """Set ``spec.replicas`` through the ``scale`` subresource, as ``kubectl scale``."""
        body = {"spec": {"replicas": replicas}}
        await self.api.patch(kind, NAMESPACE, name, body, subresource="scale")

    def detach_metrics_api(self) -> None:
        """Stop serving metrics.k8s.io (metrics-server gone: its APIService unavailable);
        the metrics server itself keeps scraping."""
        assert self.plane.metrics_server is not None, "the plane runs no metrics server"
        self.api.state.metrics_provider = None

    def attach_metrics_api(self) -> None:
        """Serve metrics.k8s.io from the plane's metrics server again."""
        self.api.state.metrics_provider = self.plane.metrics_server

    def set_load(self, name: str, rate: float) -> None:
        """From now on Deployment ``name`` receives ``rate`` requests/s, costed as its
        scenario workload says."""
        workload = next(w for w in self.run.scenario.workloads if w.target.name == name)
        t = workload.target
        self.plane.usage.set_load(t.kind, t.namespace, t.name, ConstantRate(rate), workload.profile)

    def set_external(self, metric: str, value: str) -> None:
        """Serve external ``metric`` in the namespace with ``value`` from now on."""
        self._external[metric] = value
        self._push_external()

    def set_pods_metric(self, app: str, metric: str, value: str) -> None:
        """Serve ``metric`` = ``value`` for every pod of ``app=<app>`` from the next feed."""
        self._pods_feeds[(app, metric)] = PodsMetricFeed(app, metric, value)

    def _push_external(self) -> None:
        push = self.plane.push
        assert push is not None, "the plane runs no metrics pipeline"
        for metric, value in self._external.items():
            push.set_external_metric(NAMESPACE, metric, value)

    async def _push_pods(self) -> None:
        push = self.plane.push
        assert push is not None, "the plane runs no metrics pipeline"
        for feed in self._pods_feeds.values():
            for pod in await self.pods(feed.app):
                push.set_pod_metric(NAMESPACE, pod["metadata"]["name"], feed.metric, feed.value)

    async def feed(self) -> None:
        """Re-push every metric value each ``FEED_PERIOD`` until cancelled."""
        while True:
            self._push_external()
            await self._push_pods()
            await asyncio.sleep(FEED_PERIOD)


class HpaRestarter:
    """The HPA controller in a manager of its own on ``plane``'s API (the plane must run
    without one: ``controllers=controllers_from_flag(WITHOUT_HPA_CONTROLLER)``), so it can
    crash and restart while the rest of the control plane keeps running."""

    def __init__(self, plane: EmbeddedControlPlane, *, persist_history: bool = True) -> None:
        self._plane = plane
        self._persist = persist_history
        self._task: asyncio.Task[None] | None = None
        self.starts = 0

    async def start(self) -> None:
        assert self._task is None, "the HPA controller already runs"
        plane = self._plane
        manager = ControllerManager(plane.api, plane.clock)
        manager.register(
            HorizontalPodAutoscalerController(
                plane.api,
                plane.clock,
                InProcessMetricsClient(plane.api.state),
                # The plane's store outlives the controller, as ``podscale up``'s file does.
                history=plane.history if self._persist else None,
            )
        )
        self._task = asyncio.create_task(manager.run(), name="hpa-controller-manager")
        await manager.wait_started()
        self.starts += 1

    async def __aenter__(self) -> HpaRestarter:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.crash()

    async def crash(self) -> None:
        """Stop it at once, mid-whatever, as a killed process would."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def without_hpa_controller() -> dict[str, Any]:
    """Plane options leaving the HPA controller out (for ``HpaRestarter``)."""
    return {"controllers": controllers_from_flag(WITHOUT_HPA_CONTROLLER)}


def run_e2e(
    scn: Scenario,
    body: Callable[[E2E], Awaitable[T]],
    *,
    until: timedelta = timedelta(hours=1),
    **options: Any,
) -> T:
    """Start ``scn`` on a fresh plane (``options`` go to ``EmbeddedControlPlane``), run the
    metric feeder, and return what ``body`` returns; everything stops afterwards."""
    clock = VirtualClock(START)

    async def main() -> tuple[T]:
        plane = plane_for(scn, clock, **options)
        task = asyncio.create_task(plane.run(), name="embedded-control-plane")
        feeder: asyncio.Task[None] | None = None
        try:
            await plane.wait_started()
            run = ScenarioRun(plane, scn)
            await run.start()
            e2e = E2E(run)
            feeder = asyncio.create_task(e2e.feed(), name="metric-feeder")
            return (await body(e2e),)
        finally:
            if feeder is not None:
                feeder.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await feeder
            plane.stop()
            await task

    result = run_virtual(main(), start=START, until=until)
    assert result is not None, "the test body did not finish before its virtual deadline"
    return result[0]
