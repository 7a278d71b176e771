"""The PHPA controller's fits and forecast reads: the reason a fit gives no forecast, the
peak over the lead time at a quantile with the level correction (``spec.prediction`` is
read by ``types.parse_phpa``: test_types)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from podscale.controllers.phpa.forecasting import fit_series, peak_demand
from podscale.forecast.select import FORECASTERS
from podscale.forecast.types import Forecast, ForecastError, Series

NOW = datetime(2026, 3, 2, 9, 30, 10, tzinfo=UTC)
STEP = timedelta(minutes=1)
START = NOW.replace(second=0)
# 1, 2, 3, ... cores a minute from START, with a spread of 0.5.
FORECAST = Forecast("m", START, STEP, np.arange(1.0, 11.0), np.full(10, 0.5))
RECENT = Series(START - 30 * STEP, STEP, np.full(30, 1.0))


def no_correction(_forecast: Forecast, _recent: Series, _at: datetime) -> float | None:
    return None


@pytest.mark.parametrize(
    ("lead", "quantile", "correct", "expected"),
    [
        (timedelta(seconds=0), 0.5, no_correction, 1.0),
        (timedelta(seconds=130), 0.5, no_correction, 3.0),  # to 09:32:20, the third step
        (timedelta(seconds=55), 0.5, no_correction, 2.0),  # the end alone is in the second
        (timedelta(seconds=40), 0.5, no_correction, 1.0),  # 09:30:50: still the first
        (timedelta(seconds=55), 0.9, no_correction, 2.0 + 1.2815515655446004 * 0.5),
        (timedelta(seconds=40), 0.5, lambda f, r, at: 10.0, 10.0),
    ],
    ids=["now", "later-steps", "end-step", "same-step", "quantile", "corrected"],
)
def test_peak_demand(lead: timedelta, quantile: float, correct: Any, expected: float) -> None:
    found = peak_demand(FORECAST, RECENT, now=NOW, lead=lead, quantile=quantile, correct=correct)
    assert found == pytest.approx(expected)


def test_no_peak_outside_the_forecast() -> None:
    later = NOW + timedelta(hours=1)
    assert (
        peak_demand(FORECAST, RECENT, now=later, lead=STEP, quantile=0.9, correct=no_correction)
        is None
    )


class Unconverged:
    """A model failing for a reason other than the history's length, in words that
    mention neither."""

    name = "unconverged"

    def fit(self, history: Series, horizon: int) -> Forecast:
        raise ForecastError("at least one smoothing parameter did not converge")


TEN = timedelta(minutes=10)


def flat(days: float) -> Series:
    return Series(START, TEN, np.full(int(days * 144), 3.0))


@pytest.mark.parametrize(
    ("algorithm", "history", "reason", "model"),
    [
        ("auto", flat(1), "HistoryTooShort", None),
        ("auto", flat(4), "NoModelBeatsNaive", None),
        ("holtWinters", flat(1), "HistoryTooShort", "holtWinters"),
        ("seasonalNaive", flat(0.5), "HistoryTooShort", "seasonalNaive"),
        ("unconverged", flat(4), "NoModelBeatsNaive", "unconverged"),
        ("seasonalNaive", flat(2), "ForecastAvailable", "seasonalNaive"),
    ],
    ids=[
        "auto-short",
        "auto-no-model-beats-naive",
        "named-short",
        "named-baseline-short",
        "named-failure-is-not-short",
        "named-available",
    ],
)
def test_fit_reasons(
    monkeypatch: pytest.MonkeyPatch,
    algorithm: str,
    history: Series,
    reason: str,
    model: str | None,
) -> None:
    monkeypatch.setitem(FORECASTERS, "unconverged", Unconverged)
    fitted = fit_series(history, 12, algorithm)
    assert (fitted.reason, fitted.model) == (reason, model)
    assert (fitted.forecast is not None) == (reason == "ForecastAvailable")
