"""The forecasters' values: ``Series`` in, ``Forecast`` out, and the ``Forecaster`` protocol.

A ``Series`` is regular: value ``i`` is the mean over ``[start + i*step, start + (i+1)*step)``
and NaN marks a step without data. A ``Forecast`` continues a series: value ``i`` is the
prediction for the step starting at ``start + i*step``; ``scale`` is the standard deviation
of its error at that step (zeros when a model has no error model), from which
``value_at(at, quantile)`` reads a normal quantile. Arrays are numpy float64 and must not be
modified after construction (the dataclasses are frozen, their arrays are not copied).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from statistics import NormalDist
from typing import Protocol

import numpy as np
import numpy.typing as npt

__all__ = ["Array", "Forecast", "ForecastError", "Forecaster", "HistoryTooShort", "Series"]

Array = npt.NDArray[np.float64]
_NORMAL = NormalDist()


class ForecastError(ValueError):
    """A model cannot forecast this series (too short, no season found, ...): the message
    says why, for conditions and describe."""


class HistoryTooShort(ForecastError):
    """The history is shorter than the model needs: more of it may yet make a forecast
    (the autoscalers report this apart from a model that fits and does not help)."""


@dataclass(frozen=True, slots=True)
class Series:
    start: datetime
    step: timedelta
    values: Array = field(compare=False)

    def __post_init__(self) -> None:
        if self.step <= timedelta(0):
            raise ValueError(f"step must be positive, got {self.step}")
        if self.values.ndim != 1:
            raise ValueError("values must be one-dimensional")

    def __len__(self) -> int:
        return int(self.values.shape[0])

    @property
    def end(self) -> datetime:
        """The start of the step after the last value."""
        return self.start + len(self) * self.step

    def time_of(self, index: int) -> datetime:
        return self.start + index * self.step

    def index_of(self, at: datetime) -> int:
        """The index of the step containing ``at`` (may be outside the series)."""
        return math.floor((at - self.start) / self.step)

    @classmethod
    def from_points(
        cls,
        points: Sequence[tuple[datetime, float]],
        *,
        start: datetime,
        end: datetime,
        step: timedelta,
    ) -> Series:
        """A regular series over ``[start, end)`` from points (NaN where none falls; the
        last point of a step wins, as stores keep one value per step)."""
        count = max(0, math.ceil((end - start) / step))
        values = np.full(count, np.nan)
        for at, value in points:
            index = math.floor((at - start) / step)
            if 0 <= index < count:
                values[index] = value
        return cls(start, step, values)

    def tail(self, count: int) -> Series:
        """The last ``count`` steps."""
        count = min(count, len(self))
        return Series(self.time_of(len(self) - count), self.step, self.values[len(self) - count :])


@dataclass(frozen=True, slots=True)
class Forecast:
    """Predictions ahead of a series, made by ``model``."""

    model: str
    start: datetime
    step: timedelta
    mean: Array = field(compare=False)
    scale: Array = field(compare=False)
    # The model's error on the hold-out it was chosen by (mean absolute error in the
    # series' unit), when it was chosen by a backtest.
    backtest_error: float | None = None

    def __post_init__(self) -> None:
        if self.mean.shape != self.scale.shape:
            raise ValueError("mean and scale must have the same shape")

    def __len__(self) -> int:
        return int(self.mean.shape[0])

    @property
    def end(self) -> datetime:
        return self.start + len(self) * self.step

    def value_at(self, at: datetime, quantile: float = 0.5) -> float | None:
        """The ``quantile`` of the prediction for the step containing ``at`` (None
        outside the forecast). Never negative: demand is not."""
        if not 0.0 < quantile < 1.0:
            raise ValueError(f"quantile must be in (0, 1), got {quantile}")
        index = math.floor((at - self.start) / self.step)
        if not 0 <= index < len(self):
            return None
        value = float(self.mean[index])
        sigma = float(self.scale[index])
        if sigma > 0 and quantile != 0.5:
            value += _NORMAL.inv_cdf(quantile) * sigma
        return max(value, 0.0)

    def max_between(self, start: datetime, end: datetime, quantile: float = 0.5) -> float | None:
        """The highest ``quantile`` over the steps overlapping ``[start, end)`` (None when
        none is inside the forecast)."""
        first = max(math.floor((start - self.start) / self.step), 0)
        last = min(math.ceil((end - self.start) / self.step), len(self))
        if first >= last:
            return None
        values = self.mean[first:last]
        if quantile != 0.5:
            values = values + _NORMAL.inv_cdf(quantile) * self.scale[first:last]
        return max(float(np.max(values)), 0.0)


class Forecaster(Protocol):
    """A model: fit on ``history`` and predict ``horizon`` steps after its end.

    Pure: the same series gives the same forecast. Raises ``ForecastError`` when the series
    does not suit the model (say why). ``history`` may contain NaN steps."""

    @property
    def name(self) -> str: ...

    def fit(self, history: Series, horizon: int) -> Forecast: ...
