"""The Predictive portrait's pure parts: podscale's config knobs, the per-pod target the
HPA formula divides by, forecast -> TimeSeries points, and Kapacity's TimeSeries rule
(the latest point not after now, expiring at the next one)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.kapacity.portraits import PortraitValue
from podscale.controllers.kapacity.predictive import (
    PredictiveConfig,
    PredictiveError,
    TimePoint,
    TimeSeriesPortrait,
    per_pod_target,
    read_config,
    time_series,
    value_now,
)
from podscale.controllers.kapacity.reading import KapacityError
from podscale.forecast.types import Forecast

T0 = dt.datetime(2026, 5, 4, 12, tzinfo=dt.UTC)
MIN = dt.timedelta(minutes=1)
ID = "Dynamic-Predictive"


def pod(name: str, cpu: str | None) -> dict[str, Any]:
    resources = {} if cpu is None else {"requests": {"cpu": cpu}}
    return {
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "resources": resources}]},
    }


def resource(name: str, target: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": name, "target": target}}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (None, PredictiveConfig()),
        (
            {"model": "seasonalNaive", "sampleInterval": "5m", "predictionLength": "2h"},
            PredictiveConfig(model="seasonalNaive", step=5 * MIN, horizon=dt.timedelta(hours=2)),
        ),
        (
            {"historyLength": "48h", "refreshInterval": "30m", "leadTime": "0s"},
            PredictiveConfig(history=dt.timedelta(days=2), refresh=30 * MIN),
        ),
        ({"quantile": "0.9", "other": "kept by Kapacity's job"}, PredictiveConfig(quantile=0.9)),
    ],
    ids=["defaults", "model-step-horizon", "history-refresh-zero-lead", "quantile-unknown-key"],
)
def test_read_config(config: dict[str, str] | None, expected: PredictiveConfig) -> None:
    assert read_config(config, "c") == expected


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"sampleInterval": "ten"}, 'c.sampleInterval: time: invalid duration "ten"'),
        ({"sampleInterval": "0s"}, "c.sampleInterval: must be positive"),
        ({"leadTime": "-1m"}, "c.leadTime: must be positive"),
        ({"quantile": "1"}, "c.quantile: must be a number in (0, 1)"),
        ({"quantile": "high"}, "c.quantile: must be a number in (0, 1)"),
    ],
    ids=["bad-duration", "zero-step", "negative-lead", "quantile-one", "quantile-text"],
)
def test_read_config_refuses(config: dict[str, str], message: str) -> None:
    with pytest.raises(KapacityError) as caught:
        read_config(config, "c")
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("metric", "pods", "expected"),
    [
        (
            resource("cpu", {"type": "Utilization", "averageUtilization": 50}),
            [pod("a", "500m"), pod("b", "1")],
            ("cpu_usage", 0.375),
        ),
        (
            resource("cpu", {"type": "AverageValue", "averageValue": "250m"}),
            [],
            ("cpu_usage", 0.25),
        ),
        (
            resource("memory", {"type": "AverageValue", "averageValue": "1Gi"}),
            [],
            ("memory_usage", 2.0**30),
        ),
    ],
    ids=["utilization-of-mean-request", "cpu-average-value", "memory-average-value"],
)
def test_per_pod_target(
    metric: dict[str, Any], pods: list[dict[str, Any]], expected: tuple[str, float]
) -> None:
    assert per_pod_target(metric, pods) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("metric", "pods", "message"),
    [
        (
            {"type": "External", "external": {}},
            [],
            "the Predictive portrait forecasts Resource cpu or memory metrics only",
        ),
        (
            resource("cpu", {"type": "Utilization", "averageUtilization": 50}),
            [pod("a", None)],
            "missing request for cpu in container app of Pod a",
        ),
        (
            resource("cpu", {"type": "Utilization", "averageUtilization": 50}),
            [],
            "no pods to read the requests of",
        ),
        (resource("cpu", {"type": "Value", "value": "1"}), [], "unsupported target"),
        (
            resource("cpu", {"type": "AverageValue", "averageValue": "lots"}),
            [],
            "invalid averageValue",
        ),
        (
            resource("cpu", {"type": "AverageValue", "averageValue": "0"}),
            [],
            "the per-pod target of cpu is not positive",
        ),
    ],
    ids=["external", "no-request", "no-pods", "value-target", "bad-quantity", "zero-target"],
)
def test_per_pod_target_refuses(
    metric: dict[str, Any], pods: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(PredictiveError) as caught:
        per_pod_target(metric, pods)
    assert str(caught.value).startswith(message)


def forecast(values: list[float], step: dt.timedelta = MIN) -> Forecast:
    mean = np.array(values, dtype=np.float64)
    return Forecast("test", T0, step, mean, np.zeros_like(mean))


@pytest.mark.parametrize(
    ("values", "config", "expected"),
    [
        (
            [1.0, 2.0, 2.1, 0.0],
            PredictiveConfig(step=MIN, horizon=4 * MIN),
            [(0, 2), (1, 4), (2, 5), (3, 1)],
        ),
        (
            [1.0, 1.0, 3.0, 1.0, 1.0, 1.0],
            PredictiveConfig(step=2 * MIN, horizon=6 * MIN),
            [(0, 2), (2, 6), (4, 2)],
        ),
        (
            [1.0, 1.0, 3.0, 1.0],
            PredictiveConfig(step=MIN, horizon=4 * MIN, lead=2 * MIN),
            [(0, 6), (1, 6), (2, 6), (3, 2)],
        ),
        ([1.0, 1.0], PredictiveConfig(step=MIN, horizon=4 * MIN), [(0, 2), (1, 2)]),
    ],
    ids=[
        "ceil-of-total-over-per-pod-at-least-one",
        "step-takes-its-highest-minute",
        "lead-raises-points-ahead-of-a-peak",
        "points-stop-where-the-forecast-does",
    ],
)
def test_time_series(
    values: list[float], config: PredictiveConfig, expected: list[tuple[int, int]]
) -> None:
    made = time_series(forecast(values), 0.5, T0, config)
    assert [((p.timestamp - T0) // MIN, p.replicas) for p in made.points] == expected
    assert made.expire_time == made.points[-1].timestamp + config.step


def at(minutes: int) -> dt.datetime:
    return T0 + minutes * MIN


SERIES = TimeSeriesPortrait(
    (TimePoint(at(0), 2), TimePoint(at(10), 5), TimePoint(at(20), 3)), at(30)
)


@pytest.mark.parametrize(
    ("portrait", "now", "value", "changes"),
    [
        (SERIES, at(-5), None, at(0)),
        (SERIES, at(0), PortraitValue(ID, 2, at(10)), at(10)),
        (SERIES, at(15), PortraitValue(ID, 5, at(20)), at(20)),
        (SERIES, at(25), PortraitValue(ID, 3, at(30)), at(30)),
        (SERIES, at(30), None, None),
        (
            TimeSeriesPortrait((TimePoint(at(0), 2), TimePoint(at(10), 5))),
            at(12),
            PortraitValue(ID, 5, None),
            None,
        ),
        (TimeSeriesPortrait(()), at(0), None, None),
    ],
    ids=[
        "before-the-first-point-nothing-until-it",
        "a-point-in-force-from-its-timestamp",
        "the-latest-point-not-after-now-expires-at-the-next",
        "the-last-point-expires-with-the-data",
        "expired-data-offers-nothing",
        "no-data-expiry-last-point-never-expires",
        "empty-series",
    ],
)
def test_value_now(
    portrait: TimeSeriesPortrait,
    now: dt.datetime,
    value: PortraitValue | None,
    changes: dt.datetime | None,
) -> None:
    assert value_now(portrait, ID, now) == (value, changes)


@given(
    values=st.lists(st.floats(0, 100, allow_nan=False), min_size=1, max_size=30),
    share=st.floats(0.1, 10),
    step=st.integers(1, 5),
)
def test_points_cover_demand(values: list[float], share: float, step: int) -> None:
    """Every point carries its steps' forecast at the per-pod target, with at least 1 pod,
    and the points are in time order one step apart."""
    config = PredictiveConfig(step=step * MIN, horizon=len(values) * MIN)
    made = time_series(forecast(values), share, T0, config)
    for index, point in enumerate(made.points):
        assert point.timestamp == T0 + index * config.step
        covered = values[index * step : (index + 1) * step]
        assert point.replicas >= 1
        assert point.replicas * share >= max(covered) - 1e-6
        assert (point.replicas - 1) * share < max(max(covered), share)
