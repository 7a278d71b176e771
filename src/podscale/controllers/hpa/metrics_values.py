"""Turning metrics API answers into the engine's values, with upstream's error texts.

Both metrics clients (``metrics_rest`` over HTTP, ``metrics_inprocess`` over a
``ServerState``'s providers) obtain the same JSON documents: a ``PodMetricsList``'s items
(metrics.k8s.io/v1beta1), ``MetricValue`` items (custom.metrics.k8s.io/v1beta2) and
``ExternalMetricValue`` items (external.metrics.k8s.io/v1beta1). The functions here read
them as upstream's ``pkg/controller/podautoscaler/metrics/client.go`` does:

- resource metrics are summed over a pod's containers; a pod with no containers, or with
  a container lacking the resource, gets no sample at all (it is then "missing");
- for one container, a pod without that container fails the whole query;
- an empty answer is an error (``no metrics returned from ... API``);
- the answer's timestamp is the first item's; custom samples default to a 1 minute window.

``pod_usage_values`` reads the same items as values (``PodUsage``, from a provider in the same
process) and gives what ``pod_resource_values`` gives for their rendered JSON: quantities,
timestamps (whole seconds) and windows go through the conversions the text would.

Every failure is a ``MetricsUnavailable`` whose message is upstream's client error, which
the engine wraps further (``unable to get metrics for resource cpu: ...``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from podscale.api import parse_quantity
from podscale.api.durations import format_go_duration, parse_go_duration
from podscale.api.kinds import all_kinds
from podscale.api.selectors import selector_from_label_selector
from podscale.api.timestamps import format_time, parse_time
from podscale.apiserver.metricsapis.pod_usage import (
    ContainerUsage,
    PodUsage,
    nano_to_milli,
    units_to_milli,
)
from podscale.hpa.types import MetricsUnavailable, PodMetric

__all__ = [
    "CUSTOM_API",
    "EXTERNAL_API",
    "RESOURCE_API",
    "custom_group_resource",
    "external_values",
    "fetch_failed",
    "metric_selector_text",
    "nano_to_milli",
    "object_value",
    "pod_custom_values",
    "pod_resource_values",
    "pod_usage_total",
    "pod_usage_values",
    "units_to_milli",
]

JSON = dict[str, Any]
RESOURCE_API: Final = "resource metrics API"
CUSTOM_API: Final = "custom metrics API"
EXTERNAL_API: Final = "external metrics API"
# Upstream's metricServerDefaultMetricWindow: custom samples without windowSeconds.
DEFAULT_CUSTOM_WINDOW: Final = timedelta(minutes=1)
_EPOCH: Final = datetime(1, 1, 1, tzinfo=UTC)  # Go's zero time, for a missing timestamp
_NO_VALUE: Final = object()  # equal to no timestamp or window


def fetch_failed(api: str, cause: str) -> MetricsUnavailable:
    """The client's error when the API call itself failed."""
    return MetricsUnavailable(f"unable to fetch metrics from {api}: {cause}")


def _empty(api: str) -> MetricsUnavailable:
    return MetricsUnavailable(f"no metrics returned from {api}")


def _timestamp(value: Any) -> datetime:
    if not value:
        return _EPOCH
    return parse_time(str(value))


def _milli(value: Any) -> int:
    return parse_quantity(value).milli_value()


def metric_selector_text(label_selector: Mapping[str, Any] | None) -> str:
    """A metric's ``selector`` as the query parameter upstream sends (``labels.Selector``'s
    ``String()``: empty for no selector). Raises ``MetricsUnavailable`` if it is invalid."""
    try:
        return str(selector_from_label_selector(label_selector))
    except ValueError as err:
        raise MetricsUnavailable(str(err)) from None


def pod_resource_values(
    items: Sequence[JSON], resource: str, container: str | None
) -> tuple[dict[str, PodMetric], datetime]:
    """A ``PodMetricsList``'s items as per-pod samples of ``resource`` (milli-units)."""
    if not items:
        raise _empty(RESOURCE_API)
    samples: dict[str, PodMetric] = {}
    for item in items:
        meta = item.get("metadata") or {}
        pod = str(meta.get("name", ""))
        containers = item.get("containers") or []
        stamp = _timestamp(item.get("timestamp"))
        window = parse_go_duration(str(item.get("window") or "0"))
        if container is not None:
            entry = next((c for c in containers if c.get("name") == container), None)
            if entry is None:
                raise MetricsUnavailable(
                    "failed to get container metrics: container "
                    f"{container} not present in metrics for pod {meta.get('namespace', '')}/{pod}"
                )
            usage = entry.get("usage") or {}
            if resource in usage:
                samples[pod] = PodMetric(_milli(usage[resource]), stamp, window)
            continue
        total, missing = 0, not containers
        for entry in containers:
            usage = entry.get("usage") or {}
            if resource not in usage:
                missing = True
                break
            total += _milli(usage[resource])
        if not missing:
            samples[pod] = PodMetric(total, stamp, window)
    return samples, _timestamp(items[0].get("timestamp"))


@functools.lru_cache(maxsize=1024)
def _served_time(moment: datetime | None) -> datetime:
    # What the rendered ``timestamp`` reads back as: whole seconds, UTC; null is Go's zero.
    return _EPOCH if moment is None else parse_time(format_time(moment))


@functools.lru_cache(maxsize=256)
def _served_window(window: timedelta) -> timedelta:
    return parse_go_duration(format_go_duration(window))


def _usage_milli(usage: ContainerUsage, resource: str) -> int | None:
    # The rendered ResourceList holds exactly cpu (nanocores) and memory (bytes); their
    # quantities' milli values, computed directly (``test_pod_usage_values`` proves them
    # equal to the Quantity's).
    if resource == "cpu":
        return nano_to_milli(usage.cpu_nanocores)
    if resource == "memory":
        return units_to_milli(usage.memory_bytes)
    return None


def pod_usage_values(
    records: Sequence[PodUsage], resource: str, container: str | None
) -> tuple[dict[str, PodMetric], datetime]:
    """``pod_resource_values`` of the items ``records`` hold, without their JSON."""
    if not records:
        raise _empty(RESOURCE_API)
    samples: dict[str, PodMetric] = {}
    if container is None and resource in ("cpu", "memory"):
        _sum_containers(records, resource == "cpu", samples)
        return samples, _served_time(records[0].timestamp)
    for record in records:
        stamp = _served_time(record.timestamp)
        window = _served_window(record.window)
        if container is not None:
            entry = next((c for c in record.containers if c.name == container), None)
            if entry is None:
                raise MetricsUnavailable(
                    "failed to get container metrics: container "
                    f"{container} not present in metrics for pod {record.namespace}/{record.name}"
                )
            value = _usage_milli(entry, resource)
            if value is not None:
                samples[record.name] = PodMetric(value, stamp, window)
            continue
        total = 0
        for entry in record.containers:
            value = _usage_milli(entry, resource)
            if value is None:
                break
            total += value
        else:
            if record.containers:
                samples[record.name] = PodMetric(total, stamp, window)
    return samples, _served_time(records[0].timestamp)


def pod_usage_total(records: Sequence[PodUsage], resource: str) -> int:
    """The sum of ``pod_usage_values(records, resource, None)``'s values for cpu or memory
    (its error when there are no records), from each record's own sum (or its containers'),
    without the per-pod samples: what a reader wanting only the total (the usage history,
    every minute) would build and drop. A name keeps its last record, as the samples do."""
    if not records:
        raise _empty(RESOURCE_API)
    cpu = resource == "cpu"
    totals: dict[str, int] = {}
    for record in records:
        containers = record.containers
        if not containers:
            continue
        total = record.cpu_milli if cpu else record.memory_milli
        if total is None:
            if cpu:
                total = sum(nano_to_milli(entry.cpu_nanocores) for entry in containers)
            else:
                total = sum(units_to_milli(entry.memory_bytes) for entry in containers)
        totals[record.name] = total
    return sum(totals.values())


def _sum_containers(records: Sequence[PodUsage], cpu: bool, samples: dict[str, PodMetric]) -> None:
    """``pod_usage_values``' loop for the whole pod's cpu or memory (what an HPA asks at
    every sync), with ``_usage_milli`` inlined: each container has both values, so every
    pod with containers gets its sum (the record's own, when its provider summed it)."""
    # The served time and window of the previous record, reused for a record whose
    # timestamp and window equal its (the pods of one scrape share them): ``_served_time``
    # and ``_served_window`` are functions of the value, and their caches already answer
    # equal keys alike.
    moment: Any = _NO_VALUE
    span: Any = _NO_VALUE
    stamp = _EPOCH
    window = span
    new = tuple.__new__
    for record in records:
        containers = record.containers
        if not containers:
            continue
        total = record.cpu_milli if cpu else record.memory_milli
        if total is None:
            total = 0
            if cpu:
                for entry in containers:
                    total += nano_to_milli(entry.cpu_nanocores)
            else:
                for entry in containers:
                    total += units_to_milli(entry.memory_bytes)
        if record.timestamp != moment:
            moment = record.timestamp
            stamp = _served_time(moment)
        if record.window != span:
            span = record.window
            window = _served_window(span)
        # ``tuple.__new__``, as the NamedTuple's generated ``__new__`` does (one per pod).
        samples[record.name] = new(PodMetric, (total, stamp, window))


def pod_custom_values(items: Sequence[JSON]) -> tuple[dict[str, PodMetric], datetime]:
    """``MetricValue`` items of pods as per-pod samples, keyed by the described pod."""
    if not items:
        raise _empty(CUSTOM_API)
    samples: dict[str, PodMetric] = {}
    for item in items:
        window_seconds = item.get("windowSeconds")
        window = (
            DEFAULT_CUSTOM_WINDOW if window_seconds is None else timedelta(seconds=window_seconds)
        )
        pod = str((item.get("describedObject") or {}).get("name", ""))
        samples[pod] = PodMetric(
            _milli(item.get("value", 0)), _timestamp(item["timestamp"]), window
        )
    return samples, _timestamp(items[0].get("timestamp"))


def object_value(items: Sequence[JSON]) -> tuple[int, datetime]:
    """The one ``MetricValue`` a named-object read returns."""
    if not items:
        raise _empty(CUSTOM_API)  # a well-behaved adapter answers 404 instead
    item = items[0]
    return _milli(item.get("value", 0)), _timestamp(item.get("timestamp"))


def external_values(items: Sequence[JSON]) -> tuple[list[int], datetime]:
    """Every ``ExternalMetricValue`` of the answer (the engine sums them)."""
    if not items:
        raise _empty(EXTERNAL_API)
    return [_milli(item.get("value", 0)) for item in items], _timestamp(items[0].get("timestamp"))


def _guess_plural(kind: str) -> str:
    """The RESTMapper's ``UnsafeGuessKindToResource`` for kinds this server does not know."""
    lowered = kind.lower()
    if not lowered:
        return lowered
    if lowered.endswith("s"):
        return lowered + "es"
    if lowered.endswith("y"):
        return lowered[:-1] + "ies"
    return lowered + "s"


def custom_group_resource(api_version: str, kind: str) -> str:
    """The GroupResource string custom.metrics.k8s.io URLs name an object kind by
    (``pods``, ``deployments.apps``); the version plays no part, as upstream."""
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    for info in all_kinds():
        if info.top_level and info.group == group and info.kind == kind:
            plural = info.plural
            break
    else:
        plural = _guess_plural(kind)
    return f"{plural}.{group}" if group else plural
