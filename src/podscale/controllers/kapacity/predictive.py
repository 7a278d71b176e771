"""The Dynamic provider's Predictive portrait as pure values: a TimeSeries of replicas.

Kapacity's Predictive portrait comes from an external algorithm job (its Python forecaster
on a CronJob) that writes a HorizontalPortrait whose data is a TimeSeries: replicas per
future timestamp. Its dynamic provider offers the latest point not after now, expiring at
the next point (or at the data's expiry), and nothing before the first point, after the
data expired, or for a point of 0 replicas. podscale makes the series in process instead
(``predictive_source`` fits ``podscale.forecast`` on the usage history); this module holds
the parts without I/O:
- ``read_config``: podscale's own knobs in ``algorithm.config`` (``PredictiveConfig``);
- ``per_pod_target``: which history series the provider's first metric forecasts
  (``cpu_usage`` / ``memory_usage``, totals over the target's pods) and what one pod may
  carry, as the HPA reads the target: ``averageUtilization`` percent of the pods' mean
  request, or ``averageValue``;
- ``time_series``: a forecast turned into points the way the HPA formula would
  (``ceil(total / per-pod target)``), each point covering its step plus ``leadTime``;
- ``value_now``: Kapacity's TimeSeries rule, and when the offer changes next.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from podscale.api.quantity import QuantityError, parse_quantity
from podscale.controllers.kapacity.portraits import PortraitValue
from podscale.controllers.kapacity.reading import KapacityError
from podscale.cron import CronError
from podscale.cron.gotime import parse_duration
from podscale.forecast.types import Forecast
from podscale.hpa.pods import calculate_requests
from podscale.hpa.types import MetricError

__all__ = [
    "PredictiveConfig",
    "PredictiveError",
    "TimePoint",
    "TimeSeriesPortrait",
    "per_pod_target",
    "read_config",
    "time_series",
    "value_now",
]

_SERIES: Final = {"cpu": "cpu_usage", "memory": "memory_usage"}
_DURATIONS: Final = {
    "historyLength": "history",
    "sampleInterval": "step",
    "predictionLength": "horizon",
    "refreshInterval": "refresh",
    "leadTime": "lead",
}


class PredictiveError(Exception):
    """No portrait can be made; ``str()`` says why (logged, as the Reactive one)."""


@dataclass(frozen=True, slots=True)
class PredictiveConfig:
    """podscale's knobs (``algorithm.config``; Kapacity's job has its own, not read)."""

    model: str = "auto"  # ``podscale.forecast.select`` backtest, or a FORECASTERS name
    history: dt.timedelta = dt.timedelta(days=7)  # historyLength: what the model reads
    step: dt.timedelta = dt.timedelta(minutes=10)  # sampleInterval: series and point step
    horizon: dt.timedelta = dt.timedelta(days=1)  # predictionLength: how far points reach
    refresh: dt.timedelta = dt.timedelta(hours=1)  # refreshInterval: how often to refit
    lead: dt.timedelta = dt.timedelta(0)  # leadTime: a point also covers this much after
    quantile: float = 0.5  # the forecast quantile read at each step


@dataclass(frozen=True, slots=True)
class TimePoint:
    timestamp: dt.datetime
    replicas: int


@dataclass(frozen=True, slots=True)
class TimeSeriesPortrait:
    points: tuple[TimePoint, ...]  # in time order
    expire_time: dt.datetime | None = None


def read_config(config: Mapping[str, Any] | None, path: str) -> PredictiveConfig:
    """``algorithm.config`` (string values, as Kapacity's map) read; unknown keys ignored."""
    values: dict[str, Any] = {}
    for key, value in (config or {}).items():
        at = f"{path}.{key}"
        if key == "model":
            values["model"] = str(value)
        elif key in _DURATIONS:
            try:
                duration = dt.timedelta(microseconds=parse_duration(str(value), at) // 1000)
            except CronError as error:
                raise KapacityError(f"{at}: {error.message}") from None
            if duration < dt.timedelta(0) or (key != "leadTime" and not duration):
                raise KapacityError(f"{at}: must be positive, got {value!r}")
            values[_DURATIONS[key]] = duration
        elif key == "quantile":
            try:
                quantile = float(value)
            except (TypeError, ValueError):
                quantile = math.nan
            if not 0.0 < quantile < 1.0:
                raise KapacityError(f"{at}: must be a number in (0, 1), got {value!r}")
            values["quantile"] = quantile
    return PredictiveConfig(**values)


def _quantity(value: Any, what: str) -> float:
    try:
        return parse_quantity(value).as_approximate_float()
    except (QuantityError, ValueError, TypeError):
        raise PredictiveError(f"invalid {what} {value!r}") from None


def per_pod_target(
    metric: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]
) -> tuple[str, float]:
    """The history series ``metric`` forecasts and one pod's share of it at the target."""
    kind = str(metric.get("type") or "")
    source = metric.get("resource") if kind == "Resource" else None
    if not isinstance(source, Mapping) or source.get("name") not in _SERIES:
        raise PredictiveError(
            f"the Predictive portrait forecasts Resource cpu or memory metrics only, got {kind!r}"
        )
    resource = str(source["name"])
    target = source.get("target") or {}
    if target.get("type") == "AverageValue" and target.get("averageValue") is not None:
        share = _quantity(target["averageValue"], "averageValue")
    elif target.get("type") == "Utilization" and target.get("averageUtilization") is not None:
        if not pods:
            raise PredictiveError("no pods to read the requests of")
        try:
            requests = calculate_requests(pods, "", resource)
        except MetricError as err:
            raise PredictiveError(str(err)) from None
        mean = sum(requests.values()) / len(requests) / 1000
        share = mean * int(target["averageUtilization"]) / 100
    else:
        raise PredictiveError(f"unsupported target {dict(target)!r} for the Predictive portrait")
    if share <= 0:
        raise PredictiveError(f"the per-pod target of {resource} is not positive")
    return _SERIES[resource], share


def time_series(
    forecast: Forecast, share: float, start: dt.datetime, config: PredictiveConfig
) -> TimeSeriesPortrait:
    """Points every ``config.step`` from ``start`` over ``config.horizon``: the replicas
    for the highest demand over the point's step and lead (at least 1: Kapacity offers
    nothing for 0). Steps the forecast does not reach are left out."""
    points: list[TimePoint] = []
    at = start
    while at < start + config.horizon:
        peak = forecast.max_between(at, at + config.step + config.lead, config.quantile)
        if peak is not None:
            # The HPA formula's ceil, spared float noise just above a whole number.
            replicas = max(1, math.ceil(round(peak / share, 9)))
            points.append(TimePoint(at, replicas))
        at += config.step
    end = points[-1].timestamp + config.step if points else None
    return TimeSeriesPortrait(tuple(points), end)


def value_now(
    portrait: TimeSeriesPortrait, provider: str, now: dt.datetime
) -> tuple[PortraitValue | None, dt.datetime | None]:
    """Kapacity's TimeSeries rule: the latest point not after ``now``, expiring at the next
    point or the data's expiry; and when the offer changes next."""
    expire = portrait.expire_time
    if expire is not None and now >= expire:
        return None, None
    for index in range(len(portrait.points) - 1, -1, -1):
        point = portrait.points[index]
        if point.timestamp > now:
            continue
        if index + 1 < len(portrait.points):
            upcoming = portrait.points[index + 1].timestamp
            expire = upcoming if expire is None else min(expire, upcoming)
        return PortraitValue(provider, point.replicas, expire), expire
    first = portrait.points[0].timestamp if portrait.points else None
    return None, first if first is None or expire is None else min(first, expire)
