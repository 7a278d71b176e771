"""A pod's ``PodUsage`` record, as ``MetricsStorage.pod_usage_of`` serves it to in-process readers.

``record_of`` builds it from the container usages ``storage.MetricsStorage`` computed (or
rendered) for a pod; ``record_from_points`` from the pod's last and previous scrape points
directly, in one loop, giving the same record (the HPA's metrics read and the usage history
read every pod so once per scrape). A record carries the pod's summed CPU and memory in
milli-units, which ``controllers.hpa.metrics_values`` reads instead of summing containers
again. Timestamp and window are those of the earliest-sampled container (the first on a
tie), as ``render`` serves them. Pure functions; ``record_from_points`` remembers the
window of the last two time objects it paired (the pods of one scrape share them).
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
# The largest values whose milli form needs no int64 saturation: nanocores whose rounded-up
# thousandths, and units whose thousands, are at most 2**63 - 1.
_MAX_NANOS: Final = (2**63 - 1) * 1_000_000
_MAX_UNITS: Final = (2**63 - 1) // 1000
# The last (time, previous time, window, seconds) ``record_from_points`` computed: a cache of
# one entry of a pure function, compared by the identity of the held time objects. Replaced
# whole (one assignment), so a reader on another thread sees one entry or the next.
_LAST_WINDOW: tuple[object, object, timedelta, float] = (object(), object(), _ZERO, 0.0)


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
    global _LAST_WINDOW
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
        timestamp, before = point.timestamp, previous.timestamp
        # The window and its seconds are a function of the two times alone; a scrape's
        # points share their time objects (one per node and scrape), so the last pair's
        # are reused when both objects are the very ones it was computed from (held by
        # the entry, so never another object under a reused id).
        known = _LAST_WINDOW
        if known[0] is timestamp and known[1] is before:
            window, seconds = known[2], known[3]
        else:
            window = timestamp - before
            seconds = (
                float(window.days * 86_400 + window.seconds)
                + float(window.microseconds * 1000) / 1e9
            )
            _LAST_WINDOW = (timestamp, before, window, seconds)
        if window <= _ZERO:
            continue
        cpu = int(float(used - used_before) / seconds)
        memory = point.memory_usage
        if earliest is None or timestamp < earliest:
            earliest, earliest_window = timestamp, window
        # ``tuple.__new__``, as the NamedTuple's generated ``__new__`` does (one per container
        # and scrape read).
        containers.append(_new(ContainerUsage, (container, cpu, memory)))
        # ``nano_to_milli`` and ``units_to_milli`` inlined for the values inside int64 (a
        # rate is never negative; memory may be anything a kubelet reported).
        if 0 <= cpu <= _MAX_NANOS:
            cpu_total += -(-cpu // 1_000_000)
        else:
            cpu_total += nano_to_milli(cpu)
        if 0 <= memory <= _MAX_UNITS:
            memory_total += memory * 1000
        else:
            memory_total += units_to_milli(memory)
    return _new(
        PodUsage,
        (key[0], key[1], earliest, earliest_window, tuple(containers), cpu_total, memory_total),
    )
