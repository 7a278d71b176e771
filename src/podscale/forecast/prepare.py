"""What every model of this package does to a history before fitting, and to its forecast after.

``observed`` drops the leading steps a store had no data for (a workload recorded for two
days, read over seven, starts two days back) and fills the remaining NaN steps by linear
interpolation. ``coarsened`` averages the series into blocks so a seasonal model fits on at
most ``MAX_FIT_POINTS`` values (7 days of per-minute history: 10-minute means, 1,008 points)
whatever the input's step; ``refined`` brings a forecast on blocks back to the input's step.
``span`` formats a duration the way reasons print it ("1d3h"). The models are in
``seasonal`` and ``naive``; ``select`` backtests them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import timedelta

import numpy as np

from podscale.forecast.types import Array, ForecastError, HistoryTooShort, Series

__all__ = [
    "DAY",
    "MAX_FIT_POINTS",
    "WEEK",
    "Coarse",
    "coarsened",
    "growing",
    "observed",
    "refined",
    "span",
    "steps_in",
]

DAY = timedelta(days=1)
WEEK = timedelta(days=7)
# statsmodels' Holt-Winters fit costs roughly linear time in the points (about 0.12 s for
# 1,008 on the project's machines, 0.27 s for 2,016): this bounds a fit well under a second.
MAX_FIT_POINTS = 1100


def span(duration: timedelta) -> str:
    """``1d3h``, ``2d``, ``45m``, ``30s``: the largest units, zeros left out."""
    seconds = int(duration.total_seconds())
    if seconds <= 0:
        return "0s"
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)


def steps_in(period: timedelta, step: timedelta) -> int:
    """How many steps make ``period``; a ForecastError when they do not divide it."""
    ratio = period / step
    if ratio < 1 or not math.isclose(ratio, round(ratio)):
        raise ForecastError(f"a step of {span(step)} does not divide {span(period)}")
    return round(ratio)


def observed(history: Series) -> Series:
    """``history`` from its first value on, NaN steps interpolated (the ends held level)."""
    values = history.values
    finite = np.isfinite(values)
    if not finite.any():
        raise ForecastError("the history holds no value")
    first = int(np.argmax(finite))
    values, finite = values[first:], finite[first:]
    if not finite.all():
        index = np.arange(values.shape[0], dtype=np.float64)
        values = np.interp(index, index[finite], values[finite])
    return Series(history.time_of(first), history.step, values.astype(np.float64, copy=False))


@dataclass(frozen=True, slots=True)
class Coarse:
    """Block means of a filled series, the blocks aligned to its end (a partial block at the
    start is dropped) so a forecast's first block starts where the series ends."""

    factor: int  # input steps per block
    day: int  # blocks per day
    values: Array = field(compare=False)
    # Standard deviation of the input's values about their block means (less the daily
    # profile): the error a forecast of block means makes at the input's step even when
    # each mean is right.
    within: float
    # The input's length, and per step of the day (indexed by position in the input modulo
    # the day) the mean deviation of the input from its interpolated block means: the
    # daily shape finer than a block (a 20-minute burst every morning), which the models
    # fitted on block means cannot see. Zeros with one block per step or under two days.
    length: int = 0
    profile: Array = field(default_factory=lambda: np.zeros(0), compare=False)


def coarsened(series: Series) -> Coarse:
    day_steps = steps_in(DAY, series.step)
    count = len(series)
    factor = next(
        (f for f in range(1, day_steps + 1) if day_steps % f == 0 and count / f <= MAX_FIT_POINTS),
        day_steps,
    )
    blocks = count // factor
    if blocks == 0:
        raise HistoryTooShort("the history is shorter than one block")
    offset = count - blocks * factor
    fine = series.values[offset:].reshape(blocks, factor)
    means = fine.mean(axis=1)
    if factor == 1:
        return Coarse(factor, day_steps // factor, means, 0.0, count, np.zeros(day_steps))
    kept = np.arange(blocks * factor, dtype=np.float64)
    centres = np.arange(blocks, dtype=np.float64) * factor + (factor - 1) / 2
    deviation = fine.reshape(-1) - np.interp(kept, centres, means)
    position = (np.arange(blocks * factor) + offset) % day_steps
    profile = np.zeros(day_steps)
    if blocks * factor >= 2 * day_steps:
        counts = np.bincount(position, minlength=day_steps)
        sums = np.bincount(position, weights=deviation, minlength=day_steps)
        squares = np.bincount(position, weights=deviation * deviation, minlength=day_steps)
        profile = np.divide(sums, counts, out=np.zeros(day_steps), where=counts > 0)
        spread = np.divide(squares, counts, out=np.zeros(day_steps), where=counts > 0)
        # Keep only what stands out of the day-to-day noise: each step's mean shrunk by
        # two standard errors (soft threshold), so noise averaged over a few days is not
        # replayed as a shape while a burst every morning is.
        error = np.sqrt(np.maximum(spread - profile * profile, 0.0) / np.maximum(counts - 1, 1))
        profile = np.sign(profile) * np.maximum(np.abs(profile) - 2 * error, 0.0)
    within = float(np.std(deviation - profile[position]))
    return Coarse(factor, day_steps // factor, means, within, count, profile)


def growing(sigma: float, alpha: float, count: int) -> Array:
    """The error of an exponentially smoothed level ``h`` blocks ahead (h = 1..count): the
    one-step error grown as simple exponential smoothing's ``sqrt(1 + alpha^2 (h - 1))``."""
    ahead = np.arange(count, dtype=np.float64)
    return sigma * np.sqrt(1.0 + alpha * alpha * ahead)


def refined(coarse: Coarse, mean: Array, sigma: Array, horizon: int) -> tuple[Array, Array]:
    """A forecast of block means (``mean``/``sigma`` per block, from the block after the
    history on) at the input's step, ``horizon`` values: the mean interpolated between block
    centres, starting from the last observed block, plus the daily profile finer than a
    block; and the level error combined with the within-block spread."""
    factor = coarse.factor
    centres = np.arange(-1, mean.shape[0], dtype=np.float64) * factor + (factor - 1) / 2
    levels = np.concatenate(([coarse.values[-1]], mean))
    fine = np.arange(horizon, dtype=np.float64)
    values = np.interp(fine, centres, levels)
    if coarse.profile.shape[0]:
        positions = (np.arange(horizon) + coarse.length) % coarse.profile.shape[0]
        values = np.maximum(values + coarse.profile[positions], 0.0)
    block_sigma = sigma[np.minimum(np.arange(horizon) // factor, sigma.shape[0] - 1)]
    scale = np.sqrt(block_sigma**2 + coarse.within**2)
    return values.astype(np.float64), scale.astype(np.float64)
