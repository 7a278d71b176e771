"""Crane's percentile predictor as a pure ``Forecaster``: one value, held for the horizon.

Crane (gocrane/crane, ``pkg/prediction/percentile``) feeds every sample of the history into
the Vertical Pod Autoscaler's histogram (``vertical-pod-autoscaler/pkg/recommender/util``),
each weighted by its own value (at least ``min_sample_weight``) and, with a half-life, by
``2 ** ((t - reference) / half_life)`` so recent samples count more. The prediction is the
histogram's ``percentile`` (the end of the bucket where the cumulated weight reaches it),
times ``1 + margin_fraction``, divided by ``target_utilization``.

Buckets are VPA's: ``LinearBuckets`` (Crane's default: 0.1 wide up to 100) or
``ExponentialBuckets`` (first size and growth ratio, as a Crane config may set them); values
beyond the maximum fall into the last bucket. A series finer than ``sample_interval`` is
averaged over it first (as Crane queries history at that step); missing steps (NaN) are not
samples.
Neighbours: ``podscale.forecast.types`` (values, protocol) and ``podscale.forecast.dsp``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
import numpy.typing as npt

from podscale.forecast.dsp import resample
from podscale.forecast.types import Array, Forecast, ForecastError, Series

__all__ = [
    "ExponentialBuckets",
    "LinearBuckets",
    "PercentileForecaster",
    "PercentileParams",
    "decaying_percentile",
]


@dataclass(frozen=True, slots=True)
class LinearBuckets:
    """``ceil(max_value / bucket_size) + 1`` buckets of equal size from 0."""

    max_value: float = 100.0
    bucket_size: float = 0.1
    epsilon: float = 1e-10

    def __post_init__(self) -> None:
        if self.max_value <= 0 or self.bucket_size <= 0 or self.epsilon <= 0:
            raise ValueError("max_value, bucket_size and epsilon must be positive")

    @property
    def count(self) -> int:
        return math.ceil(self.max_value / self.bucket_size) + 1

    def find(self, values: Array) -> npt.NDArray[np.int64]:
        return np.clip((values / self.bucket_size).astype(np.int64), 0, self.count - 1)

    def start(self, bucket: int) -> float:
        return bucket * self.bucket_size


@dataclass(frozen=True, slots=True)
class ExponentialBuckets:
    """Buckets from 0 whose sizes grow by ``ratio`` from ``first_bucket_size``."""

    max_value: float
    first_bucket_size: float
    ratio: float
    epsilon: float = 1e-10

    def __post_init__(self) -> None:
        if self.max_value <= 0 or self.first_bucket_size <= 0 or self.epsilon <= 0:
            raise ValueError("max_value, first_bucket_size and epsilon must be positive")
        if self.ratio <= 1.0:
            raise ValueError("ratio must be greater than 1")

    @property
    def count(self) -> int:
        growth = self.max_value * (self.ratio - 1) / self.first_bucket_size + 1
        return math.ceil(math.log(growth) / math.log(self.ratio)) + 1

    def find(self, values: Array) -> npt.NDArray[np.int64]:
        clipped = np.maximum(values, 0.0)
        growth = clipped * (self.ratio - 1) / self.first_bucket_size + 1
        buckets = np.floor(np.log(growth) / math.log(self.ratio)).astype(np.int64)
        buckets = np.where(values < self.first_bucket_size, 0, buckets)
        return np.clip(buckets, 0, self.count - 1)

    def start(self, bucket: int) -> float:
        if bucket == 0:
            return 0.0
        return self.first_bucket_size * (self.ratio**bucket - 1) / (self.ratio - 1)


Buckets = LinearBuckets | ExponentialBuckets


@dataclass(frozen=True, slots=True)
class PercentileParams:
    """Crane's percentile configuration with its defaults (``percentile/config.go``)."""

    sample_interval: timedelta = timedelta(minutes=1)
    history_length: timedelta = timedelta(days=7)
    buckets: Buckets = LinearBuckets()
    # None: a plain histogram, every sample weighs its value whatever its age.
    half_life: timedelta | None = timedelta(hours=24)
    min_sample_weight: float = 1e-5
    percentile: float = 0.99
    margin_fraction: float = 0.0
    target_utilization: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.percentile <= 1.0:
            raise ValueError(f"percentile must be in [0, 1], got {self.percentile}")
        if self.target_utilization <= 0:
            raise ValueError("targetUtilization must be positive")
        if self.half_life is not None and self.half_life <= timedelta(0):
            raise ValueError("half-life must be positive")
        if self.sample_interval <= timedelta(0) or self.history_length <= timedelta(0):
            raise ValueError("sampleInterval and historyLength must be positive")


def decaying_percentile(values: Array, ages: Array, params: PercentileParams) -> float:
    """The histogram percentile of ``values`` (no NaN), ``ages`` in seconds before the newest.

    Raises ``ForecastError`` when the histogram is empty (no weight above epsilon)."""
    buckets = params.buckets
    weights = np.maximum(values, params.min_sample_weight)
    if params.half_life is not None:
        # Relative to the newest sample: VPA's reference time only scales every weight alike.
        weights = weights * np.exp2(-ages / params.half_life.total_seconds())
    per_bucket = np.bincount(buckets.find(values), weights=weights, minlength=buckets.count)
    # VPA ignores buckets lighter than epsilon at either end of the histogram.
    heavy = np.flatnonzero(per_bucket >= buckets.epsilon)
    if len(heavy) == 0:
        raise ForecastError("the history's histogram is empty")
    first, last = int(heavy[0]), int(heavy[-1])
    threshold = params.percentile * float(per_bucket.sum())
    reached = np.flatnonzero(np.cumsum(per_bucket[first:last]) >= threshold)
    bucket = first + int(reached[0]) if len(reached) else last
    # The bucket's end, except for the last bucket, which has none.
    return buckets.start(bucket + 1) if bucket < buckets.count - 1 else buckets.start(bucket)


class PercentileForecaster:
    """``Forecaster`` over Crane's percentile predictor: constant, no error scale."""

    def __init__(self, params: PercentileParams = PercentileParams()) -> None:
        self._params = params

    @property
    def name(self) -> str:
        return "percentile"

    @property
    def params(self) -> PercentileParams:
        return self._params

    def fit(self, history: Series, horizon: int) -> Forecast:
        if horizon < 0:
            raise ValueError(f"horizon must not be negative, got {horizon}")
        values, interval = resample(history, self._params.sample_interval)
        values = values[-math.ceil(self._params.history_length / interval) :]
        present = np.flatnonzero(~np.isnan(values))
        if len(present) == 0:
            raise ForecastError("no samples in the history")
        ages = (present[-1] - present) * interval.total_seconds()
        estimate = decaying_percentile(values[present], ages.astype(np.float64), self._params)
        value = estimate * (1 + self._params.margin_fraction) / self._params.target_utilization
        return Forecast(
            model=self.name,
            start=history.end,
            step=history.step,
            mean=np.full(horizon, value),
            scale=np.zeros(horizon),
        )
