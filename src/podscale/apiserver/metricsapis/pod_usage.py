"""``PodUsage``: the values of one PodMetrics item, for in-process readers.

A metrics.k8s.io provider serves PodMetrics as JSON (``state.MetricsProvider``); a reader in
the same process (the HPA controller's ``InProcessMetricsClient``) would render each pod's
item only to parse it straight back. A provider that also implements ``PodUsageReader``
hands it the values instead: per pod, the earliest-sampled container's timestamp and
window (what the item's ``timestamp`` and ``window`` say) and each container's usage in
the units the item's Quantities carry (CPU nanocores, memory bytes), in the item's order.
The reader converts them exactly as it would convert the rendered text
(``podscale.controllers.hpa.metrics_values.pod_usage_values``), so the two paths agree.

``podscale.metrics.server.MetricsServer`` implements it. Pure declarations.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple, Protocol, runtime_checkable

from podscale.api.selectors import Selector

__all__ = ["ContainerUsage", "PodUsage", "PodUsageReader"]


class ContainerUsage(NamedTuple):
    name: str
    cpu_nanocores: int
    memory_bytes: int


class PodUsage(NamedTuple):
    """One PodMetrics item's values; ``timestamp`` None is Go's zero time (no container)."""

    namespace: str
    name: str
    timestamp: datetime | None
    window: timedelta
    containers: tuple[ContainerUsage, ...]


@runtime_checkable
class PodUsageReader(Protocol):
    def pod_usage_selected(self, namespace: str, selector: Selector) -> list[PodUsage] | None:
        """The values of the items ``pod_metrics(namespace)`` filtered by ``selector``
        would hold, in the same order; None when the provider cannot narrow the read (the
        caller then reads ``pod_metrics``)."""
        ...
