"""Choosing a model by backtest: a seasonal workload gets a seasonal model, a workload its
history does not predict gets no forecast and the reason, short histories are refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from podscale.forecast import Forecast, ForecastError, HistoryTooShort, Series
from podscale.forecast.select import BASELINES, FORECASTERS, choose

START = datetime(2026, 11, 2, tzinfo=UTC)
STEP = timedelta(minutes=10)
PER_DAY = 144


def seasonal(days: float, noise: float = 1.0) -> Series:
    index = np.arange(int(days * PER_DAY))
    rise = 6 * np.sin(np.pi * (index % PER_DAY) / PER_DAY) ** 2
    values = 10 + rise + np.random.default_rng(5).normal(0, noise, index.shape)
    return Series(START, STEP, values)


def random_walk(days: float) -> Series:
    # On this walk Holt-Winters beats the last value on the last day alone by 14%, more
    # than the margin: only the second hold-out (the day before) shows it was luck.
    steps = np.random.default_rng(1).normal(0, 0.5, int(days * PER_DAY))
    return Series(START, STEP, 50 + np.cumsum(steps))


def test_a_seasonal_workload_gets_a_seasonal_model_refit_on_all_of_it() -> None:
    history = seasonal(5)
    choice = choose(history, 30, candidates=("holtWinters", "mstl"))
    assert choice.model in ("holtWinters", "mstl")
    assert set(choice.errors) == {"holtWinters", "mstl", *BASELINES}
    assert choice.errors[choice.model] < min(choice.errors[name] for name in BASELINES)
    assert choice.reason.startswith(
        f"{choice.model} beats the naive forecast on the last 2 hold-outs of 1d ("
    )
    forecast = choice.forecast
    assert forecast is not None
    assert (forecast.model, forecast.start, len(forecast)) == (choice.model, history.end, 30)
    # the hold-out error, in the series' unit, rides on the forecast
    assert forecast.backtest_error == pytest.approx(choice.errors[choice.model] * 13, rel=0.1)


def test_a_random_walk_gets_no_forecast() -> None:
    choice = choose(random_walk(4), 30, candidates=("holtWinters", "mstl"))
    assert (choice.forecast, choice.model) == (None, None)
    assert choice.reason.startswith(
        "no model beats the naive forecast on the last 2 hold-outs of 1d ("
    )
    assert "holtWinters 0." in choice.reason
    assert "lastValue 0." in choice.reason
    assert not choice.short  # history enough, no model good enough


def test_a_flat_load_gets_no_forecast() -> None:
    choice = choose(Series(START, STEP, np.full(4 * PER_DAY, 3.0)), 10)
    assert choice.forecast is None
    assert choice.errors["lastValue"] == 0.0


@pytest.mark.parametrize(
    ("values", "holdout", "reason", "short"),
    [
        (
            np.full(PER_DAY + 18, 5.0),
            timedelta(days=1),
            "history of 1d3h is shorter than the 3d a seasonal model needs"
            " (2d to fit, 1d to check)",
            True,
        ),
        (
            np.concatenate([np.full(4 * PER_DAY, np.nan), np.full(2 * PER_DAY, 5.0)]),
            timedelta(days=1),
            "history of 2d is shorter than the 3d a seasonal model needs",
            True,
        ),
        (
            np.full(2 * PER_DAY + 30, 5.0),
            timedelta(hours=6),
            "history of 2d5h is shorter than the 2d6h a seasonal model needs"
            " (2d to fit, 6h to check)",
            True,
        ),
        (np.full(5 * PER_DAY, np.nan), timedelta(days=1), "the history holds no value", False),
    ],
    ids=["1d3h", "leading-nan-not-counted", "short-holdout", "all-nan"],
)
def test_short_histories_get_no_forecast_and_say_why(
    values: np.ndarray, holdout: timedelta, reason: str, short: bool
) -> None:
    choice = choose(Series(START, STEP, values), 10, holdout=holdout)
    assert (choice.forecast, choice.model, dict(choice.errors)) == (None, None, {})
    assert choice.reason.startswith(reason)
    assert choice.short is short


class Broken:
    name = "broken"

    def fit(self, history: Series, horizon: int) -> Forecast:
        raise ForecastError("no season found")


def _missing() -> Broken:
    raise ImportError("No module named 'podscale.forecast.missing'")


def test_candidates_that_cannot_fit_are_skipped_with_their_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(FORECASTERS, "broken", Broken)
    monkeypatch.setitem(FORECASTERS, "missing", _missing)
    choice = choose(seasonal(3.5), 10, candidates=("broken", "missing", "holtWinters"))
    assert choice.model == "holtWinters"
    assert "broken" not in choice.errors
    assert "missing" not in choice.errors
    assert "broken: no season found" in choice.reason
    assert "missing: not available (No module named" in choice.reason


def test_no_candidate_left_means_no_forecast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(FORECASTERS, "broken", Broken)
    choice = choose(seasonal(3.5), 10, candidates=("broken",))
    assert choice.forecast is None
    assert choice.reason.startswith("no model beats the naive forecast")
    assert "broken: no season found" in choice.reason


def test_unknown_candidates_are_a_caller_error() -> None:
    with pytest.raises(ValueError, match="unknown forecasters \\['prophet'\\]"):
        choose(seasonal(4), 10, candidates=("prophet",))


def test_missing_steps_of_the_holdout_are_not_scored() -> None:
    history = seasonal(4)
    clean = choose(history, 10, candidates=("holtWinters",))
    # a wildly wrong value in the hold-out, then the same step missing: only the
    # recorded steps count, so the missing one cannot move the score.
    gapped = Series(history.start, history.step, history.values.copy())
    gapped.values[-20] = np.nan
    choice = choose(gapped, 10, candidates=("holtWinters",))
    assert choice.errors["seasonalNaive"] == pytest.approx(clean.errors["seasonalNaive"], rel=0.05)


@pytest.mark.parametrize(
    ("name", "days"),
    [("holtWinters", 1.5), ("mstl", 1.5), ("seasonalNaive", 0.5)],
    ids=["holt-winters", "mstl", "seasonal-naive"],
)
def test_a_model_refuses_a_short_history_as_too_short(name: str, days: float) -> None:
    with pytest.raises(HistoryTooShort, match="is shorter than"):
        FORECASTERS[name]().fit(seasonal(days), 10)
