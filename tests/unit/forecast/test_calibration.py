"""The backtest as the autoscalers meet it: ``adapt.corrected_path`` against ``corrected``,
the calibrated error scale ``select.choose`` gives every model, and the daily profile finer
than a block that the seasonal models add back (``prepare.coarsened``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.forecast.adapt import corrected_path, correction
from podscale.forecast.prepare import coarsened
from podscale.forecast.seasonal import HoltWintersForecaster
from podscale.forecast.select import choose
from podscale.forecast.types import Forecast, Series

START = datetime(2026, 3, 2, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
DAY = 1440


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0.0, 50.0), min_size=60, max_size=60),
    st.lists(st.floats(0.0, 50.0), min_size=60, max_size=60),
    st.integers(0, 5),
)
def test_the_path_is_what_corrected_answers_at_each_step(
    mean: list[float], actual: list[float], lead: int
) -> None:
    means, actuals = np.array(mean), np.array(actual)
    forecast = Forecast("m", START, MINUTE, means, np.zeros(len(mean)))
    path = corrected_path(means, actuals, lead, MINUTE)
    assert np.isnan(path[:lead]).all()
    for t in range(lead, len(mean)):
        recent = Series(START, MINUTE, actuals[: t - lead + 1])
        expected = correction(forecast, recent).apply(float(means[t]))
        assert path[t] == pytest.approx(expected, rel=1e-9, abs=1e-9)


def noisy_daily(days: int, burst: float, seed: int) -> np.ndarray:
    minute = np.arange(days * DAY)
    base = 10 + 5 * np.sin(2 * np.pi * minute / DAY)
    morning = (minute % DAY >= 540) & (minute % DAY < 560)  # 09:00 to 09:20
    noise = np.random.default_rng(seed).normal(0, 0.5, minute.shape[0])
    return np.asarray(base + burst * morning + noise, dtype=np.float64)


def test_noise_averaged_over_a_week_is_not_replayed_as_a_shape() -> None:
    coarse = coarsened(Series(START, MINUTE, noisy_daily(7, 0.0, seed=3)))
    assert coarse.factor > 1
    # The soft threshold keeps only rare, small exceedances of the day-to-day noise
    # (its standard deviation is 0.5).
    assert float(np.mean(np.abs(coarse.profile))) < 0.025


def test_a_burst_keeps_its_edges_that_block_means_smear() -> None:
    coarse = coarsened(Series(START, MINUTE, noisy_daily(7, 20.0, seed=3)))
    # Ten-minute blocks hold the 09:00-09:20 burst; interpolating between their centres
    # would ramp it in from 08:55: the profile takes that ramp back out.
    assert float(coarse.profile[535:540].min()) < -4.0
    assert float(coarse.profile[540:545].max()) > 4.0


def test_a_fitted_forecast_carries_the_burst_at_the_input_step() -> None:
    history = Series(START, MINUTE, noisy_daily(7, 20.0, seed=4))
    forecast = HoltWintersForecaster().fit(history, DAY)
    # From its first minute to its last, and not before.
    assert float(forecast.mean[540:560].min()) - float(forecast.mean[520:539].max()) > 15.0


def test_every_chosen_forecast_has_a_calibrated_error_scale() -> None:
    history = Series(START, MINUTE, noisy_daily(7, 0.0, seed=5))
    choice = choose(history, 60, candidates=("dsp",))
    assert choice.forecast is not None, choice.reason
    # Crane's DSP has no error model; the hold-out gives it the noise's spread (0.5).
    assert 0.3 < float(choice.forecast.scale.min()) < 1.0
