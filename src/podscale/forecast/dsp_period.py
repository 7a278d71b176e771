"""The period detection of Crane's DSP predictor: ``find_period`` of a resampled series.

Crane (``pkg/prediction/dsp``) takes as power threshold the 99th largest periodogram maximum
of 100 random permutations of the series; each frequency of the real series above it hints
a period (its whole number of samples), and a hint counts when the circular
autocorrelation function has a peak there: rising on the left and falling on the right by
least-squares slopes, within four hours on each side. The highest such peak wins.
``podscale.forecast.dsp`` (``fit_dsp``) calls it on the last whole weeks, then days, with a
seeded generator, so the answer is a pure function of its inputs.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Final

import numpy as np

from podscale.forecast.types import Array

__all__ = ["find_period"]

# Crane verifies a candidate period on the autocorrelation function within this many seconds
# on each side of it.
_PEAK_SEARCH_SECONDS: Final = 4 * 3600.0
_PERMUTATIONS: Final = 100


def find_period(samples: Array, interval: timedelta, rng: np.random.Generator) -> int | None:
    """The fundamental period of ``samples`` in samples, or None when no candidate passes."""
    count = len(samples)
    if count < 4 or np.ptp(samples) == 0:
        return None
    shuffled = rng.permuted(np.tile(samples, (_PERMUTATIONS, 1)), axis=1)
    noise = np.abs(np.fft.rfft(shuffled, axis=1))[:, 1 : count // 2].max(axis=1)
    threshold = np.sort(noise)[_PERMUTATIONS - 2]  # the 99th of 100
    power = np.abs(np.fft.rfft(samples))
    hints: list[int] = []
    for k in range(2, count // 2):
        if power[k] > threshold and (not hints or hints[-1] > count // k):
            hints.append(count // k)
    acf = _circular_autocorrelation(samples)
    reach = int(_PEAK_SEARCH_SECONDS / interval.total_seconds())
    best, best_value = None, 0.0
    for hint in hints:
        if _is_peak(acf, hint, min(reach, hint // 2)) and best_value < acf[hint]:
            best, best_value = hint, float(acf[hint])
    return best


def _circular_autocorrelation(samples: Array) -> Array:
    standard = (samples - samples.mean()) / samples.std()
    return np.asarray(
        np.fft.irfft(np.abs(np.fft.rfft(standard)) ** 2, n=len(samples)) / len(samples)
    )


def _is_peak(values: Array, at: int, reach: int) -> bool:
    """Rising on the left of ``at`` and falling on its right, by least-squares slopes."""
    if at < 1 or at > len(values) - 1:
        return False
    left = values[max(0, at - reach) : at + 1]
    right = values[at : min(len(values) - 1, at + reach) + 1]
    return _slope(left) > 0 and _slope(right) < 0


def _slope(points: Array) -> float:
    if len(points) < 2:
        return math.nan
    x = np.arange(len(points), dtype=np.float64)
    x -= x.mean()
    return float(np.dot(x, points - points.mean()) / np.dot(x, x))
