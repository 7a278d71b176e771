"""``PodUsage``: the values of one PodMetrics item, for in-process readers.

A metrics.k8s.io provider serves PodMetrics as JSON (``state.MetricsProvider``); a reader in
the same process (the HPA controller's ``InProcessMetricsClient``) would render each pod's
item only to parse it straight back. A provider that also implements ``PodUsageReader``
hands it the values instead: per pod, the earliest-sampled container's timestamp and
window (what the item's ``timestamp`` and ``window`` say) and each container's usage in
the units the item's Quantities carry (CPU nanocores, memory bytes), in the item's order.
The reader converts them exactly as it would convert the rendered text
(``podscale.controllers.hpa.metrics_values.pod_usage_values``), so the two paths agree.

``nano_to_milli``/``units_to_milli`` are those conversions for one container; a provider
may also hand each pod's sums of them (``PodUsage.cpu_milli``/``memory_milli``), computed
once per record, so that the readers of the same record do not sum it again.

``podscale.metrics.server.MetricsServer`` implements it. Pure declarations and conversions.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final, NamedTuple, Protocol, runtime_checkable

from podscale.api.selectors import Selector

__all__ = ["ContainerUsage", "PodUsage", "PodUsageReader", "nano_to_milli", "units_to_milli"]

_MAX_INT64: Final = 2**63 - 1
_MIN_INT64: Final = -(2**63)


class ContainerUsage(NamedTuple):
    name: str
    cpu_nanocores: int
    memory_bytes: int


class PodUsage(NamedTuple):
    """One PodMetrics item's values; ``timestamp`` None is Go's zero time (no container).

    ``cpu_milli``/``memory_milli`` are the containers' usages summed as the reader sums
    them (each container's nanocores as milli-cores rounded away from zero, its bytes as
    milli-bytes: ``pod_usage_values``): a provider keeping its records across reads
    computes them once per record; None leaves the sum to the reader."""

    namespace: str
    name: str
    timestamp: datetime | None
    window: timedelta
    containers: tuple[ContainerUsage, ...]
    cpu_milli: int | None = None
    memory_milli: int | None = None


def nano_to_milli(nanos: int) -> int:
    """``Quantity(nanos, -9).milli_value()`` in integers: thousandths rounded away from zero,
    saturating at the int64 bounds (no Quantity is built: this runs per container per read)."""
    if nanos >= 0:
        whole, rest = divmod(nanos, 1_000_000)
        return min(whole + (1 if rest else 0), _MAX_INT64)
    whole, rest = divmod(-nanos, 1_000_000)
    return max(-(whole + (1 if rest else 0)), _MIN_INT64)


def units_to_milli(units: int) -> int:
    """``Quantity(units, 0).milli_value()`` in integers: exact, saturating at int64."""
    return min(max(units * 1000, _MIN_INT64), _MAX_INT64)


@runtime_checkable
class PodUsageReader(Protocol):
    def pod_usage_selected(self, namespace: str, selector: Selector) -> list[PodUsage] | None:
        """The values of the items ``pod_metrics(namespace)`` filtered by ``selector``
        would hold, in the same order; None when the provider cannot narrow the read (the
        caller then reads ``pod_metrics``)."""
        ...
