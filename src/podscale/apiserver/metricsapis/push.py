"""Decoding pushed metric values: podscale's write extension of the metrics APIs.

Upstream's metrics APIs are read-only. podscale lets tests and simulations feed a provider
that implements a ``*MetricsWriter`` (``metricsapis.providers``) through the API itself: PUT or
POST a ``MetricValueList`` / ``ExternalMetricValueList`` at the very URL a GET reads.

- custom: ``.../namespaces/{ns}/{resource}/*/{metric}`` (every item names its object in
  ``describedObject.name``) or ``.../{resource}/{name}/{metric}`` (the name may be omitted);
  ``metric.selector.matchLabels`` are the series labels ``metricLabelSelector`` filters on.
- external: ``.../namespaces/{ns}/{metric}``; ``metricLabels`` are the series labels.
- ``value`` is required (a quantity string or a number, finite as a double: ``"1e400"`` is
  refused, as JSON itself refuses NaN and infinite numbers); ``timestamp`` (RFC 3339, default:
  when written) and ``windowSeconds``/``window`` are optional. Names, namespaces and metric
  names in the body, when given, must agree with the URL.

PUT replaces every value the URL names; POST upserts series by series. Any problem is a 400
naming the item (``items[1].value: ...``), and nothing is written. ``metricsapis.custom`` and
``metricsapis.external`` call these after ``limits`` has read the body.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from podscale.api import Quantity, QuantityError, parse_quantity
from podscale.apiserver.errors import ApiError, bad_request
from podscale.apiserver.http.limits import decode_object
from podscale.apiserver.metricsapis.samples import (
    CUSTOM_GROUP_VERSION,
    EXTERNAL_GROUP_VERSION,
    CustomSample,
    ExternalSample,
    described_kind,
    is_finite,
    sorted_labels,
)

__all__ = ["decode_custom_push", "decode_external_push"]

JSON = dict[str, Any]
T = TypeVar("T")


def _fail(path: str, problem: str) -> ApiError:
    return bad_request(f"{path}: {problem}")


def _items(body: bytes, content_type: str | None, kind: str, group_version: str) -> list[Any]:
    obj = decode_object(body, content_type)
    if obj.get("kind", kind) != kind:
        raise bad_request(f"the body must be a {kind}, not {obj.get('kind')!r}")
    if obj.get("apiVersion", group_version) != group_version:
        raise bad_request(f"the body must be {group_version}, not {obj.get('apiVersion')!r}")
    items = obj.get("items")
    if items is None:
        return []
    if not isinstance(items, list):
        raise _fail("items", "must be a list")
    return items


def _value(item: Mapping[str, Any], path: str) -> Quantity:
    raw = item.get("value")
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise _fail(f"{path}.value", "Required value: a quantity string or a number")
    try:
        value = parse_quantity(raw)
    except QuantityError as err:
        raise _fail(f"{path}.value", str(err)) from None
    if not is_finite(value):
        raise _fail(
            f"{path}.value", f"Invalid value: {json.dumps(str(raw))}: must be a finite number"
        )
    return value


def _timestamp(item: Mapping[str, Any], path: str) -> datetime | None:
    raw = item.get("timestamp")
    if raw is None:
        return None
    try:
        moment = datetime.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise _fail(f"{path}.timestamp", f"not an RFC 3339 time: {raw!r}")
    return moment


def _window(item: Mapping[str, Any], key: str, path: str) -> int | None:
    raw = item.get(key)
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise _fail(f"{path}.{key}", "must be a non-negative integer")
    return raw


def _labels(raw: Any, path: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
    ):
        raise _fail(path, "must map label names to string values")
    return raw


def _agree(raw: Any, expected: str, path: str) -> None:
    """A body field that repeats part of the URL must say the same (or be left out)."""
    if raw is not None and raw != expected:
        raise _fail(path, f"{raw!r} does not match {expected!r} from the URL")


def _each(items: list[Any], decode: Callable[[JSON, str], T]) -> list[T]:
    decoded: list[T] = []
    for index, item in enumerate(items):
        path = f"items[{index}]"
        if not isinstance(item, dict):
            raise _fail(path, "must be an object")
        decoded.append(decode(item, path))
    return decoded


def decode_custom_push(
    body: bytes,
    content_type: str | None,
    *,
    group_resource: str,
    namespace: str | None,
    name: str | None,
    metric: str,
) -> list[CustomSample]:
    """The samples of a pushed ``MetricValueList``; ``name`` None is the ``*`` URL."""
    group, version = CUSTOM_GROUP_VERSION
    items = _items(body, content_type, "MetricValueList", f"{group}/{version}")
    api_version, kind = described_kind(group_resource)

    def decode(item: JSON, path: str) -> CustomSample:
        described = item.get("describedObject") or {}
        if not isinstance(described, dict):
            raise _fail(f"{path}.describedObject", "must be an object")
        object_name = described.get("name") or name
        if not isinstance(object_name, str) or not object_name:
            raise _fail(f"{path}.describedObject.name", "Required value")
        if name is not None:
            _agree(object_name, name, f"{path}.describedObject.name")
        _agree(described.get("namespace") or None, namespace or "", f"{path}.describedObject")
        identifier = item.get("metric") or {}
        if not isinstance(identifier, dict):
            raise _fail(f"{path}.metric", "must be an object")
        _agree(identifier.get("name"), metric, f"{path}.metric.name")
        selector = identifier.get("selector") or {}
        if not isinstance(selector, dict) or selector.get("matchExpressions"):
            raise _fail(f"{path}.metric.selector", "series labels are matchLabels only")
        labels = _labels(selector.get("matchLabels"), f"{path}.metric.selector.matchLabels")
        return CustomSample(
            group_resource=group_resource,
            namespace=namespace,
            name=object_name,
            metric=metric,
            value=_value(item, path),
            labels=sorted_labels(labels),
            timestamp=_timestamp(item, path),
            window_seconds=_window(item, "windowSeconds", path),
            kind=str(described.get("kind") or kind),
            api_version=str(described.get("apiVersion") or api_version),
        )

    return _each(items, decode)


def decode_external_push(
    body: bytes, content_type: str | None, *, namespace: str, metric: str
) -> list[ExternalSample]:
    """The samples of a pushed ``ExternalMetricValueList`` for one metric of a namespace."""
    group, version = EXTERNAL_GROUP_VERSION
    items = _items(body, content_type, "ExternalMetricValueList", f"{group}/{version}")

    def decode(item: JSON, path: str) -> ExternalSample:
        _agree(item.get("metricName"), metric, f"{path}.metricName")
        return ExternalSample(
            namespace=namespace,
            metric=metric,
            value=_value(item, path),
            labels=sorted_labels(_labels(item.get("metricLabels"), f"{path}.metricLabels")),
            timestamp=_timestamp(item, path),
            window_seconds=_window(item, "window", path),
        )

    return _each(items, decode)
