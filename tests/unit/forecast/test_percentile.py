"""Crane's percentile predictor: VPA's value-weighted histogram (linear and exponential
buckets, bucket ends as answers), the half-life decay, margin and target utilization."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.forecast.percentile import (
    ExponentialBuckets,
    LinearBuckets,
    PercentileForecaster,
    PercentileParams,
)
from podscale.forecast.types import Array, Forecaster, ForecastError, Series

T0 = datetime(2026, 1, 5, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
NO_DECAY = PercentileParams(half_life=None)


def series(values: Array | list[float], step: timedelta = MINUTE) -> Series:
    return Series(T0, step, np.asarray(values, dtype=np.float64))


def one_per_bucket() -> Array:
    # 0.05, 0.15, ..., 9.95: weights equal the values, so the weight up to bucket j is
    # 0.05 (j+1)^2 of a total of 500
    return np.arange(100, dtype=np.float64) * 0.1 + 0.05


def exponential_bucket_end(value: float, first: float, ratio: float) -> float:
    bucket = math.floor(math.log(value * (ratio - 1) / first + 1) / math.log(ratio))
    return first * (ratio ** (bucket + 1) - 1) / (ratio - 1)


# (id, values, params, expected constant forecast)
CASES = [
    ("constant-is-its-bucket-end", [3.0] * 60, NO_DECAY, 3.1),
    # weights follow the values: 2.0 samples weigh twice as much as 1.0 samples
    (
        "median-is-value-weighted",
        [1.0, 2.0] * 300,
        PercentileParams(half_life=None, percentile=0.5),
        2.1,
    ),
    ("p99-default-of-one-per-bucket", one_per_bucket(), NO_DECAY, 10.0),
    (
        "p90-of-one-per-bucket",
        one_per_bucket(),
        PercentileParams(half_life=None, percentile=0.9),
        9.5,
    ),
    ("above-max-value-is-the-last-bucket", [150.0] * 10, NO_DECAY, 100.0),
    (
        "margin-and-target-utilization",
        [1.0] * 10,
        PercentileParams(half_life=None, margin_fraction=0.1, target_utilization=0.5),
        1.1 * 1.1 / 0.5,
    ),
    (
        "exponential-buckets",
        [1.0] * 10,
        PercentileParams(
            half_life=None,
            buckets=ExponentialBuckets(max_value=1000, first_bucket_size=0.01, ratio=1.05),
        ),
        exponential_bucket_end(1.0, 0.01, 1.05),
    ),
    ("missing-steps-are-not-samples", [np.nan, 4.0, np.nan, 4.0, np.nan], NO_DECAY, 4.1),
    (
        "zeros-weigh-the-minimum",
        [0.0] * 99 + [5.0],
        PercentileParams(half_life=None, percentile=0.5),
        5.1,
    ),
]


@pytest.mark.parametrize(
    ("values", "params", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_percentile_of_known_distributions(
    values: Array | list[float], params: PercentileParams, expected: float
) -> None:
    forecast = PercentileForecaster(params).fit(series(values), 5)
    np.testing.assert_allclose(forecast.mean, np.full(5, expected))
    np.testing.assert_array_equal(forecast.scale, np.zeros(5))
    assert forecast.start == T0 + len(values) * MINUTE
    assert forecast.model == "percentile"


def busy_week_then_quiet_day() -> Array:
    return np.concatenate([np.full(6 * 1440, 10.0), np.full(1440, 1.0)])


# (id, half-life, expected median): ten times the value for six days against one quiet day
DECAY_CASES = [
    ("no-decay-remembers-the-busy-week", None, 10.1),
    ("crane-default-24h-still-busy", timedelta(hours=24), 10.1),
    ("one-hour-forgets-it", timedelta(hours=1), 1.1),
]


@pytest.mark.parametrize(
    ("half_life", "expected"), [c[1:] for c in DECAY_CASES], ids=[c[0] for c in DECAY_CASES]
)
def test_half_life_decay(half_life: timedelta | None, expected: float) -> None:
    params = PercentileParams(half_life=half_life, percentile=0.5)
    forecast = PercentileForecaster(params).fit(series(busy_week_then_quiet_day()), 3)
    assert forecast.mean[0] == pytest.approx(expected)


def test_decay_weighs_by_age_halving_per_half_life() -> None:
    # 1.0 two half-lives old against 4.0 now: weights 1*1/4 and 4*1, so 1.0 holds 1/17 of it
    values = [1.0] + [np.nan] * 119 + [4.0]
    params = PercentileParams(half_life=timedelta(hours=1))
    below = PercentileParams(half_life=timedelta(hours=1), percentile=0.05)
    above = PercentileParams(half_life=timedelta(hours=1), percentile=0.06)
    assert PercentileForecaster(below).fit(series(values), 1).mean[0] == pytest.approx(1.1)
    assert PercentileForecaster(above).fit(series(values), 1).mean[0] == pytest.approx(4.1)
    assert PercentileForecaster(params).fit(series(values), 1).mean[0] == pytest.approx(4.1)


def test_history_length_limits_the_samples() -> None:
    values = np.concatenate([np.full(100, 50.0), np.full(60, 2.0)])
    params = PercentileParams(half_life=None, history_length=timedelta(hours=1))
    assert PercentileForecaster(params).fit(series(values), 1).mean[0] == pytest.approx(2.1)


def test_finer_series_is_averaged_over_the_sample_interval() -> None:
    values = [1.0, 3.0] * 30  # 30-second steps: each minute averages 2.0
    forecast = PercentileForecaster(NO_DECAY).fit(series(values, timedelta(seconds=30)), 4)
    assert forecast.step == timedelta(seconds=30)
    np.testing.assert_allclose(forecast.mean, np.full(4, 2.1))


@pytest.mark.parametrize("values", [[], [np.nan, np.nan]], ids=["empty", "all-missing"])
def test_no_samples_is_an_error(values: list[float]) -> None:
    with pytest.raises(ForecastError, match="no samples"):
        PercentileForecaster().fit(series(values), 3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"percentile": 1.5}, "percentile"),
        ({"target_utilization": 0.0}, "targetUtilization"),
        ({"half_life": timedelta(0)}, "half-life"),
    ],
    ids=["percentile-over-one", "zero-target", "zero-half-life"],
)
def test_params_are_validated(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PercentileParams(**kwargs)  # type: ignore[arg-type]


def test_bucket_options_are_validated() -> None:
    with pytest.raises(ValueError, match="ratio"):
        ExponentialBuckets(max_value=10, first_bucket_size=0.1, ratio=1.0)
    with pytest.raises(ValueError, match="positive"):
        LinearBuckets(bucket_size=0)


@settings(max_examples=50, deadline=None)
@given(
    values=st.lists(st.one_of(st.floats(0.0, 90.0), st.just(math.nan)), min_size=1, max_size=500),
    percentile=st.floats(0.0, 1.0),
    half_life=st.one_of(st.none(), st.integers(1, 48).map(lambda h: timedelta(hours=h))),
    horizon=st.integers(0, 200),
)
def test_forecast_is_constant_within_the_samples_range(
    values: list[float], percentile: float, half_life: timedelta | None, horizon: int
) -> None:
    params = PercentileParams(percentile=percentile, half_life=half_life)
    present = [v for v in values if not math.isnan(v)]
    if not present:
        with pytest.raises(ForecastError):
            PercentileForecaster(params).fit(series(values), horizon)
        return
    forecast = PercentileForecaster(params).fit(series(values), horizon)
    assert len(forecast) == horizon
    assert not np.any(np.isnan(forecast.mean))
    if horizon:
        assert np.all(forecast.mean == forecast.mean[0])
        # a bucket end: above the lowest sample's bucket, at most one bucket above the highest
        assert math.floor(min(present) * 10) / 10 <= forecast.mean[0] + 1e-9
        assert forecast.mean[0] <= max(present) + 0.1 + 1e-9


@settings(max_examples=30, deadline=None)
@given(
    values=st.lists(st.floats(0.0, 90.0), min_size=1, max_size=200),
    low=st.floats(0.0, 1.0),
    high=st.floats(0.0, 1.0),
)
def test_higher_percentile_never_predicts_less(
    values: list[float], low: float, high: float
) -> None:
    low, high = min(low, high), max(low, high)
    at = {
        p: PercentileForecaster(PercentileParams(percentile=p)).fit(series(values), 1).mean[0]
        for p in (low, high)
    }
    assert at[low] <= at[high]


def test_is_a_forecaster() -> None:
    forecaster: Forecaster = PercentileForecaster()  # mypy checks the protocol
    assert forecaster.name == "percentile"
