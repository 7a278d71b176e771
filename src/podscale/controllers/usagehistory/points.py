"""What the usage-history controller writes each minute, as a pure function of what it read.

``targets_of`` names the autoscaled workloads (the ``spec.scaleTargetRef`` of every
autoscaler object: HPAs, PredictiveHorizontalPodAutoscalers, Crane
EffectiveHorizontalPodAutoscalers), one per (namespace, kind, name), the first autoscaler in
key order winning. ``metric_values`` reads an autoscaler's ``status.currentMetrics`` into
``metric/<index>/<name>`` values (what the status reports) and, for Pods, Object and
External metrics, ``metric_total/<index>/<name>`` values (the workload's total: what a
forecast of demand needs, since a per-pod average depends on the replicas the autoscaler
chose); ``build_points`` turns a minute's gathered usage sums
(milli-units from the HPA controller's ``MetricsClient``) and the autoscalers into the
``SeriesKey``/``Point`` pairs the shell (``controller``) writes to ``podscale.history``.
``minute_of``/``next_minute`` place a tick on the minute grid the history stores.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, Final

from podscale.api.quantity import QuantityError, parse_quantity
from podscale.history import Point, SeriesKey

__all__ = [
    "CPU_USAGE",
    "MEMORY_USAGE",
    "METRIC",
    "METRIC_TOTAL",
    "Target",
    "Usage",
    "build_points",
    "metric_values",
    "minute_of",
    "next_minute",
    "targets_of",
]

JSON = dict[str, Any]
CPU_USAGE: Final = "cpu_usage"
MEMORY_USAGE: Final = "memory_usage"
# Series name prefixes: ``<prefix>/<index>/<name>``.
METRIC: Final = "metric"
METRIC_TOTAL: Final = "metric_total"
# The metric types whose status value is not a resource usage (cpu_usage/memory_usage
# hold those totals): their totals are recorded from the status.
_TOTALLED: Final = ("Pods", "Object", "External")
MINUTE: Final = timedelta(minutes=1)
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
# The status field that carries the value a target type is compared against; a status
# without it falls back through the others in this order.
_BY_TARGET_TYPE: Final = {
    "Utilization": "averageUtilization",
    "AverageValue": "averageValue",
    "Value": "value",
}
_FALLBACK: Final = ("averageValue", "value", "averageUtilization")
# Where each metric source type keeps its name and its current value in a MetricStatus.
_SOURCE_FIELD: Final = {
    "Resource": "resource",
    "ContainerResource": "containerResource",
    "Pods": "pods",
    "Object": "object",
    "External": "external",
}


@dataclass(frozen=True, slots=True, order=True)
class Target:
    """An autoscaled workload and the autoscaler reference that named it."""

    namespace: str
    kind: str
    name: str
    api_version: str = ""


@dataclass(frozen=True, slots=True)
class Usage:
    """The sums over a target's pods, milli-units (None: the metrics API had no answer)."""

    cpu_milli: int | None
    memory_milli: int | None


def minute_of(at: datetime) -> datetime:
    """``at`` truncated to its minute (the point time of a tick at ``at``)."""
    return _EPOCH + ((at - _EPOCH) // MINUTE) * MINUTE


def next_minute(at: datetime) -> datetime:
    """The first minute boundary strictly after ``at``."""
    return minute_of(at) + MINUTE


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _target(obj: Mapping[str, Any]) -> Target | None:
    ref = (obj.get("spec") or {}).get("scaleTargetRef") or {}
    kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
    if not kind or not name:
        return None
    namespace = str(_meta(obj).get("namespace") or "")
    return Target(namespace, kind, name, str(ref.get("apiVersion") or ""))


def targets_of(autoscalers: Iterable[Mapping[str, Any]]) -> list[Target]:
    """The distinct targets the autoscalers name (in the order first seen); an object
    without a kind or name in its reference names none."""
    found: list[Target] = []
    # The workloads already named (the apiVersion aside): one set lookup per autoscaler
    # rather than a comparison with every target found so far.
    seen: set[tuple[str, str, str]] = set()
    for obj in autoscalers:
        target = _target(obj)
        if target is None:
            continue
        workload = (target.namespace, target.kind, target.name)
        if workload not in seen:
            seen.add(workload)
            found.append(target)
    return found


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        return _number_of_text(value)
    if type(value) is int:  # averageUtilization: an int, and the same few every minute
        return _number_of_int(value)
    return _parsed_number(value)


@lru_cache(maxsize=1024)
def _number_of_text(text: str) -> float | None:
    """``_parsed_number`` of a quantity's text, kept: a pure function of the text, and the
    autoscalers report the same few values minute after minute."""
    return _parsed_number(text)


@lru_cache(maxsize=1024)
def _number_of_int(value: int) -> float | None:
    """``_parsed_number`` of an int (never a bool: the caller checks the exact type), kept
    as ``_number_of_text`` keeps a text's."""
    return _parsed_number(value)


def _parsed_number(value: Any) -> float | None:
    try:
        return parse_quantity(value).as_approximate_float()
    except (QuantityError, ValueError, TypeError):
        return None


@dataclass(frozen=True, slots=True)
class _Reading:
    name: str
    value: float
    field: str  # the ``current`` field ``value`` came from


def _status_value(status: Mapping[str, Any], spec: Mapping[str, Any]) -> _Reading | None:
    kind = str(status.get("type") or "")
    field = _SOURCE_FIELD.get(kind)
    source = status.get(field) if field else None
    if not isinstance(source, Mapping):
        return None  # a failed metric's empty slot ({"type": ""})
    if kind in ("Resource", "ContainerResource"):
        name = str(source.get("name") or "")
    else:
        name = str((source.get("metric") or {}).get("name") or "")
    current = source.get("current") or {}
    spec_source = spec.get(_SOURCE_FIELD.get(str(spec.get("type") or ""), "")) or {}
    target_type = str((spec_source.get("target") or {}).get("type") or "")
    preferred = _BY_TARGET_TYPE.get(target_type)
    order = ((preferred,) if preferred else ()) + _FALLBACK
    for key in order:
        value = _number(current.get(key))
        if value is not None and name:
            return _Reading(name, value, key)
    return None


def _total(kind: str, reading: _Reading, replicas: int | None) -> float | None:
    """The workload's total of a Pods/Object/External reading: an ``averageValue`` is the
    total over the status' ``currentReplicas`` (as the HPA engine divides it), a ``value``
    is the total already; None for other types or without a replica count."""
    if kind not in _TOTALLED:
        return None
    if reading.field == "value":
        return reading.value
    if reading.field == "averageValue" and replicas is not None:
        return reading.value * replicas
    return None


def metric_values(autoscaler: Mapping[str, Any]) -> dict[str, float]:
    """``metric/<index>/<name>`` -> the current value ``status.currentMetrics[index]``
    reports (the field its spec target compares: averageUtilization for Utilization,
    averageValue for AverageValue, value for Value); entries without a value are left out.
    For a Pods, Object or External metric also ``metric_total/<index>/<name>`` -> the
    workload's total: the ``averageValue`` times ``status.currentReplicas`` (left out
    without it), or the ``value``."""
    status_block = autoscaler.get("status") or {}
    statuses = status_block.get("currentMetrics") or []
    replicas = status_block.get("currentReplicas")
    if not isinstance(replicas, int) or isinstance(replicas, bool):
        replicas = None
    specs = (autoscaler.get("spec") or {}).get("metrics") or []
    values: dict[str, float] = {}
    for index, status in enumerate(statuses):
        if not isinstance(status, Mapping):
            continue
        spec = specs[index] if index < len(specs) and isinstance(specs[index], Mapping) else {}
        found = _status_value(status, spec)
        if found is None:
            continue
        values[f"{METRIC}/{index}/{found.name}"] = found.value
        total = _total(str(status.get("type") or ""), found, replicas)
        if total is not None:
            values[f"{METRIC_TOTAL}/{index}/{found.name}"] = total
    return values


def build_points(
    at: datetime,
    usage: Mapping[Target, Usage],
    autoscalers: Sequence[Mapping[str, Any]],
) -> dict[SeriesKey, Point]:
    """The points of the minute containing ``at``: each target's CPU (cores) and memory
    (bytes) usage when known, and each autoscaler's metric values under its target's key
    (the first autoscaler of a target wins a series both report)."""
    minute = minute_of(at)
    points: dict[SeriesKey, Point] = {}
    for target, sums in usage.items():
        for series, milli in ((CPU_USAGE, sums.cpu_milli), (MEMORY_USAGE, sums.memory_milli)):
            if milli is not None:
                key = SeriesKey(target.namespace, target.kind, target.name, series)
                points[key] = Point(minute, milli / 1000)
    for obj in autoscalers:
        named = _target(obj)
        if named is None:
            continue
        for series, value in metric_values(obj).items():
            key = SeriesKey(named.namespace, named.kind, named.name, series)
            points.setdefault(key, Point(minute, value))
    return points
