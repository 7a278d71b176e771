"""The PHPA's pure decisions: forecastable metrics and their per-pod targets, demand to
replicas, the scale-down limit, the measured lead time, status and condition (the active
window is ``schedules.active_bounds``: test_schedules)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.phpa.decisions import (
    DEFAULT_STARTUP,
    ForecastMetric,
    forecast_metrics,
    lead_time,
    limit_scale_down,
    prediction_condition,
    prediction_status,
    proactive_replicas,
    startup_durations,
)
from podscale.controllers.phpa.types import parse_phpa
from podscale.hpa.conditions import format_time
from podscale.testing import make_pod

NOW = datetime(2026, 3, 2, 9, 30, 10, tzinfo=UTC)  # a Monday
SYNC = timedelta(seconds=15)
RESOLUTION = timedelta(seconds=60)


def resource(name: str, target: dict[str, Any], kind: str = "Resource") -> dict[str, Any]:
    key = "resource" if kind == "Resource" else "containerResource"
    body: dict[str, Any] = {"name": name, "target": target}
    if kind == "ContainerResource":
        body["container"] = "app"
    return {"type": kind, key: body}


def named(kind: str, name: str, target: dict[str, Any]) -> dict[str, Any]:
    key = kind[:1].lower() + kind[1:]
    return {"type": kind, key: {"metric": {"name": name}, "target": target}}


PODS = [make_pod("web-0", now=NOW, requests={"cpu": "500m", "memory": "1Gi"})]
UTIL = {"type": "Utilization", "averageUtilization": 60}


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        (resource("cpu", UTIL), ForecastMetric(0, "cpu", "cpu_usage", 0.3)),
        (
            resource("memory", {"type": "AverageValue", "averageValue": "512Mi"}),
            ForecastMetric(0, "memory", "memory_usage", 512 * 2**20),
        ),
        (resource("cpu", UTIL, "ContainerResource"), ForecastMetric(0, "cpu", "cpu_usage", 0.3)),
        (
            named("Pods", "rps", {"type": "AverageValue", "averageValue": "10"}),
            ForecastMetric(0, "rps", "metric_total/0/rps", 10.0),
        ),
        (
            named("External", "queue", {"type": "AverageValue", "averageValue": "2500m"}),
            ForecastMetric(0, "queue", "metric_total/0/queue", 2.5),
        ),
        (
            named("Object", "hits", {"type": "AverageValue", "averageValue": "4"}),
            ForecastMetric(0, "hits", "metric_total/0/hits", 4.0),
        ),
        (named("Object", "hits", {"type": "Value", "value": "10"}), None),
        (named("External", "queue", {"type": "Value", "value": "10"}), None),
        (resource("ephemeral-storage", UTIL), None),
    ],
    ids=[
        "cpu-utilization",
        "memory-average-value",
        "container-cpu-utilization",
        "pods-average-value",
        "external-average-value",
        "object-average-value",
        "object-value-is-not-per-pod",
        "external-value-is-not-per-pod",
        "no-series-for-storage",
    ],
)
def test_forecastable_metrics_and_their_per_pod_targets(
    metric: dict[str, Any], expected: ForecastMetric | None
) -> None:
    found = forecast_metrics([metric], (), PODS)
    assert found == (() if expected is None else (expected,))


def test_the_default_metric_and_a_named_selection() -> None:
    ref = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    bare = parse_phpa({"spec": {"scaleTargetRef": ref, "maxReplicas": 5, "prediction": {}}})
    # The HPA's default metric (CPU at 80%), as parse_phpa defaults it.
    assert forecast_metrics(bare.metrics, (), PODS) == (ForecastMetric(0, "cpu", "cpu_usage", 0.4),)
    metrics = [
        resource("cpu", UTIL),
        named("Pods", "rps", {"type": "AverageValue", "averageValue": "5"}),
    ]
    assert [m.name for m in forecast_metrics(metrics, ("rps",), PODS)] == ["rps"]
    assert forecast_metrics([resource("cpu", UTIL)], (), []) == ()  # no request known


@pytest.mark.parametrize(
    ("demand", "target", "replicas"),
    [(0.0, 0.3, 0), (0.9, 0.3, 3), (0.91, 0.3, 4), (2.35, 0.4, 6)],
    ids=["nothing", "exact-despite-float-error", "a-hair-over", "fraction"],
)
def test_demand_to_replicas(demand: float, target: float, replicas: int) -> None:
    assert proactive_replicas(demand, target) == replicas


@given(st.floats(0, 1e4), st.floats(0.01, 100))
def test_replicas_carry_the_demand(demand: float, target: float) -> None:
    replicas = proactive_replicas(demand, target)
    assert replicas * target >= demand - 1e-9 * target  # the allowance for float error
    assert replicas == 0 or (replicas - 1) * target < demand


@pytest.mark.parametrize(
    ("proactive", "current", "percent", "limited"),
    [(2, 10, 100, 2), (2, 10, 50, 5), (2, 10, 0, 10), (12, 10, 0, 12), (4, 3, 10, 4)],
    ids=["unlimited", "half", "not-at-all", "up-is-free", "rounded-up-floor"],
)
def test_scale_down_limit(proactive: int, current: int, percent: int, limited: int) -> None:
    assert limit_scale_down(proactive, current, percent) == limited


def pod_started(name: str, created_ago: int, ready_after: int) -> dict[str, Any]:
    pod = make_pod(
        name,
        now=NOW,
        started_ago=timedelta(seconds=created_ago),
        ready_since_ago=timedelta(seconds=created_ago - ready_after),
    )
    pod["metadata"]["creationTimestamp"] = format_time(NOW - timedelta(seconds=created_ago))
    return pod


def test_lead_time_from_measured_starts() -> None:
    pods = [pod_started(f"web-{i}", 1000 + i, 40 + i) for i in range(10)]
    unready = pod_started("late", 10, 0)
    unready["status"]["conditions"][0]["status"] = "False"
    startups = startup_durations([*pods, unready, make_pod("no-creation-time", now=NOW)])
    assert len(startups) == 10
    # The 90th percentile of 40..49 s by nearest rank is 48 s.
    assert lead_time(startups, SYNC, RESOLUTION) == timedelta(seconds=48 + 15 + 60)
    assert lead_time([], SYNC, RESOLUTION) == DEFAULT_STARTUP + SYNC + RESOLUTION


def test_lead_time_uses_the_recent_pods_only() -> None:
    old = [pod_started(f"old-{i}", 5000 + i, 300) for i in range(20)]
    new = [pod_started(f"new-{i}", 100 + i, 30) for i in range(20)]
    assert lead_time(startup_durations(old + new), SYNC, RESOLUTION) == timedelta(seconds=105)


def test_prediction_status_block() -> None:
    block = prediction_status(
        model="holtWinters",
        backtest_error=0.1234,
        fitted_at=NOW,
        lead=timedelta(seconds=165),
        forecast=2.35,
        proactive=6,
        passive=4,
        window="business-hours",
        bounds=(5, 30),
        final=6,
        decided_by="proactive",
    )
    assert block == {
        "model": "holtWinters",
        "backtestError": "0.123",
        "fittedAt": format_time(NOW),
        "leadTimeSeconds": 165,
        "forecast": "2350m",
        "proactiveReplicas": 6,
        "passiveReplicas": 4,
        "schedule": "business-hours",
        "boundMinReplicas": 5,
        "boundMaxReplicas": 30,
        "finalReplicas": 6,
        "decidedBy": "proactive",
    }
    bare = prediction_status(
        model=None,
        backtest_error=None,
        fitted_at=None,
        lead=timedelta(seconds=90),
        forecast=None,
        proactive=None,
        passive=None,
        window=None,
        bounds=(1, 10),
        final=3,
        decided_by="passive",
    )
    assert set(bare) == {
        "leadTimeSeconds",
        "boundMinReplicas",
        "boundMaxReplicas",
        "finalReplicas",
        "decidedBy",
    }


def test_prediction_condition_moves_its_time_only_on_a_flip() -> None:
    first = prediction_condition("HistoryTooShort", "1 h of 25 h", None, NOW)
    assert (first["status"], first["reason"]) == ("False", "HistoryTooShort")
    later = NOW + timedelta(hours=1)
    same = prediction_condition("NoModelBeatsNaive", "naive wins", first, later)
    assert same["lastTransitionTime"] == format_time(NOW)
    flipped = prediction_condition("ForecastAvailable", "holtWinters", same, later)
    assert (flipped["status"], flipped["lastTransitionTime"]) == ("True", format_time(later))
