"""Fitting an EffectiveHorizontalPodAutoscaler's forecasts, on a schedule.

Crane's TimeSeriesPrediction reads a workload's metric over ``historyLength`` at
``sampleInterval`` and forecasts it with the EHPA's algorithm (``dsp`` or ``percentile``);
its metric adapter then serves the largest predicted value of the next
``predictionWindowSeconds``. Here the history is the store's (``podscale.history``: the
usage recorder's ``cpu_usage`` / ``memory_usage`` of the target, total over its pods) and
the models are ``podscale.forecast.dsp.DspForecaster`` and
``podscale.forecast.percentile.PercentileForecaster``, imported when first used (so the
controller loads without numpy-heavy modules, and before those modules exist).

``fit`` is one fit: history read, model fitted ``2 x window`` ahead; a short or unusable
history gives no forecast and the reason. ``due`` is the refit schedule, Crane's: its
TimeSeriesPrediction controller predicts twice the window ahead and predicts again once
the stored prediction no longer covers ``[now, now + window]``, i.e. a window after the
fit (at least a minute here), and at once when the algorithm or its parameters change.
``publishing.Publisher`` keeps the fits in memory per EHPA and metric.

Both models read ``historyLength`` of history, by default a week: the default of Crane's
DSP and percentile configurations (a DSP block whose history cannot be parsed falls back
to it there). The percentile model's histogram is Crane's ``histogram`` block:
exponential buckets with ``firstBucketSize``, ``bucketSizeGrowthRatio`` and ``maxValue``,
linear ones with ``bucketSize`` and ``maxValue``, else Crane's linear default (0.1 wide up
to 100), which suits cores but cannot hold bytes: so a memory series without a histogram
block gets exponential buckets (``MEMORY_HISTOGRAM``, the Vertical Pod Autoscaler's for
memory: 10 MB first, 5% growth, up to 1 TB).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.durations import DurationError, parse_go_duration
from podscale.controllers.ehpa.types import Prediction
from podscale.forecast.types import Forecast, Forecaster, ForecastError, Series
from podscale.history import SeriesKey, SeriesReader

__all__ = [
    "Fit",
    "ForecasterFactory",
    "default_forecaster",
    "due",
    "fit",
    "model_parameters",
    "parameters",
]

JSON = dict[str, Any]
ForecasterFactory = Callable[[str, Mapping[str, Any]], Forecaster]
# Crane's defaults for both algorithms (their defaultInternalConfig).
DEFAULT_SAMPLE_INTERVAL: Final = timedelta(minutes=1)
DEFAULT_HISTORY: Final = {"dsp": timedelta(days=7), "percentile": timedelta(days=7)}
DEFAULT_HALF_LIFE: Final = timedelta(hours=24)
MIN_REFIT: Final = timedelta(minutes=1)
# The histogram a percentile forecast of bytes gets when the EHPA sets none.
MEMORY_HISTOGRAM: Final[Mapping[str, str]] = {
    "maxValue": "1e12",
    "firstBucketSize": "1e7",
    "bucketSizeGrowthRatio": "0.05",
}
BYTES_SERIES: Final = frozenset({"memory_usage"})
_DAYS = re.compile(r"^(\d+(?:\.\d+)?)d$")


@dataclass(frozen=True, slots=True)
class Fit:
    """One fit of one metric: the forecast, or why there is none."""

    forecast: Forecast | None
    fitted_at: datetime
    signature: tuple[str, str]  # the algorithm and its parameters, to see them change
    reason: str = ""


def _duration(text: Any, default: timedelta) -> timedelta:
    if not text:
        return default
    days = _DAYS.match(str(text))
    if days:
        return timedelta(days=float(days.group(1)))
    try:
        value = parse_go_duration(str(text))
    except DurationError:
        return default
    return value if value > timedelta(0) else default


def parameters(prediction: Prediction) -> tuple[str, Mapping[str, Any], timedelta, timedelta]:
    """The algorithm, its parameters, the sample interval and the history length."""
    algorithm = prediction.algorithm or "dsp"
    params = prediction.dsp if algorithm == "dsp" else prediction.percentile
    step = _duration(params.get("sampleInterval"), DEFAULT_SAMPLE_INTERVAL)
    length = _duration(params.get("historyLength"), DEFAULT_HISTORY.get(algorithm, timedelta(1)))
    return algorithm, params, step, length


def _fraction(value: Any, default: float) -> float:
    try:
        return default if value in (None, "") else float(value)
    except (TypeError, ValueError):
        return default


def _buckets(histogram: Mapping[str, Any]) -> Any:
    """The percentile histogram's buckets as Crane reads its ``histogram`` block (None:
    the model's default, Crane's linear one)."""
    from podscale.forecast.percentile import ExponentialBuckets, LinearBuckets

    epsilon = _fraction(histogram.get("epsilon"), 1e-10)
    maximum = histogram.get("maxValue")
    if maximum and histogram.get("firstBucketSize") and histogram.get("bucketSizeGrowthRatio"):
        return ExponentialBuckets(
            max_value=float(maximum),
            first_bucket_size=float(histogram["firstBucketSize"]),
            # Crane's field is the growth (0.05), VPA's option the ratio (1.05).
            ratio=1.0 + float(histogram["bucketSizeGrowthRatio"]),
            epsilon=epsilon,
        )
    if maximum and histogram.get("bucketSize"):
        return LinearBuckets(float(maximum), float(histogram["bucketSize"]), epsilon)
    return None


def default_forecaster(algorithm: str, params: Mapping[str, Any]) -> Forecaster:
    """Crane's two models from ``podscale.forecast`` with the EHPA's parameters (imported
    on first use: the module and its numerics load only when an EHPA predicts). Parameters
    Crane's own validation refuses (a DSP history under 48h, a histogram that does not
    parse, ...) are a ``ForecastError``."""
    name = "percentile" if algorithm == "percentile" else "dsp"
    step = _duration(params.get("sampleInterval"), DEFAULT_SAMPLE_INTERVAL)
    length = _duration(params.get("historyLength"), DEFAULT_HISTORY[name])
    try:
        if name == "dsp":
            from podscale.forecast.dsp import DspForecaster, DspParams

            return DspForecaster(DspParams(sample_interval=step, history_length=length))
        from podscale.forecast.percentile import PercentileForecaster, PercentileParams

        histogram: Mapping[str, Any] = params.get("histogram") or {}
        buckets = _buckets(histogram)
        return PercentileForecaster(
            PercentileParams(
                sample_interval=step,
                history_length=length,
                half_life=_duration(histogram.get("halfLife"), DEFAULT_HALF_LIFE),
                min_sample_weight=_fraction(params.get("minSampleWeight"), 1e-5),
                percentile=_fraction(params.get("percentile"), 0.99),
                margin_fraction=_fraction(params.get("marginFraction"), 0.0),
                target_utilization=_fraction(params.get("targetUtilization"), 1.0),
                **({"buckets": buckets} if buckets is not None else {}),
            )
        )
    except (ValueError, TypeError) as err:
        raise ForecastError(f"invalid {name} parameters: {err}") from err


def _signature(prediction: Prediction) -> tuple[str, str]:
    algorithm, params, _, _ = parameters(prediction)
    return algorithm, repr(sorted(params.items()))


def due(previous: Fit | None, prediction: Prediction, now: datetime) -> bool:
    """Whether to fit again (see the module docstring)."""
    if previous is None or previous.signature != _signature(prediction):
        return True
    window = timedelta(seconds=prediction.window_seconds or 0)
    return now >= previous.fitted_at + max(window, MIN_REFIT)


def model_parameters(algorithm: str, params: Mapping[str, Any], series: str) -> JSON:
    """The parameters handed to the model for ``series``: the EHPA's, plus the bytes
    histogram for a percentile forecast of memory when the EHPA sets no histogram."""
    out = dict(params)
    if algorithm == "percentile" and series in BYTES_SERIES and not out.get("histogram"):
        out["histogram"] = dict(MEMORY_HISTOGRAM)
    return out


def fit(
    history: SeriesReader,
    key: SeriesKey,
    prediction: Prediction,
    now: datetime,
    make: ForecasterFactory = default_forecaster,
) -> Fit:
    """Fit ``key``'s history up to ``now`` (see the module docstring)."""
    signature = _signature(prediction)
    algorithm, params, step, length = parameters(prediction)
    end = now - (now - datetime.min.replace(tzinfo=now.tzinfo)) % step
    start = end - length
    points = history.read(key, start, end, step)
    if not points:
        return Fit(None, now, signature, f"no history of {key.text()}")
    series = Series.from_points([(p.at, p.value) for p in points], start=start, end=end, step=step)
    window = timedelta(seconds=prediction.window_seconds or 0)
    horizon = max(1, math.ceil(2 * window / step) + 1)
    try:
        forecast = make(algorithm, model_parameters(algorithm, params, key.series)).fit(
            series, horizon
        )
    except ForecastError as err:
        return Fit(None, now, signature, str(err))
    return Fit(forecast, now, signature)
