"""examples/external-metric through the whole stack: the scenario's ``externalMetrics`` are
published through the push provider at their offsets, the HPA reads them from
external.metrics.k8s.io and scales as the example's README says (1, then 3, 6 and 10,
then back to 1 after the 5 minute window), a held value never expires mid-run, and
``podscale describe hpa`` explains the last decision from the trace the controller stored."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.cli.describe_hpa import describe_hpa
from podscale.controllers.hpa import HISTORY_STATE, LAST_DECISION_STATE
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.scenario.loader import load_scenario
from podscale.scenario.play import ScenarioResult, play, run_scenario
from podscale.scenario.run import ScenarioRun, plane_for
from podscale.scenario.snapshot import SeenEvent

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "external-metric"
WORKER = "queue-worker"
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
JSON = dict[str, Any]


def minutes(value: float) -> timedelta:
    return timedelta(minutes=value)


@pytest.fixture(scope="module")
def result() -> ScenarioResult:
    return run_scenario(load_scenario(EXAMPLE / "scenario.yaml"), tick=timedelta(seconds=15))


def changes(result: ScenarioResult) -> list[tuple[timedelta, int]]:
    """(offset, replicas) at each snapshot where the worker's spec.replicas changed."""
    seen: list[tuple[timedelta, int]] = []
    for snapshot in result.snapshots:
        replicas = snapshot.workload(WORKER).replicas
        if not seen or seen[-1][1] != replicas:
            seen.append((snapshot.offset, replicas))
    return seen


def hpa_events(result: ScenarioResult, reason: str) -> list[SeenEvent]:
    return [
        e
        for s in result.snapshots
        for e in s.events
        if e.kind == "HorizontalPodAutoscaler" and e.reason == reason
    ]


def test_replicas_follow_the_declared_backlog(result: ScenarioResult) -> None:
    steps = changes(result)
    assert [replicas for _, replicas in steps] == [1, 3, 6, 10, 1]
    (_, _), (to_3, _), (to_6, _), (to_10, _), (to_1, _) = steps
    # Each within a sync or two of its cause: 90 ready at 2m, 600 at 6m, 0 at 10m (and
    # then the 5 minute stabilization window).
    assert minutes(2) < to_3 <= minutes(2.5)
    assert minutes(6) < to_6 < to_10 <= minutes(7)
    assert minutes(15) < to_1 <= minutes(15.5)
    assert result.snapshots[-1].workload(WORKER).replicas == 1


def test_only_the_orders_series_counts(result: ScenarioResult) -> None:
    # The audit queue's 4000 messages would ask for maxReplicas at once.
    at_5m = next(s for s in result.snapshots if s.offset == minutes(5))
    assert at_5m.workload(WORKER).replicas == 3
    rescales = [e.message for e in hpa_events(result, "SuccessfulRescale")]
    assert rescales[0].startswith("New size: 3; reason: external metric queue_messages_ready")
    assert "above target" in rescales[0]


def test_the_metric_is_missing_until_published_then_never_expires(
    result: ScenarioResult,
) -> None:
    failures = hpa_events(result, "FailedGetExternalMetric")
    assert failures, "before 2m nothing is published: the HPA cannot read the metric"
    assert all(e.offset <= minutes(2) for e in failures)
    assert all(s.workload(WORKER).replicas == 1 for s in result.snapshots if s.offset < minutes(2))


def test_describe_explains_the_last_decision_from_the_stored_trace() -> None:
    scn = load_scenario(EXAMPLE / "scenario.yaml")
    clock = VirtualClock(START)

    async def main() -> tuple[JSON, JSON]:
        plane = plane_for(scn, clock)
        task = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            await play(ScenarioRun(plane, scn), tick=timedelta(minutes=1))
            hpa = await plane.api.get(HPA, "default", WORKER)
            # What the API server's history path serves podscale describe.
            uid = hpa["metadata"]["uid"]
            names = (HISTORY_STATE, LAST_DECISION_STATE)
            return hpa, {name: plane.history.get_state(uid, name) for name in names}
        finally:
            plane.stop()
            await task

    found = run_virtual(main(), start=START, until=timedelta(hours=1))
    assert found is not None
    hpa, documents = found
    text = describe_hpa(hpa, [], clock.now(), documents)
    section = text.split("\nLast decision:\n", 1)[1]
    # Stored when the outcome last changed: the first sync at 1 replica after the
    # scale-down (later identical decisions do not rewrite it).
    assert section.startswith("  HPA default/queue-worker at 2026-03-01T09:15:")
    assert section.splitlines()[0].endswith(": keep 1")
    assert "    metric[0] External external metric queue_messages_ready(" in section
    assert "    current 0 vs target 30000 (AverageValue)" in section
    assert "  desired replicas: 1\n" in section
