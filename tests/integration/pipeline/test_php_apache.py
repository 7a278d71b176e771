"""The php-apache walkthrough scenario end to end: step load -> CPU usage -> metrics server
-> HPA controller -> Deployment -> pods, all on one virtual clock.

The bundled php-apache-step.yaml: 0.5 req/s, 25 from 2m (5 pods' worth at 50%),
50 from 10m (10, the maximum), 0.5 again from 18m; 20m of CPU per request, 200m requests.
"""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta
from pathlib import Path

import pytest

from podscale.api.exposition import render_text
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.loader import load_scenario
from podscale.scenario.play import ScenarioResult, play, run_scenario
from podscale.scenario.run import ScenarioRun, plane_for
from podscale.scenario.snapshot import ScenarioSnapshot

SCENARIO = (
    Path(__file__).resolve().parents[3]
    / "src"
    / "podscale"
    / "demo"
    / "scenarios"
    / "php-apache-step.yaml"
)
MINUTE = 60


@pytest.fixture(scope="module")
def result() -> ScenarioResult:
    return run_scenario(load_scenario(SCENARIO))


def replicas_between(result: ScenarioResult, start_min: float, end_min: float) -> list[int]:
    return [
        s.workload("php-apache").replicas
        for s in result.snapshots
        if start_min * MINUTE <= s.offset.total_seconds() < end_min * MINUTE
    ]


def at(result: ScenarioResult, minutes: float) -> ScenarioSnapshot:
    wanted = timedelta(minutes=minutes)
    return next(s for s in result.snapshots if s.offset >= wanted)


def test_one_snapshot_every_tick_for_the_whole_duration(result: ScenarioResult) -> None:
    offsets = [s.offset for s in result.snapshots]
    assert offsets[0] == timedelta(0)
    assert offsets[-1] == timedelta(minutes=30)
    assert all(b - a == timedelta(seconds=5) for a, b in itertools.pairwise(offsets))


@pytest.mark.parametrize(
    ("start", "end", "low", "high"),
    [(0, 2, 1, 1), (4, 10, 4, 6), (12, 18, 10, 10), (25, 30, 1, 1)],
    ids=["idle", "25-rps", "50-rps", "after-window"],
)
def test_replicas_follow_the_load(
    result: ScenarioResult, start: float, end: float, low: int, high: int
) -> None:
    seen = replicas_between(result, start, end)
    assert seen
    assert low <= min(seen) <= max(seen) <= high


def test_never_beyond_the_hpa_bounds(result: ScenarioResult) -> None:
    replicas = result.replicas_of("php-apache")
    assert min(replicas) >= 1
    assert max(replicas) <= 10
    assert max(replicas) == 10


def test_scales_down_only_after_the_stabilization_window(result: ScenarioResult) -> None:
    # The load drops at 18m; the 5 minute downscale window holds the high recommendation.
    assert min(replicas_between(result, 18, 23)) == 10
    assert replicas_between(result, 23, 30)[-1] == 1


def test_utilization_settles_near_the_target(result: ScenarioResult) -> None:
    for minutes in (8, 16):
        snapshot = at(result, minutes)
        utilization = snapshot.workload("php-apache").utilization
        assert utilization is not None
        assert 40 <= utilization <= 60
        assert snapshot.hpa("php-apache").target_utilization == 50
    idle = at(result, 28).workload("php-apache").utilization
    assert idle is not None
    assert idle < 10


def test_the_offered_load_is_the_scenario_s_step(result: ScenarioResult) -> None:
    loads = [at(result, m).workload("php-apache").offered_load for m in (1, 5, 12, 20)]
    assert loads == [0.5, 25.0, 50.0, 0.5]


def test_hpa_status_and_events_tell_the_story(result: ScenarioResult) -> None:
    hpa = at(result, 16).hpa("php-apache")
    assert (hpa.current_replicas, hpa.desired_replicas) == (10, 10)
    rescales = [
        e
        for s in result.snapshots
        for e in s.events
        if e.kind == "HorizontalPodAutoscaler" and e.reason == "SuccessfulRescale"
    ]
    assert rescales, "no SuccessfulRescale event"
    assert all(e.message.startswith("New size: ") for e in rescales)
    assert rescales[0].message.endswith("above target")
    assert rescales[-1].message == "New size: 1; reason: All metrics below target"
    # Each event is reported once, by the first snapshot that sees it.
    seen = [
        (e.kind, e.name, e.reason, e.message, e.offset) for s in result.snapshots for e in s.events
    ]
    assert len(seen) == len(set(seen))


def test_same_seed_same_run(result: ScenarioResult) -> None:
    again = run_scenario(load_scenario(SCENARIO))
    assert again.replicas_of("php-apache") == result.replicas_of("php-apache")
    assert [s.workload("php-apache").utilization for s in again.snapshots] == [
        s.workload("php-apache").utilization for s in result.snapshots
    ]


def test_the_hpa_controller_metrics_are_served_on_metrics() -> None:
    """``/metrics`` of the plane's server renders the HPA controller's upstream metrics
    once it has reconciled (the scenario scales php-apache up and down)."""
    scenario = load_scenario(SCENARIO)
    clock = VirtualClock(DEFAULT_START)
    rendered: list[str] = []

    async def main() -> None:
        plane = plane_for(scenario, clock)
        task = asyncio.create_task(plane.run())
        await plane.wait_started()
        await play(ScenarioRun(plane, scenario), tick=timedelta(minutes=1))
        rendered.append(render_text(plane.api.state.metrics_registry))
        plane.stop()
        await task

    run_virtual(main(), start=DEFAULT_START)
    [text] = rendered
    assert "# TYPE horizontal_pod_autoscaler_controller_reconciliations_total counter" in text
    assert (
        'horizontal_pod_autoscaler_controller_reconciliations_total{action="scale_up",error="none"}'
        in text
    )
    assert 'action="scale_down",error="none"' in text
    assert "horizontal_pod_autoscaler_controller_metric_computation_duration_seconds_bucket" in text
