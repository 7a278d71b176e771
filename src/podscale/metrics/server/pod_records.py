"""A pod's ``PodUsage`` record, as ``MetricsStorage.pod_usage_of`` serves it to in-process readers.

``record_of`` builds it from the container usages ``storage.MetricsStorage`` computed (or
rendered) for a pod; ``record_from_points`` from the pod's last and previous scrape points
directly, in one loop, giving the same record (the HPA's metrics read and the usage history
read every pod so once per scrape). A record carries the pod's summed CPU and memory in
milli-units, which ``controllers.hpa.metrics_values`` reads instead of summing containers
again. Timestamp and window are those of the earliest-sampled container (the first on a
tie), as ``render`` serves them. Pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Final

from podscale.apiserver.metricsapis.pod_usage import (
    ContainerUsage,
    PodUsage,
    nano_to_milli,
    units_to_milli,
)
from podscale.metrics.server.points import MetricsPoint, PodKey
from podscale.metrics.server.render import earliest_usage
from podscale.metrics.server.usage import Usage

__all__ = ["Containers", "record_from_points", "record_of"]

# A pod's points of one scrape, by container name.
Containers = Mapping[str, MetricsPoint]

_new = tuple.__new__
_ZERO: Final = timedelta(0)


def record_of(key: PodKey, usages: Sequence[tuple[str, Usage]] | None) -> PodUsage | None:
    """``pod_usage_of``'s record of a pod served with ``usages`` (None: not served)."""
    if usages is None:
        return None
    earliest = earliest_usage(usages)
    return PodUsage(
        key[0],
        key[1],
        earliest.timestamp if earliest else None,
        earliest.window if earliest else timedelta(0),
        tuple(
            [
                ContainerUsage(name, usage.cpu_nanocores, usage.memory_bytes)
                for name, usage in usages
            ]
        ),
        sum(nano_to_milli(usage.cpu_nanocores) for _, usage in usages),
        sum(units_to_milli(usage.memory_bytes) for _, usage in usages),
    )


def record_from_points(key: PodKey, last: Containers, prev: Containers | None) -> PodUsage | None:
    """``record_of`` of the usages ``MetricsStorage`` computes from these points, in one
    loop over the pod's points with no list of ``Usage`` in between: the same containers in
    the same order, the same earliest one (the first on a tie) and sums."""
    if prev is None:
        return None
    containers: list[ContainerUsage] = []
    earliest: datetime | None = None
    earliest_window = _ZERO
    cpu_total = memory_total = 0
    for container, point in last.items():
        previous = prev.get(container)
        if previous is None:
            return None
        # ``compute_usage``, inlined with ``go_seconds`` (one call per container and scrape
        # read): the pairs it refuses (``UsageError``) are skipped, the rate is the same
        # float64 division truncated.
        prev_start, start = previous.start_time, point.start_time
        if prev_start is not None and (start is None or start < prev_start):
            continue
        used, used_before = point.cumulative_cpu_used, previous.cumulative_cpu_used
        if used < used_before:
            continue
        timestamp = point.timestamp
        window = timestamp - previous.timestamp
        if window <= _ZERO:
            continue
        seconds = (
            float(window.days * 86_400 + window.seconds) + float(window.microseconds * 1000) / 1e9
        )
        cpu = int(float(used - used_before) / seconds)
        memory = point.memory_usage
        if earliest is None or timestamp < earliest:
            earliest, earliest_window = timestamp, window
        # ``tuple.__new__``, as the NamedTuple's generated ``__new__`` does (one per container
        # and scrape read).
        containers.append(_new(ContainerUsage, (container, cpu, memory)))
        cpu_total += nano_to_milli(cpu)
        memory_total += units_to_milli(memory)
    return PodUsage(
        key[0], key[1], earliest, earliest_window, tuple(containers), cpu_total, memory_total
    )
