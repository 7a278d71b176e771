"""The PredictiveHorizontalPodAutoscaler's pure decisions: forecast in, replicas out.

``controller`` (the shell) reads history, fits a model on the refresh schedule and calls
these each sync; ``podscale.hpa.decide`` then combines the proactive count with the HPA's
own (``podscale.hpa.predictive``). Here:

- ``forecast_metrics``: which ``spec.metrics`` a forecast serves (``types.forecastable``),
  the history series that holds each one's workload total (written by
  ``controllers.usagehistory``: ``cpu_usage``/``memory_usage`` for resources,
  ``metric_total/<index>/<name>`` for Pods/Object/External) and the per-pod target that
  turns a total into replicas;
- ``proactive_replicas`` and ``limit_scale_down``: demand to replicas, and how far below the
  current count the forecast alone may go in one sync;
- ``lead_time``: how far ahead to provision, measured from the target's pods;
- ``prediction_status`` and ``prediction_condition``: the status block and the
  ``PredictionReady`` condition.

The spec comes read by ``types.parse_phpa`` (defaults applied); the window whose bounds
apply now comes from ``schedules.active_bounds``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.quantity import QuantityError, parse_quantity
from podscale.api.quantity_format import format_milli
from podscale.api.timestamps import parse_time
from podscale.controllers.phpa.types import forecastable, metric_name
from podscale.controllers.usagehistory.points import CPU_USAGE, MEMORY_USAGE, METRIC_TOTAL
from podscale.hpa.conditions import format_time

__all__ = [
    "CONDITION",
    "DEFAULT_STARTUP",
    "REASON_AVAILABLE",
    "REASON_NOT_FORECASTABLE",
    "REASON_NO_MODEL",
    "REASON_TOO_SHORT",
    "REASON_UNAVAILABLE",
    "ForecastMetric",
    "forecast_metrics",
    "lead_time",
    "limit_scale_down",
    "prediction_condition",
    "prediction_status",
    "proactive_replicas",
    "startup_durations",
]

JSON = dict[str, Any]
CONDITION: Final = "PredictionReady"
REASON_AVAILABLE: Final = "ForecastAvailable"
REASON_TOO_SHORT: Final = "HistoryTooShort"
REASON_NO_MODEL: Final = "NoModelBeatsNaive"
REASON_NOT_FORECASTABLE: Final = "MetricNotForecastable"
REASON_UNAVAILABLE: Final = "HistoryUnavailable"
# When no pod of the target has been seen becoming Ready: a typical container start.
DEFAULT_STARTUP: Final = timedelta(seconds=90)
# Lead time from the slowest of the recent starts, not the mean: provisioning late costs
# more than a pod early. The nearest-rank 90th percentile of the last 20 ignores one
# outlier (a pod that waited for a node) without following it.
_RECENT_PODS: Final = 20
_RESOURCE_SERIES: Final = {"cpu": CPU_USAGE, "memory": MEMORY_USAGE}
_STARTUP_PERCENTILE: Final = 0.9


@dataclass(frozen=True, slots=True)
class ForecastMetric:
    """One forecastable ``spec.metrics[index]``: ``series`` holds its workload total
    (``cpu_usage`` in cores, ``memory_usage`` in bytes, else ``metric_total/<index>/<name>``:
    the status' per-pod average times its replicas, not the average itself, which moves with
    the replicas the autoscaler chose) and ``per_pod_target`` is what one pod may carry at
    the target, in that unit."""

    index: int
    name: str
    series: str
    per_pod_target: float


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _quantity(value: Any) -> float | None:
    try:
        return parse_quantity(value).milli_value() / 1000.0
    except (QuantityError, TypeError, ValueError):
        return None


def _pod_request(pod: Mapping[str, Any], resource: str, container: str | None) -> float | None:
    """A pod's request of ``resource`` (of one container, or all), None when any lacks one."""
    total = 0.0
    containers = [
        c
        for c in _mapping(pod.get("spec")).get("containers") or ()
        if container is None or c.get("name") == container
    ]
    if not containers:
        return None
    for c in containers:
        value = _quantity(_mapping(_mapping(c.get("resources")).get("requests")).get(resource))
        if value is None:
            return None
        total += value
    return total


def _request(pods: Sequence[Mapping[str, Any]], resource: str, container: str | None) -> float:
    # The pods share a template; the largest request is the safe one while a rollout mixes two.
    requests = [_pod_request(p, resource, container) for p in pods]
    found = [r for r in requests if r is not None and r > 0]
    return max(found) if found else 0.0


def _one(
    index: int, metric: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]
) -> ForecastMetric | None:
    if not forecastable(metric):
        return None
    kind, name = str(metric.get("type") or ""), metric_name(metric)
    source = _mapping(metric.get(kind[:1].lower() + kind[1:]))
    target = _mapping(source.get("target"))
    if kind in ("Resource", "ContainerResource"):
        series = _RESOURCE_SERIES.get(name)
        if series is None:
            return None
        if target.get("type") == "AverageValue":
            value = _quantity(target.get("averageValue"))
        else:
            # Utilization. The workload series sums every container; a container's target
            # is taken as the pod's whole request at that utilization (the same share
            # everywhere).
            request = _request(pods, name, None)
            utilization = target.get("averageUtilization")
            value = request * float(utilization) / 100.0 if utilization else None
        return ForecastMetric(index, name, series, value) if value else None
    # Pods, Object or External with an AverageValue target: per pod, as the total is.
    value = _quantity(target.get("averageValue"))
    series = f"{METRIC_TOTAL}/{index}/{name}"
    return ForecastMetric(index, name, series, value) if value else None


def forecast_metrics(
    metrics: Sequence[Mapping[str, Any]],
    wanted: Sequence[str],
    pods: Sequence[Mapping[str, Any]],
) -> tuple[ForecastMetric, ...]:
    """The ``metrics`` (the defaulted ``spec.metrics``, ``types.PhpaSpec.metrics``) that
    ``wanted`` (``prediction.metrics``) names, every forecastable one when it is empty, in
    order; a named metric that is not forecastable is left out. A Utilization target needs
    a pod's request: none without pods."""
    found = (_one(i, m, pods) for i, m in enumerate(metrics) if isinstance(m, Mapping))
    return tuple(f for f in found if f is not None and (not wanted or f.name in wanted))


def proactive_replicas(demand: float, per_pod_target: float) -> int:
    """The pods ``demand`` needs at ``per_pod_target`` each (rounded up; a hair of float
    error over a whole number does not cost a pod)."""
    if per_pod_target <= 0:
        raise ValueError(f"per-pod target must be positive, got {per_pod_target}")
    return max(0, math.ceil(demand / per_pod_target - 1e-9))


def limit_scale_down(proactive: int, current: int, percent: int) -> int:
    """``scaleDownLimit``: the proactive part may take the target at most ``percent`` of
    ``current`` below it in one sync (100%: no limit)."""
    floor = math.ceil(current * max(0, 100 - percent) / 100)
    return max(proactive, min(floor, current))


def startup_durations(pods: Sequence[Mapping[str, Any]]) -> list[tuple[datetime, timedelta]]:
    """(creation, creation-to-Ready) of each Ready pod. A pod that became unready and
    ready again reads as slow; the percentile in ``lead_time`` absorbs a few."""
    found = []
    for pod in pods:
        created = _mapping(pod.get("metadata")).get("creationTimestamp")
        ready = next(
            (
                c
                for c in _mapping(pod.get("status")).get("conditions") or ()
                if c.get("type") == "Ready" and c.get("status") == "True"
            ),
            None,
        )
        if not created or ready is None or not ready.get("lastTransitionTime"):
            continue
        try:
            start, since = parse_time(str(created)), parse_time(str(ready["lastTransitionTime"]))
        except ValueError:
            continue
        found.append((start, max(since - start, timedelta(0))))
    return found


def lead_time(
    startups: Sequence[tuple[datetime, timedelta]], sync: timedelta, resolution: timedelta
) -> timedelta:
    """How far ahead the forecast must look: a pod's start (the 90th percentile of the
    ``startup_durations`` of the 20 most recent pods, ``DEFAULT_STARTUP`` when none), plus
    one sync period and one metrics resolution before the controller sees the rise."""
    recent = sorted(startups)[-_RECENT_PODS:]
    if recent:
        ordered = sorted(duration for _, duration in recent)
        rank = max(1, math.ceil(_STARTUP_PERCENTILE * len(ordered)))
        startup = ordered[rank - 1]
    else:
        startup = DEFAULT_STARTUP
    return startup + sync + resolution


def prediction_status(
    *,
    model: str | None,
    backtest_error: float | None,
    fitted_at: datetime | None,
    lead: timedelta,
    forecast: float | None,
    proactive: int | None,
    passive: int | None,
    window: str | None,
    bounds: tuple[int, int],
    final: int,
    decided_by: str,
) -> JSON:
    """``status.prediction``: each part of the decision; absent parts are left out."""
    block: JSON = {}
    if model is not None:
        block["model"] = model
    if backtest_error is not None and math.isfinite(backtest_error):
        block["backtestError"] = f"{backtest_error:.3g}"
    if fitted_at is not None:
        block["fittedAt"] = format_time(fitted_at)
    block["leadTimeSeconds"] = int(lead.total_seconds())
    if forecast is not None:
        block["forecast"] = format_milli(math.ceil(forecast * 1000))
    if proactive is not None:
        block["proactiveReplicas"] = proactive
    if passive is not None:
        block["passiveReplicas"] = passive
    if window is not None:
        block["schedule"] = window
    block["boundMinReplicas"], block["boundMaxReplicas"] = bounds
    block["finalReplicas"] = final
    block["decidedBy"] = decided_by
    return block


def prediction_condition(reason: str, message: str, previous: JSON | None, now: datetime) -> JSON:
    """``PredictionReady``: True only for ``ForecastAvailable``; the transition time moves
    only when the status flips, as the HPA's conditions."""
    status = "True" if reason == REASON_AVAILABLE else "False"
    since = format_time(now)
    if previous is not None and previous.get("status") == status:
        since = str(previous.get("lastTransitionTime") or since)
    return {
        "type": CONDITION,
        "status": status,
        "lastTransitionTime": since,
        "reason": reason,
        "message": message,
    }
