"""The PHPA controller's forecasts: fit a model on a series' history, read demand ahead.

``fit_series`` is the refit (``controller`` calls it on the ``refreshInterval`` schedule,
never every sync): ``podscale.forecast.select.choose`` for ``algorithm: auto``, else the
named model of ``FORECASTERS``; ``Fitted`` keeps the forecast with what the status reports
(model, backtest error, the ``PredictionReady`` reason and message: ``HistoryTooShort``
when ``Choice.short`` or the named model raised ``forecast.types.HistoryTooShort``,
``NoModelBeatsNaive`` for any other reason there is no forecast). ``peak_demand`` is the
per-sync read: the highest demand over ``[now, now + lead]`` at the quantile, each step's
level corrected against the recent actual series (``podscale.forecast.adapt.corrected``).

The forecast package is imported when first used (statsmodels takes a second or more to
import, and a plane without predictive autoscalers should not pay it). Both functions are
parameters of the controller (``Fit``, ``Correct``) so tests may run a small model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from podscale.controllers.phpa.decisions import (
    REASON_AVAILABLE,
    REASON_NO_MODEL,
    REASON_TOO_SHORT,
)
from podscale.forecast.types import Forecast, ForecastError, HistoryTooShort, Series

__all__ = ["Correct", "Fit", "Fitted", "corrected_value", "fit_series", "peak_demand"]


@dataclass(frozen=True, slots=True)
class Fitted:
    """One refit's outcome; ``forecast`` None with the reason there is none."""

    forecast: Forecast | None
    model: str | None
    backtest_error: float | None
    reason: str
    message: str


Fit = Callable[[Series, int, str], Fitted]
Correct = Callable[[Forecast, Series, datetime], float | None]


def fit_series(history: Series, horizon: int, algorithm: str) -> Fitted:
    """Fit ``algorithm`` (``auto``: the backtest's choice) on ``history``, ``horizon`` steps on."""
    from podscale.forecast.select import FORECASTERS, choose  # statsmodels: on first use

    if algorithm == "auto":
        choice = choose(history, horizon)
        if choice.forecast is None:
            why = REASON_TOO_SHORT if choice.short else REASON_NO_MODEL
            return Fitted(None, None, None, why, choice.reason)
        model = str(choice.model)
        error = choice.errors.get(model)
        return Fitted(
            choice.forecast,
            model,
            None if error is None else float(error),
            REASON_AVAILABLE,
            f"the {model} model was chosen by backtest: {choice.reason}",
        )
    try:
        forecast: Forecast = FORECASTERS[algorithm]().fit(history, horizon)
    except HistoryTooShort as err:
        return Fitted(None, algorithm, None, REASON_TOO_SHORT, str(err))
    except ForecastError as err:
        return Fitted(None, algorithm, None, REASON_NO_MODEL, str(err))
    return Fitted(
        forecast,
        algorithm,
        forecast.backtest_error,
        REASON_AVAILABLE,
        f"the {algorithm} model forecasts {horizon} minutes ahead",
    )


def corrected_value(forecast: Forecast, recent: Series, at: datetime) -> float | None:
    """``podscale.forecast.adapt.corrected``, imported on first use."""
    from podscale.forecast.adapt import corrected  # with the models, on first use

    value = corrected(forecast, recent, at)
    return None if value is None else float(value)


def peak_demand(
    forecast: Forecast,
    recent: Series,
    *,
    now: datetime,
    lead: timedelta,
    quantile: float,
    correct: Correct,
) -> float | None:
    """The highest demand over the steps from ``now`` to ``now + lead`` (both included):
    each step's corrected mean plus the model's spread up to ``quantile``. None when the
    forecast does not reach ``now`` (a refit is due)."""
    best: float | None = None
    at = now
    while at <= now + lead:
        mean = forecast.value_at(at, 0.5)
        if mean is not None:
            high = forecast.value_at(at, quantile)
            spread = 0.0 if high is None else high - mean
            level = correct(forecast, recent, at)
            value = max((mean if level is None else level) + spread, 0.0)
            best = value if best is None else max(best, value)
        at += forecast.step
    if best is None:
        return None
    # The end of the lead falls inside a step the loop may have stepped over.
    end = forecast.value_at(now + lead, 0.5)
    if end is not None:
        high = forecast.value_at(now + lead, quantile) or end
        level = correct(forecast, recent, now + lead)
        best = max(best, (end if level is None else level) + high - end)
    return best
