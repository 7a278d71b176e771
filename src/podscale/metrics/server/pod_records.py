"""A pod's ``PodUsage`` record, as ``MetricsStorage.pod_usage_of`` serves it to in-process readers.

``record_of`` builds it from the container usages ``storage.MetricsStorage`` computed (or
rendered) for a pod; ``record_from_points`` from the pod's last and previous scrape points
directly, in one loop, giving the same record (the HPA's metrics read and the usage history
read every pod so once per scrape), and without the loop for a pod of one container (the
usual case: ``_record_of_one``). ``records_from_points`` is ``pod_usage_of``'s read of a
reader's pods: each pod's record, kept in the snapshot's map on first read. A record
carries the pod's summed CPU and memory in milli-units, which
``controllers.hpa.metrics_values`` reads instead of summing containers again. Timestamp
and window are those of the earliest-sampled container (the first on a tie), as ``render``
serves them. Pure functions; ``record_from_points`` remembers the window of the last two
time objects it paired (the pods of one scrape share them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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

__all__ = ["Containers", "all_records", "record_from_points", "record_of", "records_from_points"]

# A pod's points of one scrape, by container name.
Containers = Mapping[str, MetricsPoint]

_new = tuple.__new__
# A record not computed yet (None is a computed "not served").
_UNKNOWN: Final = object()
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
    if len(last) == 1:
        return _record_of_one(key, last, prev)
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


def _record_of_one(key: PodKey, last: Containers, prev: Containers) -> PodUsage | None:
    """``record_from_points`` of a pod of one container (the usual case): the same steps
    on that container, without the loop, the list and the running sums."""
    global _LAST_WINDOW
    ((container, point),) = last.items()
    previous = prev.get(container)
    if previous is None:
        return None
    start, timestamp, used, memory = point
    prev_start, before, used_before, _ = previous
    # The pairs ``compute_usage`` refuses give a record without containers, as the loop's.
    if (prev_start is not None and (start is None or start < prev_start)) or used < used_before:
        return _new(PodUsage, (key[0], key[1], None, _ZERO, (), 0, 0))
    known = _LAST_WINDOW
    if known[0] is timestamp and known[1] is before:
        window, seconds = known[2], known[3]
    else:
        window = timestamp - before
        seconds = (
            float(window.days * 86_400 + window.seconds) + float(window.microseconds * 1000) / 1e9
        )
        _LAST_WINDOW = (timestamp, before, window, seconds)
    if window <= _ZERO:
        return _new(PodUsage, (key[0], key[1], None, _ZERO, (), 0, 0))
    cpu = int(float(used - used_before) / seconds)
    return _new(
        PodUsage,
        (
            key[0],
            key[1],
            timestamp,
            window,
            (_new(ContainerUsage, (container, cpu, memory)),),
            -(-cpu // 1_000_000) if 0 <= cpu <= _MAX_NANOS else nano_to_milli(cpu),
            memory * 1000 if 0 <= memory <= _MAX_UNITS else units_to_milli(memory),
        ),
    )


def records_from_points(
    namespace: str,
    names: Iterable[str],
    last_of: Mapping[PodKey, Containers],
    prev_of: Mapping[PodKey, Containers],
    known: dict[PodKey, PodUsage | None],
    usages_of: Mapping[PodKey, Sequence[tuple[str, Usage]] | None],
) -> list[PodUsage]:
    """The served records of the pods ``names`` of ``namespace`` (in that order) that
    ``last_of`` holds: each ``known``'s, or else computed and kept in ``known``, by
    ``record_of`` from the pod's usages in ``usages_of`` if it has some there (rarely: a
    reader rendered it first), else by ``record_from_points`` from its last and previous
    points. One loop for a reader's pods (the HPA reads every pod so at each scrape), with
    no call per pod of one container but ``_record_of_one``."""
    records: list[PodUsage] = []
    append = records.append
    for name in names:
        key = (namespace, name)
        record = known.get(key, _UNKNOWN)
        if record is _UNKNOWN:
            last = last_of.get(key)
            if last is None:
                continue
            if usages_of and key in usages_of:
                record = known[key] = record_of(key, usages_of[key])
            else:
                prev = prev_of.get(key)
                record = known[key] = (
                    None
                    if prev is None
                    else _record_of_one(key, last, prev)
                    if len(last) == 1
                    else record_from_points(key, last, prev)
                )
        if record is not None:
            append(record)  # type: ignore[arg-type]
    return records


def all_records(
    last_of: Mapping[PodKey, Containers], prev_of: Mapping[PodKey, Containers]
) -> dict[PodKey, PodUsage | None]:
    """The record of every pod of ``last_of`` (None: not served), as ``records_from_points``
    computes it on a first read: ``MetricsStorage.store`` fills a snapshot's map so right
    after pairing, while each pod's points are still in the processor's caches, when the
    previous snapshot's records were read (a reader reads every pod of its target once per
    scrape; reading them later went back to memory for each pod's points)."""
    records: dict[PodKey, PodUsage | None] = {}
    get = prev_of.get
    for key, last in last_of.items():
        prev = get(key)
        records[key] = (
            None
            if prev is None
            else _record_of_one(key, last, prev)
            if len(last) == 1
            else record_from_points(key, last, prev)
        )
    return records
