"""The seasonal models and the naive baselines: shapes, accuracy on clean cycles, gaps,
weekly seasons, error scales, and the invariants every forecast keeps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.forecast import Forecaster, ForecastError, Series
from podscale.forecast.naive import LastValueForecaster, SeasonalNaiveForecaster
from podscale.forecast.seasonal import HoltWintersForecaster, MstlForecaster

START = datetime(2026, 11, 2, tzinfo=UTC)  # a Monday
MODELS: list[Forecaster] = [
    HoltWintersForecaster(),
    MstlForecaster(),
    SeasonalNaiveForecaster(),
    LastValueForecaster(),
]
NAMES = [model.name for model in MODELS]


def daily(minutes: np.ndarray, weekend: float = 1.0) -> np.ndarray:
    """A demand of 10 at night rising to 16 at noon; ``weekend`` scales Saturday's and
    Sunday's rise."""
    day_of_week = (minutes // 1440) % 7
    rise = 6 * np.sin(np.pi * (minutes % 1440) / 1440) ** 2
    return 10 + rise * np.where(day_of_week >= 5, weekend, 1.0)


def series(days: float, step_minutes: int, noise: float = 0.0, weekend: float = 1.0) -> Series:
    minutes = np.arange(int(days * 1440 / step_minutes)) * step_minutes
    values = daily(minutes, weekend) + np.random.default_rng(7).normal(0, noise, minutes.shape)
    return Series(START, timedelta(minutes=step_minutes), values)


def truth(history: Series, horizon: int, weekend: float = 1.0) -> np.ndarray:
    step = int(history.step.total_seconds() // 60)
    return daily((len(history) + np.arange(horizon)) * step, weekend)


@pytest.mark.parametrize("model", MODELS, ids=NAMES)
def test_forecast_continues_the_history(model: Forecaster) -> None:
    history = series(3, 10, noise=0.2)
    forecast = model.fit(history, 36)
    assert forecast.model == model.name
    assert (forecast.start, forecast.step, len(forecast)) == (history.end, history.step, 36)
    assert np.isfinite(forecast.mean).all()
    assert (forecast.scale >= 0).all()
    assert np.all(np.diff(forecast.scale) >= -1e-9), "the error does not shrink ahead"


@pytest.mark.parametrize(
    ("model", "tolerance"),
    [(HoltWintersForecaster(), 0.05), (MstlForecaster(), 0.05), (SeasonalNaiveForecaster(), 0.01)],
    ids=["holtWinters", "mstl", "seasonalNaive"],
)
def test_seasonal_models_follow_a_clean_daily_cycle(model: Forecaster, tolerance: float) -> None:
    history = series(4, 10)
    forecast = model.fit(history, 144)
    error = np.mean(np.abs(forecast.mean - truth(history, 144))) / 13
    assert error < tolerance


def test_last_value_repeats_the_last_observation() -> None:
    values = np.array([1.0, 2.0, 4.0, np.nan, np.nan])
    forecast = LastValueForecaster().fit(Series(START, timedelta(minutes=1), values), 3)
    assert forecast.mean.tolist() == [4.0, 4.0, 4.0]


@pytest.mark.parametrize(
    ("model", "days", "message"),
    [
        (HoltWintersForecaster(), 1.5, "history of 1d12h is shorter than the 2d holtWinters needs"),
        (MstlForecaster(), 0.25, "history of 6h is shorter than the 2d mstl needs"),
        (SeasonalNaiveForecaster(), 0.5, "history of 12h is shorter than the 1d seasonalNaive"),
    ],
    ids=["holtWinters", "mstl", "seasonalNaive"],
)
def test_short_history_is_refused_with_its_length(
    model: Forecaster, days: float, message: str
) -> None:
    with pytest.raises(ForecastError, match=message):
        model.fit(series(days, 30), 10)


def test_steps_before_the_first_value_do_not_count_as_history() -> None:
    history = series(3, 30)
    history.values[:100] = np.nan  # recorded for the last 22 hours only
    with pytest.raises(ForecastError, match="history of 22h is shorter"):
        HoltWintersForecaster().fit(history, 10)


@pytest.mark.parametrize("model", MODELS, ids=NAMES)
def test_a_history_without_values_is_refused(model: Forecaster) -> None:
    empty = Series(START, timedelta(minutes=10), np.full(600, np.nan))
    with pytest.raises(ForecastError, match="holds no value"):
        model.fit(empty, 5)


@pytest.mark.parametrize(
    "model", [HoltWintersForecaster(), MstlForecaster()], ids=["holtWinters", "mstl"]
)
def test_gaps_are_interpolated_before_fitting(model: Forecaster) -> None:
    history = series(4, 10, noise=0.2)
    rng = np.random.default_rng(3)
    history.values[rng.random(len(history)) < 0.2] = np.nan
    history.values[300:330] = np.nan  # five hours lost in one piece
    forecast = model.fit(history, 72)
    assert np.mean(np.abs(forecast.mean - truth(history, 72))) / 13 < 0.06


@pytest.mark.parametrize(
    "model", [HoltWintersForecaster(), MstlForecaster()], ids=["holtWinters", "mstl"]
)
def test_per_minute_history_gives_a_per_minute_forecast(model: Forecaster) -> None:
    history = series(3, 1, noise=0.3)
    forecast = model.fit(history, 90)
    assert (len(forecast), forecast.step) == (90, timedelta(minutes=1))
    assert np.mean(np.abs(forecast.mean - truth(history, 90))) / 13 < 0.05
    # the spread of the minutes about their block means is part of the error
    assert forecast.scale[0] > 0.2


@pytest.mark.parametrize("days", [2, 14], ids=["two-days-at-the-least", "two-weeks-exactly"])
@pytest.mark.parametrize(
    "model", [HoltWintersForecaster(), MstlForecaster()], ids=["holtWinters", "mstl"]
)
def test_exactly_two_cycles_are_enough(model: Forecaster, days: int) -> None:
    # MSTL drops a period that is not shorter than half the series: two days (or two
    # weeks) exactly must still fit, with the day's season.
    history = series(days, 60, noise=0.1)
    forecast = model.fit(history, 24)
    assert np.mean(np.abs(forecast.mean - truth(history, 24))) / 13 < 0.1


@pytest.mark.parametrize(
    "model", [HoltWintersForecaster(), MstlForecaster()], ids=["holtWinters", "mstl"]
)
def test_two_weeks_of_history_bring_the_weekly_season(model: Forecaster) -> None:
    # 19 days from a Monday end on a Saturday, whose rise is a fifth of a weekday's.
    history = series(19, 30, noise=0.1, weekend=0.2)
    forecast = model.fit(history, 48)
    expected = truth(history, 48, weekend=0.2)
    weekday = truth(history, 48, weekend=1.0)
    error = np.mean(np.abs(forecast.mean - expected))
    assert error < 0.3 * np.mean(np.abs(weekday - expected))


@settings(max_examples=10)
@given(
    values=st.lists(
        st.one_of(st.floats(0, 1e6), st.just(float("nan"))), min_size=48, max_size=80
    ).filter(lambda v: any(x == x for x in v)),
    horizon=st.integers(0, 40),
    quantile=st.floats(0.01, 0.99),
    which=st.sampled_from(range(len(MODELS))),
)
def test_forecasts_are_finite_non_negative_and_of_the_horizon(
    values: list[float], horizon: int, quantile: float, which: int
) -> None:
    history = Series(START, timedelta(hours=1), np.array(values, dtype=np.float64))
    try:
        forecast = MODELS[which].fit(history, horizon)
    except ForecastError:
        # leading NaN can leave less than two days: the only refusal allowed here
        assert np.isnan(values[0])
        return
    assert len(forecast) == horizon
    assert np.isfinite(forecast.mean).all()
    assert np.isfinite(forecast.scale).all()
    for index in range(horizon):
        value = forecast.value_at(forecast.start + index * forecast.step, quantile)
        assert value is not None
        assert value >= 0
