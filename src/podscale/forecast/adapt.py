"""History is not destiny: a forecast's level corrected by what the load did in the last minutes.

A forecast is fit on a schedule (hours apart) and predicts from history. When today departs
from it (a holiday at a third of the usual load, a launch at twice it, a trend), provisioning
the forecast as it is would hold yesterday's peak for a quiet day, or lag a rise until the
next refit. ``correction`` compares the recent actual series with what the forecast predicted
for those same steps over the last ``LOOKBACK`` (30 minutes), weighting each step by its age
with a ``HALF_LIFE`` of 4 minutes, so a new level dominates within about 15 minutes while
one noisy minute moves little:

- normally the correction is the ratio actual / predicted of the weighted means, applied
  to every value ahead (seasonal errors scale with the level), floored at ``MIN_RATIO``
  (an outage is not a reason to forecast nothing: the reactive path sees it anyway);
- when the forecast is about zero next to the actual (ratio above ``MAX_RATIO``, or a
  forecast of zero) a ratio would explode, so the difference is added instead.

The forecast must cover the recent steps: callers keep a forecast that starts before now
(fit at the last refresh, with a horizon reaching past the next one plus the lead time), and
pass ``recent`` up to now: the window ends at its last value, which is "now" here (so a
value read a lead time ahead gets the same correction). Without recent values inside the
forecast nothing is corrected. Pure: no clock is read. The forecasts come from ``select.choose``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from podscale.forecast.types import Array, Forecast, Series

__all__ = [
    "HALF_LIFE",
    "LOOKBACK",
    "MAX_RATIO",
    "MIN_RATIO",
    "Correction",
    "corrected",
    "corrected_forecast",
    "corrected_path",
    "correction",
]

LOOKBACK = timedelta(minutes=30)
HALF_LIFE = timedelta(minutes=4)
MIN_RATIO = 0.2
MAX_RATIO = 5.0


@dataclass(frozen=True, slots=True)
class Correction:
    """``value * ratio + offset``, never below zero; the identity by default."""

    ratio: float = 1.0
    offset: float = 0.0

    def apply(self, value: float) -> float:
        return max(value * self.ratio + self.offset, 0.0)


def correction(forecast: Forecast, recent: Series) -> Correction:
    """The level correction the recent actual values call for against ``forecast``'s mean
    for the same steps: the steps of the ``LOOKBACK`` ending with ``recent``'s last
    value, each weighted by its age from that value. The window is anchored there, not at
    the time a value is read for: a value a lead time ahead gets the correction of now."""
    finite = np.isfinite(recent.values)
    if not finite.any() or len(forecast) == 0:
        return Correction()
    step = recent.step.total_seconds()
    last = int(np.flatnonzero(finite)[-1])
    ages = (last - np.arange(len(recent), dtype=np.float64)) * step  # from the last value
    middle = (recent.start - forecast.start).total_seconds() + (
        np.arange(len(recent), dtype=np.float64) + 0.5
    ) * step
    index = np.floor(middle / forecast.step.total_seconds()).astype(np.int64)
    inside = (
        finite
        & (ages >= 0)
        & (ages < LOOKBACK.total_seconds())
        & (index >= 0)
        & (index < len(forecast))
    )
    if not inside.any():
        return Correction()
    weights = 0.5 ** (ages[inside] / HALF_LIFE.total_seconds())
    actual = float(np.average(recent.values[inside], weights=weights))
    predicted = float(np.average(forecast.mean[index[inside]], weights=weights))
    if predicted <= 0 or actual > predicted * MAX_RATIO:
        return Correction(offset=actual - max(predicted, 0.0))
    return Correction(ratio=max(actual / predicted, MIN_RATIO))


def corrected(
    forecast: Forecast, recent: Series, at: datetime, *, quantile: float = 0.5
) -> float | None:
    """The ``quantile`` of ``forecast`` for the step containing ``at``, corrected by the
    recent level error (``correction``); None when ``at`` is outside the forecast."""
    value = forecast.value_at(at, quantile)
    if value is None:
        return None
    return correction(forecast, recent).apply(value)


def corrected_forecast(forecast: Forecast, recent: Series) -> Forecast:
    """The whole forecast corrected as ``corrected`` corrects one value (the error scale
    follows the ratio), for ``Forecast.max_between`` over a lead time."""
    fix = correction(forecast, recent)
    mean = np.maximum(forecast.mean * fix.ratio + fix.offset, 0.0)
    scale = forecast.scale * fix.ratio
    return Forecast(
        forecast.model,
        forecast.start,
        forecast.step,
        mean.astype(np.float64),
        scale.astype(np.float64),
        forecast.backtest_error,
    )


def corrected_path(mean: Array, actual: Array, lead: int, step: timedelta) -> Array:
    """What ``corrected`` would have answered at every step of a backtest: for step ``t``,
    ``mean[t]`` corrected as ``correction`` corrects it with the actual values known ``lead``
    steps earlier (the window ending at ``t - lead``). ``mean`` and ``actual`` are aligned
    (same start and step; NaN actual values are unknown). NaN where no actual value was
    known yet. Vectorized: a backtest scores every minute of a day at once."""
    count = mean.shape[0]
    width = max(1, int(LOOKBACK / step))
    weights = 0.5 ** (np.arange(width, dtype=np.float64) * (step / HALF_LIFE))
    known = np.isfinite(actual)
    weight_sum = np.convolve(known.astype(np.float64), weights)[:count]
    actual_sum = np.convolve(np.where(known, actual, 0.0), weights)[:count]
    predicted_sum = np.convolve(np.where(known, mean, 0.0), weights)[:count]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        seen = actual_sum / weight_sum
        meant = predicted_sum / weight_sum
        additive = (meant <= 0) | (seen > meant * MAX_RATIO)
        ratio = np.where(
            additive, 1.0, np.maximum(seen / np.where(meant > 0, meant, 1.0), MIN_RATIO)
        )
    offset = np.where(additive, seen - np.maximum(meant, 0.0), 0.0)
    path = np.full(count, np.nan)
    if lead >= count:
        return path
    source = np.arange(count - lead)
    usable = weight_sum[source] > 0
    target = source + lead
    value = mean[target] * ratio[source] + offset[source]
    path[target[usable]] = np.maximum(value[usable], 0.0)
    return path
