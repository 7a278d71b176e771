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
history gives no forecast and the reason. ``due`` is the refit schedule: a fit is kept for
half a window (at least a minute), so the forecast always covers the window it serves,
and refitted at once when the algorithm or its parameters change. ``controller`` keeps
the fits in memory per EHPA and metric.
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

__all__ = ["Fit", "ForecasterFactory", "default_forecaster", "due", "fit", "parameters"]

JSON = dict[str, Any]
ForecasterFactory = Callable[[str, Mapping[str, Any]], Forecaster]
# Crane's documented defaults for both algorithms' history.
DEFAULT_SAMPLE_INTERVAL: Final = timedelta(minutes=1)
DEFAULT_HISTORY: Final = {"dsp": timedelta(days=3), "percentile": timedelta(days=1)}
MIN_REFIT: Final = timedelta(minutes=1)
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


def default_forecaster(algorithm: str, params: Mapping[str, Any]) -> Forecaster:
    """Crane's two models from ``podscale.forecast`` with the EHPA's parameters (imported
    on first use: the module and its numerics load only when an EHPA predicts). Parameters
    Crane's own validation refuses (a DSP history under 48h, ...) are a ``ForecastError``."""
    name = "percentile" if algorithm == "percentile" else "dsp"
    step = _duration(params.get("sampleInterval"), DEFAULT_SAMPLE_INTERVAL)
    length = _duration(params.get("historyLength"), DEFAULT_HISTORY[name])
    try:
        if name == "dsp":
            from podscale.forecast.dsp import DspForecaster, DspParams

            return DspForecaster(DspParams(sample_interval=step, history_length=length))
        from podscale.forecast.percentile import PercentileForecaster, PercentileParams

        return PercentileForecaster(
            PercentileParams(
                sample_interval=step,
                history_length=length,
                percentile=_fraction(params.get("percentile"), 0.99),
                margin_fraction=_fraction(params.get("marginFraction"), 0.0),
                target_utilization=_fraction(params.get("targetUtilization"), 1.0),
            )
        )
    except ValueError as err:
        raise ForecastError(f"invalid {name} parameters: {err}") from err


def _signature(prediction: Prediction) -> tuple[str, str]:
    algorithm, params, _, _ = parameters(prediction)
    return algorithm, repr(sorted(params.items()))


def due(previous: Fit | None, prediction: Prediction, now: datetime) -> bool:
    """Whether to fit again (see the module docstring)."""
    if previous is None or previous.signature != _signature(prediction):
        return True
    window = timedelta(seconds=prediction.window_seconds or 0)
    return now >= previous.fitted_at + max(window / 2, MIN_REFIT)


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
        forecast = make(algorithm, params).fit(series, horizon)
    except ForecastError as err:
        return Fit(None, now, signature, str(err))
    return Fit(forecast, now, signature)
