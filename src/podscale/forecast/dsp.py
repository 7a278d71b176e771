"""Crane's DSP predictor as a pure ``Forecaster``: one day or one week, repeated ahead.

Crane (gocrane/crane, ``pkg/prediction/dsp``) predicts a periodic series in four steps, which
``fit_dsp`` follows:

1. preprocessing: resample to ``sample_interval``, keep the last ``history_length`` (plus the
   hour Crane adds), drop everything before a gap longer than an hour, fill shorter gaps by
   linear interpolation, keep a whole number of hours, and replace extreme outliers (above the
   99.9th or below the 0.1th percentile) by the previous sample;
2. period detection (``dsp_period.find_period``): the periodogram of 100 random permutations
   sets a power threshold (their 99th largest maximum); the frequencies of the real series
   above it are candidate periods, verified on the circular autocorrelation function (a peak,
   found by linear regression on each side) and the highest peak wins. Only a day or a week counts:
   the weekly test runs on the last whole weeks when two or more are held, then the daily one;
3. estimation: every configured estimator (``MaxValueEstimator``, ``FftEstimator``) predicts
   the last period from the ones before it, and the least error wins (Crane's MAPE that
   amplifies under-prediction, MAE when an actual value is near zero);
4. the winner predicts the period after the history, repeated as far as ``horizon`` reaches.

Crane's random permutations are seeded here (``DspParams.seed``) so a fit is a pure function.
Neighbours: ``podscale.forecast.types`` (``Series``, ``Forecast``, ``ForecastError``),
``podscale.forecast.percentile`` (Crane's other predictor); the EHPA controller calls both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import timedelta

import numpy as np

from podscale.forecast.dsp_period import find_period
from podscale.forecast.types import Array, Forecast, ForecastError, HistoryTooShort, Series

__all__ = [
    "DAY",
    "DEFAULT_ESTIMATORS",
    "WEEK",
    "DspFit",
    "DspForecaster",
    "DspParams",
    "FftEstimator",
    "MaxValueEstimator",
    "find_period",
    "fit_dsp",
    "prediction_error",
    "preprocess",
    "resample",
]

DAY = timedelta(days=1)
WEEK = timedelta(days=7)
_HOUR_SECONDS = 3600.0
# Crane floors an FFT estimate at this value before its margin.
_FFT_MIN_VALUE = 0.01


@dataclass(frozen=True, slots=True)
class MaxValueEstimator:
    """Each step of the next period is the highest value at that step over all past periods,
    times ``1 + margin_fraction``."""

    margin_fraction: float = 0.0

    def estimate(self, samples: Array, per_cycle: int) -> Array:
        cycles = samples[len(samples) - (len(samples) // per_cycle) * per_cycle :]
        peak = cycles.reshape(-1, per_cycle).max(axis=0)
        return np.asarray(peak * (1.0 + self.margin_fraction), dtype=np.float64)


@dataclass(frozen=True, slots=True)
class FftEstimator:
    """The last period of the series with its high-frequency, low-amplitude components
    removed, floored at 0.01, times ``1 + margin_fraction``. Crane's field defaults."""

    min_spectrum_items: int = 3
    max_spectrum_items: int = 100
    high_frequency_threshold: float = 1.0 / 3600.0  # Hz: components of periods under 1h
    low_amplitude_threshold: float = 1.0
    margin_fraction: float = 0.0

    def estimate(self, samples: Array, per_cycle: int, sample_rate: float) -> Array:
        count = len(samples)
        spectrum = np.fft.fft(samples)
        amplitudes = np.abs(spectrum) / count
        # A real series' conjugate bins have equal amplitudes; take them from the first half
        # so rounding cannot put a bin and its mirror on two sides of the floor below.
        amplitudes[count // 2 + 1 :] = amplitudes[1 : (count + 1) // 2][::-1]
        frequencies = np.arange(count) * sample_rate / count
        ranked = np.sort(amplitudes[1 : count // 2])[::-1]
        if len(ranked) == 0:
            return np.asarray(samples[-per_cycle:] * (1.0 + self.margin_fraction))
        # The amplitude a component needs to survive: that of the max-th largest, at least
        # the low threshold, but never more than the min-th largest (so it keeps that many).
        floor = ranked[min(self.max_spectrum_items, len(ranked)) - 1]
        floor = max(floor, self.low_amplitude_threshold)
        if len(ranked) >= self.min_spectrum_items:
            floor = min(floor, ranked[self.min_spectrum_items - 1])
        # As Crane does, over the whole (two-sided) spectrum with k*rate/N as each bin's
        # frequency, so a weak low-frequency component keeps only one of its conjugate pair.
        spectrum[(amplitudes < floor) & (frequencies > self.high_frequency_threshold)] = 0
        smoothed = np.fft.ifft(spectrum).real[count - per_cycle :]
        smoothed = np.where(smoothed <= 0.0, _FFT_MIN_VALUE, smoothed)
        return np.asarray(smoothed * (1.0 + self.margin_fraction), dtype=np.float64)


Estimator = MaxValueEstimator | FftEstimator

# Crane's default estimators (``pkg/prediction/dsp/config.go``): FFT only, two smoothing
# levels, four margins each. A max-value estimator is used only when configured.
DEFAULT_ESTIMATORS: tuple[Estimator, ...] = tuple(
    FftEstimator(min_spectrum_items=items, low_amplitude_threshold=low, margin_fraction=margin)
    for items, low in ((3, 1.0), (50, 0.05))
    for margin in (0.01, 0.10, 0.15, 0.20)
)


@dataclass(frozen=True, slots=True)
class DspParams:
    """Crane's DSP configuration (``spec.prediction...dsp``) with its defaults."""

    sample_interval: timedelta = timedelta(minutes=1)
    history_length: timedelta = timedelta(days=15)
    estimators: tuple[Estimator, ...] = DEFAULT_ESTIMATORS
    # The periods tried, longest first (Crane: a week, then a day).
    periods: tuple[timedelta, ...] = (WEEK, DAY)
    seed: int = 0

    def __post_init__(self) -> None:
        # Crane's validation of a DSP config.
        if not timedelta(0) < self.sample_interval <= timedelta(hours=1):
            raise ValueError("sampleInterval must be positive and at most 1h")
        if self.history_length < timedelta(hours=48):
            raise ValueError("historyLength is too short: at least 48h")
        if not self.estimators:
            raise ValueError("at least one estimator is required")
        if not self.periods or any(p <= timedelta(0) for p in self.periods):
            raise ValueError("periods must be positive, at least one")


@dataclass(frozen=True, slots=True)
class DspFit:
    """What ``fit_dsp`` found: the period, the chosen estimator and the next period's values
    (at ``interval``, starting ``lag`` intervals before the end of the series)."""

    period: timedelta
    interval: timedelta
    estimator: Estimator
    cycle: Array = field(compare=False)
    errors: tuple[float, ...]
    holdout_mae: float
    lag: int


def preprocess(history: Series, params: DspParams) -> tuple[Array, timedelta, int]:
    """The cleaned samples, their interval, and how many intervals after the last sample
    the series ends (trailing missing steps). Raises ``ForecastError`` when none is left."""
    values, interval = resample(history, params.sample_interval)
    keep = math.ceil((params.history_length + timedelta(hours=1)) / interval)
    values = values[-keep:]
    valid = np.flatnonzero(~np.isnan(values))
    if len(valid) == 0:
        raise ForecastError("no samples in the history")
    # Crane keeps only what follows the last gap longer than an hour.
    gaps = np.flatnonzero(np.diff(valid) * interval.total_seconds() > _HOUR_SECONDS)
    if len(gaps):
        valid = valid[gaps[-1] + 1 :]
    lag = len(values) - 1 - int(valid[-1])
    span = np.arange(valid[0], valid[-1] + 1)
    filled = np.interp(span, valid, values[valid])
    per_hour = max(1, round(timedelta(hours=1) / interval))
    filled = filled[len(filled) % per_hour :]
    if len(filled) == 0:
        raise HistoryTooShort("less than an hour of contiguous history")
    return _remove_outliers(filled), interval, lag


def resample(history: Series, interval: timedelta) -> tuple[Array, timedelta]:
    """Means over ``interval`` blocks aligned on the series end, when the series is finer
    and ``interval`` a multiple of its step; the series as it is otherwise."""
    ratio = interval / history.step
    if ratio <= 1 or ratio != int(ratio):
        return np.asarray(history.values, dtype=np.float64), history.step
    size = int(ratio)
    blocks = len(history) // size
    shaped = history.values[len(history) - blocks * size :].reshape(blocks, size)
    counts = np.sum(~np.isnan(shaped), axis=1)
    sums = np.nansum(shaped, axis=1)
    means = np.divide(sums, counts, out=np.full(blocks, np.nan), where=counts > 0)
    return means, interval


def _remove_outliers(values: Array) -> Array:
    """Each sample above P99.9 or below P0.1 takes the value of the sample before it (the
    first sample is kept), as Crane's sequential replacement does."""
    high, low = np.percentile(values, [99.9, 0.1])
    index = np.arange(len(values))
    outlier = (values > high) | (values < low)
    outlier[0] = False
    source = np.maximum.accumulate(np.where(outlier, 0, index))
    return np.asarray(values[source], dtype=np.float64)


def prediction_error(actual: Array, predicted: Array) -> float:
    """Crane's accuracy measure: mean absolute percentage error in which an under-prediction
    of fraction x counts -ln(1-x)/ln(1.25); mean absolute error when an actual is < 1e-3."""
    if np.any(actual < 1e-3):
        return float(np.mean(np.abs(actual - predicted)))
    relative = (actual - predicted) / actual
    with np.errstate(divide="ignore"):
        under = -np.log1p(-np.minimum(relative, 1.0)) / math.log(1.25)
    return float(np.mean(np.where(predicted < actual, under, -relative)))


def _estimate(estimator: Estimator, samples: Array, per_cycle: int, interval: timedelta) -> Array:
    if isinstance(estimator, MaxValueEstimator):
        return estimator.estimate(samples, per_cycle)
    return estimator.estimate(samples, per_cycle, 1.0 / interval.total_seconds())


def fit_dsp(history: Series, params: DspParams) -> DspFit:
    """Crane's DSP on ``history``; ``ForecastError`` when no daily or weekly period is found."""
    samples, interval, lag = preprocess(history, params)
    rng = np.random.default_rng(params.seed)
    for period in params.periods:
        per_cycle = round(period / interval)
        cycles = len(samples) // per_cycle
        if per_cycle * interval != period or cycles < 2:
            continue
        found = find_period(samples[len(samples) - cycles * per_cycle :], interval, rng)
        if found is None:
            continue
        detected = found * interval
        if detected in params.periods and detected <= period:
            return _choose(samples, interval, detected, lag, params)
    raise ForecastError(
        "no daily or weekly period found in the history "
        f"({len(samples) * interval / DAY:.1f} days after preprocessing)"
    )


def _choose(
    samples: Array, interval: timedelta, period: timedelta, lag: int, params: DspParams
) -> DspFit:
    per_cycle = round(period / interval)
    cycles = len(samples) // per_cycle
    signal = samples[len(samples) - cycles * per_cycle :]
    past, actual = signal[:-per_cycle], signal[-per_cycle:]
    errors = tuple(
        prediction_error(actual, _estimate(e, past, per_cycle, interval)) for e in params.estimators
    )
    finite = [i for i, error in enumerate(errors) if math.isfinite(error)]
    if not finite:
        raise ForecastError("no estimator could predict the hold-out period")
    best = min(finite, key=lambda i: errors[i])  # the first of equals, as Crane's strict <
    chosen = params.estimators[best]
    mae = float(np.mean(np.abs(actual - _estimate(chosen, past, per_cycle, interval))))
    cycle = _estimate(chosen, signal, per_cycle, interval)
    return DspFit(period, interval, chosen, cycle, errors, mae, lag)


class DspForecaster:
    """``Forecaster`` over Crane's DSP: the next period, repeated ``horizon`` steps ahead."""

    def __init__(self, params: DspParams = DspParams()) -> None:
        self._params = params

    @property
    def name(self) -> str:
        return "dsp"

    @property
    def params(self) -> DspParams:
        return self._params

    def fit(self, history: Series, horizon: int) -> Forecast:
        if horizon < 0:
            raise ValueError(f"horizon must not be negative, got {horizon}")
        result = fit_dsp(history, self._params)
        # The estimate starts right after the last sample used (``lag`` intervals before the
        # series end); map each output step (at the input's step) onto it, cyclically.
        offsets = np.arange(horizon) * (history.step / result.interval)
        index = np.floor(offsets).astype(np.int64) + result.lag
        mean = result.cycle[index % len(result.cycle)].astype(np.float64)
        return Forecast(
            model=self.name,
            start=history.end,
            step=history.step,
            mean=mean,
            scale=np.zeros(horizon),
            backtest_error=result.holdout_mae,
        )
