"""metrics.k8s.io/v1beta1 shapes: ``PodMetrics`` and ``NodeMetrics`` items as JSON dicts.

As metrics-server marshals them (pkg/api/pod.go, node.go; k8s.io/metrics types): ``metadata``
with ``name`` (and ``namespace``), ``creationTimestamp`` = the time of the request and the
object's ``labels`` when it has any; ``timestamp`` (RFC 3339, whole seconds, ``null`` for Go's
zero time); ``window`` as Go's ``Duration.String`` (``15s``, ``1m0s``, ``14.5s``); usage as
Quantities: CPU in nanocores printed canonically (``250m``, ``123456789n``), memory in bytes
as BinarySI (``64Mi``, ``1536``). ``kind``/``apiVersion`` are added by the API server
(``podscale.apiserver.metricsapis.resource``), which wraps items in the List.

Pure. Used by ``storage``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from podscale.api import Quantity
from podscale.api.durations import format_go_duration
from podscale.metrics.server.usage import Usage
from podscale.store.objects import format_timestamp

__all__ = [
    "earliest_usage",
    "format_go_duration",
    "render_node_metrics",
    "render_pod_metrics",
    "render_usage",
]

JSON = dict[str, Any]


def render_usage(usage: Usage) -> JSON:
    """The ResourceList: keys in Go's (sorted) map order."""
    return {
        "cpu": str(Quantity(usage.cpu_nanocores, -9, "DecimalSI")),
        "memory": str(Quantity(usage.memory_bytes, 0, "BinarySI")),
    }


@functools.lru_cache(maxsize=256)
def _stamp(moment: datetime) -> str:
    # One request renders many items at the same ``now``, and a scrape's samples share
    # their timestamps: formatting each once is a good share of the rendering.
    return format_timestamp(moment)


def _metadata(name: str, namespace: str | None, labels: Mapping[str, str], now: datetime) -> JSON:
    metadata: JSON = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    metadata["creationTimestamp"] = _stamp(now)
    if labels:
        metadata["labels"] = dict(labels)
    return metadata


def _times(timestamp: datetime | None, window: timedelta) -> JSON:
    stamp = None if timestamp is None else _stamp(timestamp)
    return {"timestamp": stamp, "window": format_go_duration(window)}


def earliest_usage(containers: Sequence[tuple[str, Usage]]) -> Usage | None:
    """The container sampled earliest (upstream's ``earliestTimeInfo``); the first on a tie."""
    earliest: Usage | None = None
    for _, usage in containers:
        if earliest is None or usage.timestamp < earliest.timestamp:
            earliest = usage
    return earliest


def render_pod_metrics(
    namespace: str,
    name: str,
    labels: Mapping[str, str],
    now: datetime,
    containers: Sequence[tuple[str, Usage]],
) -> JSON:
    """One PodMetrics. Timestamp and window are those of the container sampled earliest
    (upstream's ``earliestTimeInfo``); with no container, Go's zero time and ``0s``."""
    earliest = earliest_usage(containers)
    return {
        "metadata": _metadata(name, namespace, labels, now),
        **_times(
            earliest.timestamp if earliest else None,
            earliest.window if earliest else timedelta(0),
        ),
        "containers": [
            {"name": container, "usage": render_usage(usage)} for container, usage in containers
        ],
    }


def render_node_metrics(name: str, labels: Mapping[str, str], now: datetime, usage: Usage) -> JSON:
    return {
        "metadata": _metadata(name, None, labels, now),
        **_times(usage.timestamp, usage.window),
        "usage": render_usage(usage),
    }
