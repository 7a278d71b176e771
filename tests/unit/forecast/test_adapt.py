"""Correcting a forecast's level by the recent actual series: a day unlike history (a
holiday, a launch, a trend, an outage) is followed within minutes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.forecast import Forecast, Series
from podscale.forecast.adapt import (
    MIN_RATIO,
    Correction,
    corrected,
    corrected_forecast,
    correction,
)

MINUTE = timedelta(minutes=1)
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
# The forecast was fit two hours ago and runs four hours; a daily rise, 10 at its lowest.
FIT = NOW - timedelta(hours=2)


def usual(minutes: np.ndarray) -> np.ndarray:
    return 10 + 6 * np.sin(np.pi * minutes / 1440) ** 2


FORECAST = Forecast("holtWinters", FIT, MINUTE, usual(np.arange(240.0) + 600), np.full(240, 0.5))


def recent(actual: np.ndarray) -> Series:
    """The last ``len(actual)`` minutes up to and including NOW's."""
    return Series(NOW - (len(actual) - 1) * MINUTE, MINUTE, actual)


def predicted(minutes: int) -> np.ndarray:
    """The forecast's mean for the last ``minutes`` minutes up to NOW."""
    index = FORECAST.mean.shape[0] // 2 - minutes + 1
    return FORECAST.mean[index : index + minutes]


def since(minutes: int, factor: float, total: int = 60) -> np.ndarray:
    """What the forecast predicted for the last ``total`` minutes, times ``factor`` over
    the last ``minutes`` of them."""
    values = predicted(total).copy()
    values[total - minutes :] *= factor
    return values


FORECAST_AT_NOW = float(FORECAST.mean[120])

CASES = [
    # (id, recent actual, expected corrected value at NOW, relative tolerance)
    ("as-forecast", predicted(60), FORECAST_AT_NOW, 1e-9),
    ("holiday-30pct-for-15min", since(15, 0.3), 0.3 * FORECAST_AT_NOW, 0.2),
    ("holiday-30pct-all-morning", since(60, 0.3), 0.3 * FORECAST_AT_NOW, 1e-6),
    ("launch-2x-for-15min", since(15, 2.0), 2.0 * FORECAST_AT_NOW, 0.1),
    ("one-noisy-minute", since(1, 1.5), FORECAST_AT_NOW, 0.1),
    (
        "trend-1pct-a-minute",
        predicted(60) * (1 + 0.01 * np.arange(60)),
        FORECAST_AT_NOW * 1.6,
        0.1,
    ),
    ("outage-floored", since(30, 0.0), MIN_RATIO * FORECAST_AT_NOW, 0.15),
]


@pytest.mark.parametrize(
    ("actual", "expected", "tolerance"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_the_level_follows_the_recent_actual_series(
    actual: np.ndarray, expected: float, tolerance: float
) -> None:
    value = corrected(FORECAST, recent(actual), NOW)
    assert value == pytest.approx(expected, rel=tolerance)


def test_a_forecast_of_zero_is_corrected_by_the_difference() -> None:
    zero = Forecast("lastValue", FIT, MINUTE, np.zeros(240), np.zeros(240))
    assert corrected(zero, recent(np.full(30, 4.0)), NOW) == pytest.approx(4.0)
    assert correction(zero, recent(np.full(30, 4.0))) == Correction(offset=4.0)


def test_a_rise_far_beyond_the_forecast_adds_the_difference() -> None:
    tiny = Forecast("mstl", FIT, MINUTE, np.full(240, 0.01), np.zeros(240))
    assert corrected(tiny, recent(np.full(30, 8.0)), NOW) == pytest.approx(8.0)


def test_outside_the_forecast_there_is_nothing_to_correct() -> None:
    assert corrected(FORECAST, recent(since(30, 2.0)), FORECAST.end) is None


@pytest.mark.parametrize(
    "series",
    [
        Series(FIT - timedelta(hours=2), MINUTE, np.full(60, 30.0)),  # before the forecast
        Series(FORECAST.end, MINUTE, np.full(60, 30.0)),  # after the forecast
        Series(NOW - 29 * MINUTE, MINUTE, np.full(30, np.nan)),  # nothing recorded
    ],
    ids=["before-forecast", "after-forecast", "all-missing"],
)
def test_without_usable_recent_values_the_forecast_stands(series: Series) -> None:
    assert correction(FORECAST, series) == Correction()
    assert corrected(FORECAST, series, NOW) == pytest.approx(FORECAST_AT_NOW)


def test_values_a_lead_time_ahead_get_the_correction_of_now() -> None:
    # the window ends at the recent series' last value, not at the time asked for: an
    # hour ahead is corrected as now is.
    series = recent(since(60, 2.0))
    later = NOW + timedelta(hours=1)
    assert corrected(FORECAST, series, later) == pytest.approx(2 * FORECAST.mean[180])


def test_only_the_last_half_hour_counts() -> None:
    actual = since(60, 3.0)
    actual[-30:] = predicted(30)  # tripled an hour ago, as forecast for the last 30 minutes
    assert corrected(FORECAST, recent(actual), NOW) == pytest.approx(FORECAST_AT_NOW)


def test_missing_minutes_are_skipped() -> None:
    actual = since(60, 2.0)
    actual[::3] = np.nan
    assert corrected(FORECAST, recent(actual), NOW) == pytest.approx(2 * FORECAST_AT_NOW)


def test_recent_series_at_another_step_maps_onto_the_forecast() -> None:
    five = Series(NOW - 25 * MINUTE, 5 * MINUTE, np.array(usual(np.arange(6.0) * 5 + 695)) * 2)
    assert corrected(FORECAST, five, NOW) == pytest.approx(2 * FORECAST_AT_NOW, rel=0.02)


def test_the_corrected_forecast_agrees_with_corrected() -> None:
    series = recent(since(20, 1.7))
    whole = corrected_forecast(FORECAST, series)
    for at in (NOW, NOW + 10 * MINUTE, NOW + 90 * MINUTE):
        for quantile in (0.5, 0.9):
            assert whole.value_at(at, quantile) == pytest.approx(
                corrected(FORECAST, series, at, quantile=quantile)
            )
    ratio = correction(FORECAST, series).ratio
    assert 1.6 < ratio < 1.7
    later = NOW + 10 * MINUTE
    assert whole.max_between(NOW, later) == pytest.approx(
        ratio * (FORECAST.max_between(NOW, later) or 0.0)
    )


@given(
    actual=st.lists(st.one_of(st.floats(0, 1e9), st.just(float("nan"))), min_size=1, max_size=90),
    scale=st.floats(0, 1e6),
    minute=st.integers(-30, 300),
    quantile=st.floats(0.01, 0.99),
)
def test_corrected_values_are_finite_and_never_negative(
    actual: list[float], scale: float, minute: int, quantile: float
) -> None:
    forecast = Forecast("x", FIT, MINUTE, FORECAST.mean * scale, FORECAST.scale)
    at = NOW + minute * MINUTE
    value = corrected(forecast, recent(np.array(actual)), at, quantile=quantile)
    if not FIT <= at < forecast.end:
        assert value is None
        return
    assert value is not None
    assert np.isfinite(value)
    assert value >= 0


@given(level=st.floats(0.01, 1e6), minutes=st.integers(1, 60))
def test_a_series_as_forecast_is_not_corrected(level: float, minutes: int) -> None:
    flat = Forecast("x", FIT, MINUTE, np.full(240, level), np.zeros(240))
    fix = correction(flat, recent(np.full(minutes, level)))
    assert fix.ratio == pytest.approx(1.0)
    assert fix.offset == 0.0
