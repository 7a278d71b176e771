"""Reading a PredictiveHorizontalPodAutoscaler into plain values: defaults, durations, the
metric names ``prediction.metrics`` uses, and the autoscaling/v2 HPA view the engine decides on."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.durations import DurationError
from podscale.controllers.phpa.types import (
    PhpaSpecError,
    PredictionSpec,
    Schedule,
    TargetRef,
    forecastable,
    hpa_view,
    metric_name,
    parse_percent,
    parse_phpa,
    parse_quantile,
    parse_span,
)

JSON = dict[str, Any]
REF = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
CPU_80 = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
}


def phpa(**spec: Any) -> JSON:
    return {
        "apiVersion": "autoscaling.podscale.dev/v1alpha1",
        "kind": "PredictiveHorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default", "uid": "u1"},
        "spec": {"scaleTargetRef": REF, "maxReplicas": 10, **spec},
    }


def test_an_empty_prediction_reads_with_every_default() -> None:
    spec = parse_phpa(phpa(prediction={}))
    assert spec.target == TargetRef("apps/v1", "Deployment", "web")
    assert (spec.min_replicas, spec.max_replicas) == (1, 10)
    assert spec.metrics == (CPU_80,)  # the HPA's default metric
    assert spec.mode == "Auto"
    assert not spec.preview
    assert spec.prediction == PredictionSpec(
        metrics=(),
        history=timedelta(days=7),
        algorithm="auto",
        quantile=0.95,
        lead_time="auto",
        refresh_interval=timedelta(hours=1),
        scale_down_limit=100,
    )
    assert spec.schedules == ()


def test_without_prediction_the_object_forecasts_nothing() -> None:
    assert parse_phpa(phpa()).prediction is None


def test_every_field_is_read() -> None:
    obj = phpa(
        minReplicas=2,
        mode="Preview",
        behavior={"scaleDown": {"stabilizationWindowSeconds": 60}},
        prediction={
            "metrics": ["cpu"],
            "history": "14d",
            "algorithm": "mstl",
            "quantile": "0.95",
            "leadTime": "3m",
            "refreshInterval": "30m",
            "scaleDownLimit": "20%",
        },
        schedules=[
            {
                "name": "day",
                "cron": "* 8-19 * * 1-5",
                "timeZone": "Asia/Shanghai",
                "minReplicas": 5,
                "maxReplicas": 30,
            },
            {"name": "night", "cron": "0 * 0-5 * * *"},
        ],
    )
    spec = parse_phpa(obj)
    assert spec.preview
    assert spec.min_replicas == 2
    assert spec.prediction == PredictionSpec(
        metrics=("cpu",),
        history=timedelta(days=14),
        algorithm="mstl",
        quantile=0.95,
        lead_time=timedelta(minutes=3),
        refresh_interval=timedelta(minutes=30),
        scale_down_limit=20,
    )
    assert spec.schedules == (
        Schedule("day", "* 8-19 * * 1-5", "Asia/Shanghai", 5, 30),
        Schedule("night", "0 * 0-5 * * *", "UTC", None, None),
    )
    # behavior is defaulted as the API server defaults an HPA's.
    assert spec.behavior is not None
    assert spec.behavior["scaleDown"]["stabilizationWindowSeconds"] == 60
    assert spec.behavior["scaleUp"]["selectPolicy"] == "Max"


@pytest.mark.parametrize(
    "prediction",
    [{"history": "7 days"}, {"quantile": "high"}, {"scaleDownLimit": "half"}, {"algorithm": "x"}],
    ids=["history", "quantile", "scale-down-limit", "algorithm"],
)
def test_an_unreadable_value_is_a_spec_error(prediction: JSON) -> None:
    with pytest.raises(PhpaSpecError):
        parse_phpa(phpa(prediction=prediction))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7d", timedelta(days=7)),
        ("1d12h", timedelta(days=1, hours=12)),
        ("1.5d", timedelta(hours=36)),
        ("90s", timedelta(seconds=90)),
        ("1h30m", timedelta(minutes=90)),
        ("0", timedelta(0)),
        ("-2d", timedelta(days=-2)),
    ],
    ids=["days", "days-and-hours", "fractional-days", "seconds", "go", "zero", "negative"],
)
def test_durations_are_go_durations_with_days(text: str, expected: timedelta) -> None:
    assert parse_span(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("7", 'time: missing unit in duration "7"'),
        ("7x", 'time: unknown unit "x" in duration "7x"'),
        ("1d5x", 'time: unknown unit "x" in duration "1d5x"'),
        ("d", 'time: invalid duration "d"'),
        ("", 'time: invalid duration ""'),
    ],
    ids=["no-unit", "unknown-unit", "days-then-unknown", "unit-alone", "empty"],
)
def test_a_bad_duration_keeps_gos_message_on_the_text_as_written(text: str, message: str) -> None:
    with pytest.raises(DurationError) as caught:
        parse_span(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("value", "expected"),
    [("0.9", 0.9), ("1", 1.0), (0.5, 0.5), (".25", 0.25)],
    ids=["string", "integer-string", "number", "leading-point"],
)
def test_quantiles_are_decimals(value: Any, expected: float) -> None:
    assert parse_quantile(value) == expected


@pytest.mark.parametrize("value", ["x", "NaN", "inf", True, None], ids=str)
def test_a_quantile_that_is_not_a_finite_decimal_is_refused(value: Any) -> None:
    with pytest.raises(ValueError, match="not a decimal"):
        parse_quantile(value)


@pytest.mark.parametrize(
    ("value", "expected"), [("100%", 100), ("0%", 0), (25, 25)], ids=["full", "none", "integer"]
)
def test_scale_down_limits_are_percentages(value: Any, expected: int) -> None:
    assert parse_percent(value) == expected


def test_the_hpa_view_is_an_autoscaling_v2_hpa_without_the_predictive_fields() -> None:
    obj = phpa(
        mode="Preview",
        prediction={},
        schedules=[{"name": "a", "cron": "* * * * *"}],
        behavior={},
    )
    obj["status"] = {"currentReplicas": 2, "desiredReplicas": 3, "prediction": {"model": "mstl"}}
    view = hpa_view(obj)
    assert (view["apiVersion"], view["kind"]) == ("autoscaling/v2", "HorizontalPodAutoscaler")
    assert view["metadata"] == obj["metadata"]
    assert set(view["spec"]) == {
        "scaleTargetRef",
        "minReplicas",
        "maxReplicas",
        "metrics",
        "behavior",
    }
    assert view["spec"]["metrics"] == [CPU_80]
    assert view["status"] == {"currentReplicas": 2, "desiredReplicas": 3}
    # A deep copy: the engine may change it freely.
    view["metadata"]["name"] = "other"
    view["spec"]["scaleTargetRef"]["name"] = "other"
    assert obj["metadata"]["name"] == "web"
    assert obj["spec"]["scaleTargetRef"]["name"] == "web"
    assert "prediction" in obj["status"]


def test_an_hpa_view_without_status_has_none() -> None:
    assert "status" not in hpa_view(phpa())


def _metric(kind: str, target: str, name: str = "requests") -> JSON:
    key = kind[:1].lower() + kind[1:]
    target_json: JSON = {"type": target}
    if kind in ("Resource", "ContainerResource"):
        return {"type": kind, key: {"name": name, "container": "app", "target": target_json}}
    source: JSON = {"metric": {"name": name}, "target": target_json}
    if kind == "Object":
        source["describedObject"] = {"apiVersion": "v1", "kind": "Service", "name": "web"}
    return {"type": kind, key: source}


@pytest.mark.parametrize(
    ("metric", "name", "can"),
    [
        (_metric("Resource", "Utilization", "cpu"), "cpu", True),
        (_metric("Resource", "AverageValue", "memory"), "memory", True),
        (_metric("ContainerResource", "Utilization", "cpu"), "cpu", True),
        (_metric("Pods", "AverageValue"), "requests", True),
        (_metric("Object", "AverageValue"), "requests", True),
        (_metric("Object", "Value"), "requests", False),
        (_metric("External", "AverageValue", "queue"), "queue", True),
        (_metric("External", "Value", "queue"), "queue", False),
        ({"type": "Unknown"}, "", False),
    ],
    ids=[
        "resource-utilization",
        "resource-average-value",
        "container-resource",
        "pods",
        "object-average",
        "object-value",
        "external-average",
        "external-value",
        "unknown-type",
    ],
)
def test_metric_names_and_which_metrics_can_be_forecast(metric: JSON, name: str, can: bool) -> None:
    assert metric_name(metric) == name
    assert forecastable(metric) is can


@given(
    days=st.integers(min_value=0, max_value=400),
    hours=st.integers(min_value=0, max_value=48),
    minutes=st.integers(min_value=0, max_value=120),
)
def test_a_day_is_24_hours_in_any_composition(days: int, hours: int, minutes: int) -> None:
    expected = timedelta(days=days, hours=hours, minutes=minutes)
    assert parse_span(f"{days}d{hours}h{minutes}m") == expected
    assert parse_span(f"{days * 24 + hours}h{minutes}m") == expected
