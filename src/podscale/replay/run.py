"""One replay run: a scenario with one autoscaler, played on virtual time and recorded.

``record_run`` builds the plane a scenario asks for (``podscale.scenario.run.plane_for``),
applies the scenario through ``ScenarioRun`` (manifests, loads, events, external metrics)
and plays it to its end on a fresh virtual-time loop. While it plays, ``Recorder`` follows
the target workload through the plane's own shared informers (the ones its controllers
read, so no extra list or watch): each pod event updates the set of the target's Ready
pods, each workload event its ``spec.replicas``, and every change is kept with its time.
That is the run's ``Recording``: two step functions that ``podscale.replay.sampling`` turns
into per-minute means, and the ``HpaTrace`` (``podscale.replay.hpa_series``) of the HPA
(or PredictiveHorizontalPodAutoscaler, whose status has the HPA's shape) scaling the
target: its metric readings as its status changes. Observing changes instead of
sampling keeps the cost with the number of events, and makes the means exact.

A custom target (any kind with a scale subresource: no shared informer follows it, and its
pods have no selector in its spec) is followed through its Scale as an HPA reads it
(``runtime.simulated.scale_follower.ScaleFollower``, which reads ``/scale`` after every
change of the object): ``spec.replicas`` is its replicas, ``status.selector`` chooses its
Ready pods from the pod informer, and the containers of the first of its pods seen are kept
(``Recording.containers``: what ``replay.target.shape_of_pod`` reads its shape from).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.api.selector_model import Selector
from podscale.api.selectors import selector_from_label_selector
from podscale.client.cache import Lister
from podscale.client.informer import EventHandler
from podscale.controllers.phpa.kind import PHPA
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.replay.hpa_series import HpaTrace, ReadingChange
from podscale.replay.sampling import Change
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.load import is_pod_ready
from podscale.runtime.simulated.scale_follower import ScaleFollower, scale_selector
from podscale.runtime.simulated.usage_loads import built_in_workload
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.hpa_metrics import read_metrics
from podscale.scenario.model import Scenario, WorkloadTarget
from podscale.scenario.play import beside_plane
from podscale.scenario.run import ScenarioRun, plane_for
from podscale.scenario.snapshot_values import DEFAULT_DOWNSCALE_WINDOW

__all__ = ["PROGRESS_EVERY", "Recorder", "Recording", "record_run"]

JSON = dict[str, Any]
POD: Final = kind_for("v1", "Pod")
HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
PHPA_RESOURCE: Final = f"{PHPA.plural}.{PHPA.group}"
# How often (simulated) a run reports how far it got.
PROGRESS_EVERY: Final = timedelta(minutes=30)


@dataclass(frozen=True, slots=True)
class Recording:
    """The target's Ready pods and ``spec.replicas`` over a run, as step functions: each
    ``(seconds since the start, new value)``, both 0 before their first change."""

    ready: tuple[Change, ...]
    replicas: tuple[Change, ...]
    hpa: HpaTrace | None = None
    # A custom target's: the containers of the first of its pods seen (empty otherwise).
    containers: tuple[JSON, ...] = ()


class Recorder:
    """Informer handlers keeping the target's Ready pods and ``spec.replicas``."""

    def __init__(
        self, clock_now: Callable[[], datetime], started: datetime, target: WorkloadTarget
    ) -> None:
        self._now = clock_now
        self._started = started
        self._target = target
        self._selector: Selector | None = None
        self._ready: set[str] = set()
        self.ready: list[Change] = []
        self.replicas: list[Change] = []
        self.hpa_name: str | None = None
        self.readings: list[ReadingChange] = []
        self.scale_down_window = DEFAULT_DOWNSCALE_WINDOW.total_seconds()
        self.containers: tuple[JSON, ...] = ()
        self._keep_containers = False

    def _at(self) -> float:
        return (self._now() - self._started).total_seconds()

    def select(self, selector: JSON) -> None:
        self._selector = selector_from_label_selector(selector)

    def restart_at(self, started: datetime) -> None:
        """Count from ``started`` (the scenario's ``t = 0``, once its CRDs are established);
        changes seen before then move to it."""
        shift = (started - self._started).total_seconds()
        self._started = started
        if shift:
            self.ready = [(max(at - shift, 0.0), value) for at, value in self.ready]
            self.replicas = [(max(at - shift, 0.0), value) for at, value in self.replicas]

    def on_scale(self, scale: JSON | None, pods: Lister) -> None:
        """A custom target's Scale (None: gone): its replicas, and its Ready pods as its
        ``status.selector`` chooses them among ``pods``."""
        self._keep_containers = True
        replicas = int(((scale or {}).get("spec") or {}).get("replicas") or 0)
        if not self.replicas or self.replicas[-1][1] != replicas:
            self.replicas.append((self._at(), replicas))
        selector = scale_selector(scale)
        if selector == self._selector:
            return
        self._selector = selector
        chosen = pods.list(self._target.namespace, selector) if selector is not None else []
        for pod in chosen:
            self._keep(pod)
        ready = {str(p["metadata"]["name"]) for p in chosen if is_pod_ready(p)}
        if len(ready) != len(self._ready):
            self.ready.append((self._at(), len(ready)))
        self._ready = ready

    def _keep(self, pod: JSON) -> None:
        if self._keep_containers and not self.containers:
            self.containers = tuple((pod.get("spec") or {}).get("containers") or ())

    def _on_pod(self, pod: JSON) -> None:
        meta = pod.get("metadata") or {}
        if meta.get("namespace") != self._target.namespace or self._selector is None:
            return
        name = str(meta.get("name"))
        chosen = self._selector.matches(meta.get("labels") or {})
        if chosen and self._keep_containers:
            self._keep(pod)
        ready = chosen and is_pod_ready(pod)
        before = len(self._ready)
        (self._ready.add if ready else self._ready.discard)(name)
        if len(self._ready) != before:
            self.ready.append((self._at(), len(self._ready)))

    def _pod_gone(self, pod: JSON) -> None:
        name = str((pod.get("metadata") or {}).get("name"))
        same_namespace = (pod.get("metadata") or {}).get("namespace") == self._target.namespace
        if same_namespace and name in self._ready:
            self._ready.discard(name)
            self.ready.append((self._at(), len(self._ready)))

    def _on_workload(self, obj: JSON) -> None:
        meta = obj.get("metadata") or {}
        key = (meta.get("namespace"), meta.get("name"))
        if key != (self._target.namespace, self._target.name):
            return
        replicas = int((obj.get("spec") or {}).get("replicas", 1))
        if not self.replicas or self.replicas[-1][1] != replicas:
            self.replicas.append((self._at(), replicas))

    def _on_hpa(self, obj: JSON) -> None:
        """Keep the readings of the first HPA seen scaling the target (by name after)."""
        meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
        ref = spec.get("scaleTargetRef") or {}
        target = self._target
        if meta.get("namespace") != target.namespace or (ref.get("kind"), ref.get("name")) != (
            target.kind,
            target.name,
        ):
            return
        name = str(meta.get("name"))
        if self.hpa_name is None:
            self.hpa_name = name
        if name != self.hpa_name:
            return
        readings = read_metrics(spec, obj.get("status") or {})
        if not self.readings or self.readings[-1][1] != readings:
            self.readings.append((self._at(), readings))
        down = ((spec.get("behavior") or {}).get("scaleDown") or {}).get(
            "stabilizationWindowSeconds"
        )
        if down is not None:
            self.scale_down_window = float(down)

    def hpa_trace(self) -> HpaTrace | None:
        if self.hpa_name is None:
            return None
        return HpaTrace(self.hpa_name, tuple(self.readings), self.scale_down_window)

    def hpa_handler(self) -> EventHandler:
        return EventHandler(self._on_hpa, lambda _, new: self._on_hpa(new), lambda _: None)

    def pod_handler(self) -> EventHandler:
        return EventHandler(self._on_pod, lambda _, new: self._on_pod(new), self._pod_gone)

    def workload_handler(self) -> EventHandler:
        return EventHandler(
            self._on_workload,
            lambda _, new: self._on_workload(new),
            lambda obj: self._on_workload({**obj, "spec": {"replicas": 0}}),
        )


async def _play(
    plane: EmbeddedControlPlane,
    scenario: Scenario,
    target: WorkloadTarget,
    selector: JSON,
    progress: Callable[[timedelta], None] | None,
) -> Recording:
    await plane.wait_started()
    run = ScenarioRun(plane, scenario)
    recorder = Recorder(plane.clock.now, plane.clock.now(), target)
    workload_kind = built_in_workload(target.api_version, target.kind)
    informers = plane.manager.informers
    followed = [(POD, recorder.pod_handler())]
    if workload_kind is not None:
        recorder.select(selector)
        followed.append((workload_kind, recorder.workload_handler()))
    for kind, handler in followed:
        informer = informers.informer_for(kind)
        if not informer.has_synced():
            raise RuntimeError(f"the plane runs no {kind.kind} informer to follow the target")
        informer.add_handler(handler)
    hpas = informers.informer_for(HPA)
    # The HPA informer is the controller's; without one there are no readings to keep.
    if hpas.has_synced():
        hpas.add_handler(recorder.hpa_handler())
    # A PredictiveHorizontalPodAutoscaler's status has the HPA's shape: its readings are
    # kept the same way, from its controller's informer (never one of the recorder's own:
    # that one waits for the kind's CRD).
    if PHPA_RESOURCE in dict(informers.named()):
        informers.informer_for(PHPA).add_handler(recorder.hpa_handler())
    await run.start()
    recorder.restart_at(run.started_at)
    following = None
    if workload_kind is None:
        # Once the CRDs are served (run.start waited for them): the Scale can be found.
        pods = informers.informer_for(POD).lister
        follower = ScaleFollower(
            plane.api,
            plane.clock,
            target.api_version,
            target.kind,
            target.namespace,
            target.name,
            lambda scale: recorder.on_scale(scale, pods),
        )
        following = asyncio.create_task(follower.run(), name="replay-scale-follower")
    try:
        await _play_out(run, scenario, progress)
    finally:
        if following is not None:
            following.cancel()
            await asyncio.wait({following})
    return Recording(
        tuple(recorder.ready), tuple(recorder.replicas), recorder.hpa_trace(), recorder.containers
    )


async def _play_out(
    run: ScenarioRun, scenario: Scenario, progress: Callable[[timedelta], None] | None
) -> None:
    """Events at their offsets and progress reports, to the scenario's end."""
    end, report_at = scenario.duration, PROGRESS_EVERY
    while run.offset() < end:
        wake = min(end, report_at)
        event_at = run.next_event_at()
        if event_at is not None:
            wake = min(wake, event_at)
        await asyncio.sleep(max((wake - run.offset()).total_seconds(), 0.0))
        await run.fire_due()
        if progress is not None and run.offset() >= report_at:
            progress(run.offset())
            report_at += PROGRESS_EVERY
    # Changes made at the very end still land in the last instant.
    await asyncio.sleep(0)


def record_run(
    scenario: Scenario,
    target: WorkloadTarget,
    selector: JSON,
    *,
    progress: Callable[[timedelta], None] | None = None,
    start: datetime = DEFAULT_START,
) -> Recording:
    """Play ``scenario`` to its end and record ``target`` (pods chosen by ``selector``);
    ``progress`` hears the offset every ``PROGRESS_EVERY`` of simulated time."""
    clock = VirtualClock(start)

    async def main() -> Recording:
        plane = plane_for(scenario, clock)
        return await beside_plane(plane, _play(plane, scenario, target, selector, progress))

    recording = run_virtual(main(), start=start)
    assert recording is not None  # no deadline was given
    return recording
