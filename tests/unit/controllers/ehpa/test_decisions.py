"""The EHPA's pure decisions: cron windows and the served cron value, the prediction
value, the generated HPA's metrics and conditions, validation and the refit schedule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest
import yaml

from podscale.controllers.ehpa import decisions, forecasting, metrics
from podscale.controllers.ehpa.types import Cron, EhpaSpec, Prediction, read_spec
from podscale.controllers.ehpa.validation import spec_errors
from podscale.forecast.types import Forecast
from podscale.history import MemoryHistory, Point, SeriesKey

UTC_ZONE = ZoneInfo("UTC")
MONDAY = datetime(2026, 3, 2, tzinfo=UTC)
CPU_UTIL = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
}
PODS_AVG = {
    "type": "Pods",
    "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}},
}


def spec(**fields: Any) -> EhpaSpec:
    body = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}
    body["maxReplicas"] = 10
    body.update(fields)
    return read_spec({"spec": body})


def cron(start: str, end: str, replicas: int, zone: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f"c{replicas}", "start": start, "end": end}
    out["targetReplicas"] = replicas
    if zone:
        out["timezone"] = zone
    return out


PREDICT = {"predictionWindowSeconds": 600, "predictionAlgorithm": {"algorithmType": "dsp"}}


@pytest.mark.parametrize(
    ("crons", "minute", "extra", "current", "hpa_metrics", "expected"),
    [
        ([cron("10 0 * * *", "20 0 * * *", 5)], 15, {}, 2, 1, 5),
        ([cron("10 0 * * *", "20 0 * * *", 5)], 5, {}, 2, 1, 2),
        ([cron("10 0 * * *", "20 0 * * *", 5)], 5, {}, 2, 2, 1),
        ([cron("10 0 * * *", "20 0 * * *", 5)], 5, {"prediction": PREDICT}, 2, 1, 1),
        ([cron("10 0 * * *", "20 0 * * *", 5)], 10, {}, 3, 1, 5),
        ([cron("10 0 * * *", "20 0 * * *", 5)], 20, {}, 3, 1, 3),
        ([cron("10 0 * * *", "20 0 * * *", 5)], 21, {}, 3, 1, 3),
        (
            [cron("0 0 * * *", "30 0 * * *", 4), cron("10 0 * * *", "20 0 * * *", 7)],
            15,
            {},
            1,
            1,
            7,
        ),
        ([cron("10 0 * * *", "20 0 * * *", 0)], 15, {}, 4, 1, 1),
        ([cron("10 0 * * *", "20 0 * * *", 6, "Asia/Shanghai")], 15, {}, 2, 1, 2),
        ([cron("10 8 * * *", "20 8 * * *", 6, "Asia/Shanghai")], 15, {}, 2, 1, 6),
        ([cron("0 9 * * *", "0 6 * * *", 8)], 7 * 60 + 30, {}, 2, 1, 2),
    ],
    ids=[
        "inside-window",
        "before-window-cron-alone-keeps-replicas",
        "before-window-with-other-metrics-is-1",
        "before-window-with-prediction-is-1",
        "start-instant-is-active",
        "end-instant-ends-the-window",
        "after-window",
        "largest-active-wins",
        "active-zero-target-is-at-least-1",
        "zone-shifts-the-window-out",
        "zone-shifts-the-window-in",
        "start-after-end-never-active-between",
    ],
)
def test_the_served_cron_value(
    crons: list[dict[str, Any]],
    minute: int,
    extra: dict[str, Any],
    current: int,
    hpa_metrics: int,
    expected: int,
) -> None:
    now = MONDAY + timedelta(minutes=minute)
    value = decisions.cron_value(
        spec(crons=crons, **extra), now, UTC_ZONE, current_replicas=current, hpa_metrics=hpa_metrics
    )
    assert value == expected


@pytest.mark.parametrize(
    ("crons", "minute", "expected"),
    [
        ([cron("10 0 * * *", "20 0 * * *", 5)], 0, 10),
        ([cron("10 0 * * *", "20 0 * * *", 5)], 10, 20),
        ([cron("10 0 * * *", "20 0 * * *", 5), cron("15 0 * * *", "40 0 * * *", 3)], 12, 15),
        ([], 0, None),
    ],
    ids=["next-start", "next-end", "earliest-of-all", "no-crons"],
)
def test_the_next_cron_change(
    crons: list[dict[str, Any]], minute: int, expected: int | None
) -> None:
    found = decisions.next_cron_change(
        spec(crons=crons), MONDAY + timedelta(minutes=minute), UTC_ZONE
    )
    assert found == (None if expected is None else MONDAY + timedelta(minutes=expected))


def forecast(values: list[float], start: datetime = MONDAY) -> Forecast:
    mean = np.array(values, dtype=float)
    return Forecast("t", start, timedelta(minutes=1), mean, np.zeros(len(values)))


@pytest.mark.parametrize(
    ("values", "offset", "window", "expected"),
    [
        ([1.0, 3.0, 2.0, 9.0], 0, 120, 3.0),
        ([1.0, 3.0, 2.0, 9.0], 0, 180, 9.0),
        ([5.0, 1.0, 1.0, 1.0], 1, 60, 1.0),
        ([0.0, 0.0, 0.0], 0, 120, None),
        ([1.0, 2.0], 5, 60, None),
        ([1.0, 2.0], -5, 60, None),
    ],
    ids=[
        "max-within-window",
        "window-end-step-counts",
        "past-steps-ignored",
        "all-zero-is-none",
        "after-forecast",
        "before-forecast",
    ],
)
def test_the_prediction_value_is_the_largest_in_the_window(
    values: list[float], offset: int, window: int, expected: float | None
) -> None:
    now = MONDAY + timedelta(minutes=offset)
    assert decisions.prediction_value(forecast(values), now, window) == expected


POD = {
    "spec": {
        "containers": [
            {"name": "app", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
            {"name": "side", "resources": {"requests": {"cpu": "50m"}}},
        ]
    }
}


@pytest.mark.parametrize(
    ("metric", "pods", "expected"),
    [
        (CPU_UTIL, [POD, POD], "150m"),
        (
            {
                "type": "ContainerResource",
                "containerResource": {
                    "name": "cpu",
                    "container": "app",
                    "target": {"type": "Utilization", "averageUtilization": 80},
                },
            },
            [POD],
            "200m",
        ),
        (CPU_UTIL, [], None),
        (PODS_AVG, [], "10"),
        (
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "AverageValue", "averageValue": "300m"},
                },
            },
            [],
            "300m",
        ),
    ],
    ids=[
        "utilization-of-requests",
        "container-only",
        "no-pods",
        "pods-average",
        "resource-average",
    ],
)
def test_the_prediction_metric_target(
    metric: dict[str, Any], pods: list[dict[str, Any]], expected: str | None
) -> None:
    assert metrics.prediction_target(metric, pods) == expected


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        (CPU_UTIL, "resource.cpu"),
        (PODS_AVG, "pods.qps"),
        ({"type": "External", "external": {"metric": {"name": "queue"}}}, "external.queue"),
        (
            {"type": "ContainerResource", "containerResource": {"name": "memory"}},
            "container-resource.memory",
        ),
        ({"type": "Object", "object": {"metric": {"name": "hits"}}}, None),
    ],
    ids=["resource", "pods", "external", "container-resource", "object"],
)
def test_prediction_identifiers_are_cranes(metric: dict[str, Any], expected: str | None) -> None:
    assert metrics.prediction_identifier(metric) == expected


@pytest.mark.parametrize(
    ("fields", "predicted", "names"),
    [
        ({"metrics": [CPU_UTIL]}, {}, ["Resource"]),
        ({"metrics": [CPU_UTIL], "prediction": PREDICT}, {}, ["Resource"]),
        (
            {"metrics": [CPU_UTIL], "prediction": PREDICT},
            {"resource.cpu": "50m"},
            ["Resource", "crane_autoscaling_prediction"],
        ),
        ({"metrics": [CPU_UTIL]}, {"resource.cpu": "50m"}, ["Resource"]),
        (
            {"metrics": [CPU_UTIL], "crons": [cron("0 1 * * *", "0 2 * * *", 3)]},
            {},
            ["Resource", "crane_autoscaling_cron"],
        ),
        (
            {
                "metrics": [CPU_UTIL],
                "prediction": PREDICT,
                "crons": [cron("0 1 * * *", "0 2 * * *", 3)],
            },
            {"resource.cpu": "50m"},
            ["Resource", "crane_autoscaling_prediction", "crane_autoscaling_cron"],
        ),
    ],
    ids=[
        "metrics-as-written",
        "no-forecast-yet",
        "with-forecast",
        "prediction-disabled",
        "with-cron",
        "all-three",
    ],
)
def test_the_generated_hpa_metrics(
    fields: dict[str, Any], predicted: dict[str, str], names: list[str]
) -> None:
    built = metrics.hpa_metrics(spec(**fields), "default", predicted)
    seen = [
        m["external"]["metric"]["name"] if m["type"] == "External" else m["type"] for m in built
    ]
    assert seen == names


def test_the_generated_hpa_targets_a_substitute_in_preview() -> None:
    obj = {"metadata": {"name": "web", "namespace": "ns", "uid": "u-1"}}
    auto = decisions.generated_hpa(obj, spec(), [])
    preview = decisions.generated_hpa(obj, spec(scaleStrategy="Preview"), [])
    assert auto["metadata"]["name"] == "ehpa-web"
    assert auto["metadata"]["labels"]["autoscaling.crane.io/effective-hpa-uid"] == "u-1"
    assert auto["spec"]["scaleTargetRef"]["kind"] == "Deployment"
    assert preview["spec"]["scaleTargetRef"]["kind"] == "Substitute"
    assert preview["spec"]["scaleTargetRef"]["name"] == "ehpa-web"


def test_a_condition_keeps_its_transition_time_while_its_status_holds() -> None:
    first = decisions.set_condition([], "Ready", "True", "A", "a", MONDAY)
    later = MONDAY + timedelta(minutes=5)
    same = decisions.set_condition(first, "Ready", "True", "B", "b", later)
    flipped = decisions.set_condition(same, "Ready", "False", "C", "c", later)
    assert same[0]["lastTransitionTime"] == "2026-03-02T00:00:00Z"
    assert same[0]["reason"] == "B"
    assert flipped[0]["lastTransitionTime"] == "2026-03-02T00:05:00Z"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"minReplicas": 5, "maxReplicas": 3}, "spec.maxReplicas"),
        ({"crons": [cron("nope", "0 1 * * *", 3)]}, "spec.crons[0].start"),
        ({"crons": [cron("0 1 * * *", "0 2 * * *", 3, "Mars/Base")]}, "spec.crons[0].timezone"),
        (
            {"crons": [cron("0 1 * * *", "0 2 * * *", 3), cron("0 3 * * *", "0 4 * * *", 3)]},
            "spec.crons[1].name",
        ),
        (
            {
                "prediction": {
                    "predictionWindowSeconds": 60,
                    "predictionAlgorithm": {"algorithmType": "arima"},
                }
            },
            "algorithmType",
        ),
    ],
    ids=["max-below-min", "bad-cron", "bad-zone", "duplicate-name", "unknown-algorithm"],
)
def test_what_validation_refuses(fields: dict[str, Any], problem: str) -> None:
    errors = spec_errors(spec(**fields))
    assert any(problem in e for e in errors), errors


def test_a_valid_spec_has_no_errors() -> None:
    good = spec(crons=[cron("0 1 * * *", "0 2 * * *", 3, "Local")], prediction=PREDICT)
    assert spec_errors(good) == []


def test_prediction_is_enabled_only_with_a_window_and_an_algorithm() -> None:
    assert spec(prediction=PREDICT).prediction_enabled
    assert not spec(prediction={"predictionWindowSeconds": 60}).prediction_enabled
    assert not spec().prediction_enabled


class Recorder:
    """A test forecaster remembering what it was fitted on."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int]] = []

    @property
    def name(self) -> str:
        return "recorder"

    def fit(self, history: Any, horizon: int) -> Forecast:
        self.seen.append((len(history), horizon))
        return forecast([1.0] * horizon, history.end)


def test_a_fit_reads_the_history_length_at_the_sample_interval() -> None:
    history = MemoryHistory()
    key = SeriesKey("default", "Deployment", "web", "cpu_usage")
    history.write(key, [Point(MONDAY - timedelta(minutes=m), 0.5) for m in range(1, 300)])
    prediction = Prediction(600, "dsp", {"sampleInterval": "60s", "historyLength": "2h"})
    model = Recorder()
    fit = forecasting.fit(history, key, prediction, MONDAY, lambda _a, _p: model)
    assert fit.forecast is not None
    assert model.seen == [(120, 21)]  # 2 h of minutes; twice the window ahead, plus one
    empty = forecasting.fit(MemoryHistory(), key, prediction, MONDAY, lambda _a, _p: model)
    assert empty.forecast is None
    assert "no history" in empty.reason


@pytest.mark.parametrize(
    ("elapsed", "params", "expected"),
    [
        (timedelta(minutes=5), {}, False),
        (timedelta(minutes=9, seconds=59), {}, False),
        (timedelta(minutes=10), {}, True),
        (timedelta(0), {"historyLength": "1d"}, True),
    ],
    ids=["half-window", "within-the-window", "a-window-passed", "parameters-changed"],
)
def test_the_refit_schedule(elapsed: timedelta, params: dict[str, str], expected: bool) -> None:
    before = Prediction(600, "dsp")
    fit = forecasting.Fit(None, MONDAY, forecasting._signature(before))
    assert forecasting.due(fit, Prediction(600, "dsp", params), MONDAY + elapsed) is expected


def test_cron_dataclass_reads_cranes_fields() -> None:
    read = spec(crons=[{**cron("0 1 * * *", "0 2 * * *", 3, "UTC"), "description": "d"}])
    assert read.crons == (Cron("c3", "0 1 * * *", "0 2 * * *", 3, "UTC", "d"),)


@pytest.mark.parametrize("name", ["ehpa.yaml", "preview.yaml"])
def test_the_examples_are_valid(name: str) -> None:
    path = Path(__file__).parents[4] / "examples" / "ehpa" / name
    obj = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert spec_errors(read_spec(obj)) == []


@pytest.mark.parametrize(
    ("existing", "wanted", "expected"),
    [
        ({"a": 1, "b": {"c": 2, "d": 3}}, {"a": 1, "b": {"c": 2}}, True),
        ({"a": 1}, {"a": 2}, False),
        ({"l": [{"x": 1, "y": 2}]}, {"l": [{"x": 1}]}, True),
        ({"l": [{"x": 1}, {"x": 2}]}, {"l": [{"x": 1}]}, False),
        ({"a": 1}, {"a": 1, "b": 2}, False),
    ],
    ids=["server-defaults-ignored", "changed-value", "list-items", "list-length", "missing-key"],
)
def test_covers_ignores_only_what_the_server_added(
    existing: dict[str, Any], wanted: dict[str, Any], expected: bool
) -> None:
    assert decisions.covers(existing, wanted) is expected
