"""The naive baselines every model must beat: the same step a day earlier, and the last value.

``select.choose`` always scores both on the hold-out and uses a model only when it does
better than the best of them, so a workload without a daily cycle (a random walk, a flat
load) is left to the reactive autoscaler. Both work at the input's step (no fitting, no
statsmodels). Their ``scale`` is the spread of the same prediction made in-sample, grown as
a random walk's: with each day repeated for the seasonal one, with each step for the last
value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from podscale.forecast.prepare import DAY, observed, span, steps_in
from podscale.forecast.types import Forecast, HistoryTooShort, Series

__all__ = ["LastValueForecaster", "SeasonalNaiveForecaster"]


def _spread(differences: np.ndarray) -> float:
    return float(np.std(differences)) if differences.shape[0] else 0.0


@dataclass(frozen=True, slots=True)
class SeasonalNaiveForecaster:
    """Each step ahead is the step one day earlier (the last day repeated)."""

    name: str = "seasonalNaive"

    def fit(self, history: Series, horizon: int) -> Forecast:
        if horizon < 0:
            raise ValueError(f"horizon must not be negative, got {horizon}")
        filled = observed(history)
        day = steps_in(DAY, filled.step)
        values = filled.values
        if values.shape[0] < day:
            covered = len(filled) * filled.step
            raise HistoryTooShort(
                f"history of {span(covered)} is shorter than the 1d {self.name} needs"
            )
        ahead = np.arange(horizon)
        mean = values[values.shape[0] - day + (ahead % day)].astype(np.float64)
        sigma = _spread(values[day:] - values[:-day])
        scale = sigma * np.sqrt(1.0 + ahead // day)
        return Forecast(self.name, history.end, history.step, mean, scale.astype(np.float64))


@dataclass(frozen=True, slots=True)
class LastValueForecaster:
    """Every step ahead is the last observed value."""

    name: str = "lastValue"

    def fit(self, history: Series, horizon: int) -> Forecast:
        if horizon < 0:
            raise ValueError(f"horizon must not be negative, got {horizon}")
        values = observed(history).values
        mean = np.full(horizon, float(values[-1]))
        sigma = _spread(np.diff(values))
        scale = sigma * np.sqrt(1.0 + np.arange(horizon, dtype=np.float64))
        return Forecast(self.name, history.end, history.step, mean, scale)
