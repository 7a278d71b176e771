"""``spec.externalMetrics`` of a scenario: external metric series and their values over time.

Called by ``podscale.scenario.loader`` with its ``FieldReader``; produces the
``ExternalMetricSeries`` of ``podscale.scenario.model``, which
``podscale.scenario.run`` publishes through the embedded plane's push provider
(what an HPA's ``External`` metric reads from external.metrics.k8s.io). Schema::

    externalMetrics:
      - name: queue_messages_ready        # required: the metric name
        namespace: default                # default "default"
        labels: {queue: orders}           # the series' labels (what metric selectors match)
        values:                           # required, step-hold: each holds until the next
          - {at: 1m, value: "90"}         # at: a Go duration, at most spec.duration
          - {at: 6m, value: 600}          # value: a quantity, >= 0
          - {at: 9m, stopped: true}       # no longer published (instead of a value)

Names follow the API's rules (the metric name is a path segment of the metrics URL, the
namespace a DNS-1123 label, labels as an object's labels); the same series (namespace, name,
labels) may appear once and each of its ``at`` once. Values come back ordered by ``at``.
A ``stopped`` step (its value None) is a source that stopped publishing: the run writes
nothing more until the series' next value, so the push provider forgets the last one after
its ttl, as an adapter forgets a metric whose exporter went away.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

from podscale.api.field_errors import FieldPath, duplicate, invalid, required
from podscale.api.field_reader import FieldReader
from podscale.api.names import validate_namespace_name, validate_path_segment_name
from podscale.api.validation.names import validate_labels
from podscale.scenario.cluster import read_string_map
from podscale.scenario.model import ExternalMetricSeries, ExternalMetricValue

__all__ = ["read_external_metrics", "series_key"]

_SERIES_FIELDS: Final = ("name", "namespace", "labels", "values")
_VALUE_FIELDS: Final = ("at", "value", "stopped")


def series_key(series: ExternalMetricSeries) -> str:
    """``namespace/name{k=v,...}``: how a series is named in messages (labels sorted)."""
    labels = ",".join(f"{k}={v}" for k, v in sorted(series.labels.items()))
    return f"{series.namespace}/{series.name}{{{labels}}}"


def _values(
    r: FieldReader, obj: dict[str, Any], path: FieldPath, duration: timedelta | None
) -> list[ExternalMetricValue]:
    values: list[ExternalMetricValue] = []
    seen: set[timedelta] = set()
    for j, item in enumerate(r.sequence(obj, "values", path, need=True)):
        item_path = path.child("values").index(j)
        fields = r.mapping(item, item_path, _VALUE_FIELDS)
        if fields is None:
            continue
        at = r.duration(fields, "at", item_path, need=True)
        value = r.quantity(fields, "value", item_path)
        stopped = r.boolean(fields, "stopped", item_path) is True
        if stopped and fields.get("value") is not None:
            r.errors.append(
                invalid(item_path.child("stopped"), True, "must not be set with a value")
            )
            continue
        if not stopped and fields.get("value") is None:
            r.errors.append(required(item_path.child("value")))
        if at is not None and duration is not None and at > duration:
            r.errors.append(
                invalid(item_path.child("at"), fields["at"], "must not be after spec.duration")
            )
            continue
        if at is not None and at in seen:
            r.errors.append(duplicate(item_path.child("at"), fields["at"]))
            continue
        if at is not None and (value is not None or stopped):
            seen.add(at)
            values.append(ExternalMetricValue(at, None if stopped else value))
    return sorted(values, key=lambda v: v.at)


def _series(
    r: FieldReader, item: Any, path: FieldPath, duration: timedelta | None
) -> ExternalMetricSeries | None:
    obj = r.mapping(item, path, _SERIES_FIELDS)
    if obj is None:
        return None
    name = r.string(obj, "name", path, need=True)
    if name:
        problems = validate_path_segment_name(name, False)
        r.errors.extend(invalid(path.child("name"), name, p) for p in problems)
    namespace = r.string(obj, "namespace", path)
    if namespace is not None:
        problems = validate_namespace_name(namespace, False)
        r.errors.extend(invalid(path.child("namespace"), namespace, p) for p in problems)
    labels = read_string_map(r, obj, "labels", path)
    r.errors.extend(validate_labels(labels, path.child("labels")))
    values = _values(r, obj, path, duration)
    if not name or not values:
        return None
    return ExternalMetricSeries(name, namespace or "default", labels, tuple(values))


def read_external_metrics(
    r: FieldReader, spec: dict[str, Any], path: FieldPath, duration: timedelta | None
) -> list[ExternalMetricSeries]:
    """``spec.externalMetrics``, in file order; each series at most once."""
    result: list[ExternalMetricSeries] = []
    seen: set[str] = set()
    for i, item in enumerate(r.sequence(spec, "externalMetrics", path)):
        item_path = path.child("externalMetrics").index(i)
        series = _series(r, item, item_path, duration)
        if series is None:
            continue
        key = series_key(series)
        if key in seen:
            r.errors.append(duplicate(item_path, key))
            continue
        seen.add(key)
        result.append(series)
    return result
