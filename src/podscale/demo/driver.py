"""``podscale demo``: a scenario played on the embedded control plane, shown as it happens.

The driver between ``podscale.scenario.play`` (which plays a scenario on an
``EmbeddedControlPlane`` and hands back a ``ScenarioSnapshot`` every tick) and the demo's
presentation: each snapshot of the scenario's first HPA becomes a ``Sample`` of the
``Timeline`` (``demo.timeline``) and its new Events become ``TimelineEvent``s; ``LiveView``
(``demo.view``) prints them; at the end ``write_plot`` (``demo.plot``), the timeline JSON
(``demo.timeline_json``) and ``summarize`` (``demo.summary``) report the run.

Two clocks, one code path: ``run_demo`` plays the scenario on virtual time (a 20 minute
scenario in seconds); ``run_demo_real_time`` plays the same scenario at wall speed on a
``SystemClock``, next to a served API (``podscale.cli`` builds that server and passes the
plane in), so kubectl can watch along. The CLI (``podscale.cli.demo_command``) only parses
arguments and calls these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Final

from podscale.demo.plot import write_plot
from podscale.demo.summary import summarize
from podscale.demo.timeline import Sample, Timeline, TimelineEvent
from podscale.demo.timeline_json import write_timeline
from podscale.demo.view import LiveView
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.scenario.model import Scenario
from podscale.scenario.play import play, run_scenario
from podscale.scenario.run import ScenarioRun
from podscale.scenario.snapshot import ScenarioSnapshot

__all__ = ["DEFAULT_TICK", "DemoOutputs", "DemoRecorder", "finish_demo", "run_demo"]

DEFAULT_TICK: Final = timedelta(seconds=5)
HPA_KIND: Final = "HorizontalPodAutoscaler"


@dataclass(frozen=True, slots=True)
class DemoOutputs:
    """Where a finished demo wrote its plot and timeline, and its summary lines."""

    plot: Path
    timeline: Path
    summary: tuple[str, ...]


class DemoRecorder:
    """Turns snapshots into the timeline of one HPA and shows them on a ``LiveView``."""

    def __init__(self, hpa_name: str, namespace: str, view: LiveView | None) -> None:
        self.timeline = Timeline(name=hpa_name, namespace=namespace)
        self._view = view
        self._last: Sample | None = None

    def on_tick(self, snapshot: ScenarioSnapshot) -> None:
        hpa = next((h for h in snapshot.hpas if h.name == self.timeline.name), None)
        if hpa is None:
            return
        target = (hpa.target_kind, hpa.target_name)
        workload = next((w for w in snapshot.workloads if (w.kind, w.name) == target), None)
        sample = Sample(
            offset=snapshot.offset,
            load=workload.offered_load if workload else 0.0,
            utilization=workload.utilization if workload else None,
            target_utilization=hpa.target_utilization or 0,
            desired_replicas=hpa.desired_replicas,
            current_replicas=workload.replicas if workload else hpa.current_replicas,
            ready_replicas=workload.ready_pods if workload else 0,
            targets=hpa.targets,
            metrics=hpa.metrics,
        )
        # The windows are the HPA's latest; a scenario does not change its behavior.
        self.timeline.scale_up_window = hpa.scale_up_window
        self.timeline.scale_down_window = hpa.scale_down_window
        events = [
            TimelineEvent(event.offset, event.reason, event.message, event.type)
            for event in snapshot.events
            if event.kind == HPA_KIND and event.name == self.timeline.name
        ]
        self.timeline.append_sample(sample)
        for event in events:
            self.timeline.append_event(event)
        if self._view is not None:
            self._view.show(sample, events)
        self._last = sample

    def close(self) -> None:
        """Show the last sample even if the view's throttle held it back."""
        view, last = self._view, self._last
        if view is not None and last is not None and view.last_shown != last.offset:
            view.show(last, (), force=True)


def first_hpa(scenario: Scenario) -> tuple[str, str]:
    """The ``(name, namespace)`` of the scenario's first HorizontalPodAutoscaler."""
    for manifest in scenario.manifests:
        obj = manifest.object
        if obj.get("kind") == HPA_KIND:
            meta = obj.get("metadata") or {}
            return str(meta.get("name")), str(meta.get("namespace") or "default")
    raise ValueError(f"scenario {scenario.name!r} has no HorizontalPodAutoscaler to show")


def finish_demo(recorder: DemoRecorder, out_dir: Path) -> DemoOutputs:
    """Write the plot and the timeline of a finished run into ``out_dir``."""
    recorder.close()
    out_dir.mkdir(parents=True, exist_ok=True)
    plot = write_plot(recorder.timeline, out_dir / "podscale-demo.png")
    timeline = out_dir / "podscale-demo.json"
    write_timeline(recorder.timeline, timeline)
    return DemoOutputs(plot, timeline, tuple(summarize(recorder.timeline)))


def run_demo(
    scenario: Scenario,
    out_dir: Path,
    *,
    view: LiveView | None,
    tick: timedelta = DEFAULT_TICK,
) -> DemoOutputs:
    """Play ``scenario`` on virtual time, showing it on ``view``; write the results."""
    name, namespace = first_hpa(scenario)
    recorder = DemoRecorder(name, namespace, view)
    run_scenario(scenario, on_tick=recorder.on_tick, tick=tick)
    return finish_demo(recorder, out_dir)


async def play_demo_real_time(
    plane: EmbeddedControlPlane,
    scenario: Scenario,
    recorder: DemoRecorder,
    *,
    tick: timedelta = DEFAULT_TICK,
    started: Callable[[], None] | None = None,
) -> None:
    """Play ``scenario`` at the speed of ``plane``'s clock once the plane has started."""
    await plane.wait_started()
    if started is not None:
        started()
    await play(ScenarioRun(plane, scenario), tick=tick, on_tick=recorder.on_tick)
