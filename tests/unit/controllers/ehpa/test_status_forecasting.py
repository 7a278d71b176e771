"""The EHPA's status building (Crane's PredictionReady reasons, the HPA's status copied)
and the forecast parameters (a week of history by default, the percentile histogram read
as Crane reads it, exponential buckets for bytes)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from podscale.controllers.ehpa import forecasting, status
from podscale.controllers.ehpa.types import Prediction
from podscale.forecast.percentile import ExponentialBuckets, LinearBuckets, PercentileForecaster
from podscale.forecast.types import Forecast, ForecastError, Series
from podscale.history import MemoryHistory, Point, SeriesKey

NOW = datetime(2026, 3, 2, tzinfo=UTC)
GIB = 2.0**30


@pytest.mark.parametrize(
    ("predicted", "reasons", "expected"),
    [
        ({"resource.cpu": "80m"}, [], ("True", "PredictSucceed", "")),
        (
            {"resource.cpu": "80m"},
            ["resource.memory: no history"],
            ("False", "PredictPartial", "not all metric predicted: resource.memory: no history"),
        ),
        (
            {},
            ["resource.cpu: outdated", "resource.memory: short"],
            (
                "False",
                "PredictPartial",
                "not all metric predicted: resource.cpu: outdated; resource.memory: short",
            ),
        ),
        ({}, [], ("False", "PredictPartial", "no predict data")),
    ],
    ids=["all-predicted", "partial", "none-predicted", "nothing-forecastable"],
)
def test_prediction_ready_follows_cranes_reasons(
    predicted: dict[str, str], reasons: list[str], expected: tuple[str, str, str]
) -> None:
    (condition,) = status.prediction_ready([], predicted, reasons, NOW)
    assert condition["type"] == "PredictionReady"
    assert (condition["status"], condition["reason"], condition["message"]) == expected


def test_prediction_ready_keeps_its_transition_time_while_the_status_holds() -> None:
    first = status.prediction_ready([], {}, ["x"], NOW)
    later = status.prediction_ready(first, {}, ["y"], NOW + timedelta(minutes=5))
    assert later[0]["lastTransitionTime"] == first[0]["lastTransitionTime"]
    assert later[0]["message"] == "not all metric predicted: y"


@pytest.mark.parametrize(
    ("before", "hpa_last", "expected"),
    [
        (None, "2026-03-02T00:05:00Z", "2026-03-02T00:05:00Z"),
        ("2026-03-02T00:01:00Z", "2026-03-02T00:05:00Z", "2026-03-02T00:05:00Z"),
        ("2026-03-02T00:09:00Z", "2026-03-02T00:05:00Z", "2026-03-02T00:09:00Z"),
        ("2026-03-02T00:09:00Z", None, "2026-03-02T00:09:00Z"),
    ],
    ids=["first-scale", "later-scale", "never-moved-back", "hpa-never-scaled"],
)
def test_from_hpa_copies_replicas_and_the_latest_scale(
    before: str | None, hpa_last: str | None, expected: str
) -> None:
    hpa: dict[str, Any] = {
        "status": {
            "desiredReplicas": 4,
            "currentReplicas": 3,
            "conditions": [{"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale"}],
        }
    }
    if hpa_last is not None:
        hpa["status"]["lastScaleTime"] = hpa_last
    old = {} if before is None else {"lastScaleTime": before}
    out, conditions = status.from_hpa(old, [], hpa, NOW)
    assert (out["expectReplicas"], out["currentReplicas"]) == (4, 3)
    assert out["lastScaleTime"] == expected
    assert [c["type"] for c in conditions] == ["AbleToScale"]


class Recorder:
    """Remembers the length of the history it was fitted on and the parameters."""

    def __init__(self) -> None:
        self.lengths: list[int] = []
        self.params: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        return "recorder"

    def fit(self, history: Series, horizon: int) -> Forecast:
        self.lengths.append(len(history))
        return Forecast("recorder", history.end, history.step, np.ones(horizon), np.zeros(horizon))


@pytest.mark.parametrize("algorithm", ["dsp", "percentile"])
def test_the_history_read_is_a_week_by_default(algorithm: str) -> None:
    history = MemoryHistory()
    key = SeriesKey("default", "Deployment", "web", "cpu_usage")
    history.write(key, [Point(NOW - timedelta(minutes=m), 0.5) for m in range(1, 20)])
    model = Recorder()
    forecasting.fit(history, key, Prediction(600, algorithm), NOW, lambda _a, _p: model)
    assert model.lengths == [7 * 24 * 60]


@pytest.mark.parametrize(
    ("series", "params", "histogram"),
    [
        ("memory_usage", {}, forecasting.MEMORY_HISTOGRAM),
        ("cpu_usage", {}, None),
        ("memory_usage", {"histogram": {"bucketSize": "1e6", "maxValue": "1e10"}}, None),
    ],
    ids=["memory-gets-bytes-buckets", "cpu-keeps-cranes-default", "written-histogram-kept"],
)
def test_memory_percentile_forecasts_get_exponential_buckets(
    series: str, params: dict[str, Any], histogram: Any
) -> None:
    given = forecasting.model_parameters("percentile", params, series)
    if histogram is None:
        assert given == params
    else:
        assert given["histogram"] == dict(histogram)
    assert forecasting.model_parameters("dsp", {}, series) == {}


@pytest.mark.parametrize(
    ("histogram", "expected"),
    [
        (
            {"maxValue": "1e12", "firstBucketSize": "1e7", "bucketSizeGrowthRatio": "0.05"},
            ExponentialBuckets(1e12, 1e7, 1.05),
        ),
        ({"maxValue": "1000", "bucketSize": "0.5"}, LinearBuckets(1000.0, 0.5)),
        ({}, LinearBuckets()),
    ],
    ids=["exponential", "linear", "cranes-default"],
)
def test_the_percentile_histogram_is_read_as_crane_reads_it(
    histogram: dict[str, str], expected: Any
) -> None:
    model = forecasting.default_forecaster("percentile", {"histogram": histogram})
    assert isinstance(model, PercentileForecaster)
    assert model.params.buckets == expected


def test_a_histogram_that_does_not_parse_is_a_forecast_error() -> None:
    with pytest.raises(ForecastError, match="invalid percentile parameters"):
        forecasting.default_forecaster(
            "percentile",
            {"histogram": {"maxValue": "x", "firstBucketSize": "1", "bucketSizeGrowthRatio": "1"}},
        )


def test_a_memory_percentile_forecast_holds_gibibytes() -> None:
    """Regression: with Crane's linear default (up to 100) every byte value fell into the
    last bucket and the forecast of a 2 GiB workload was 100 bytes."""
    history = MemoryHistory()
    key = SeriesKey("default", "Deployment", "web", "memory_usage")
    history.write(key, [Point(NOW - timedelta(minutes=m), 2 * GIB) for m in range(1, 600)])
    fit = forecasting.fit(history, key, Prediction(600, "percentile"), NOW)
    assert fit.forecast is not None, fit.reason
    value = fit.forecast.value_at(NOW)
    assert value is not None
    # Within one 5% bucket above the level (the bucket's end is the estimate).
    assert 2 * GIB <= value <= 2 * GIB * 1.06
