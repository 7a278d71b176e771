"""From two points to a usage: the CPU rate over the window between them, and the memory now.

metrics-server's ``resourceUsage`` (pkg/storage/types.go): CPU is the growth of the
cumulative counter divided by the time between the points, in whole nanocores (truncated, in
float64 as Go computes it); memory is the newer point's working set; the usage is stamped
with the newer point's time and the window between the two. Two points that cannot belong to
one run of a container (start time or counter going backwards) are refused with upstream's
messages; the storage then skips that container.

Pure. Used by ``storage``; rendered by ``render``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple

from podscale.metrics.server.points import MetricsPoint

__all__ = ["Usage", "UsageError", "compute_usage", "go_seconds"]

_START_DECREASED = "unexpected decrease in startTime of node/container"
_CPU_DECREASED = "unexpected decrease in cumulative CPU usage value"
_ZERO = timedelta(0)
_new = tuple.__new__


class UsageError(ValueError):
    """Two points that do not make a rate (upstream logs these and skips the container)."""


class Usage(NamedTuple):
    """A container's (or node's) usage over ``window`` up to ``timestamp``; a NamedTuple,
    as one is built per container and scrape read."""

    cpu_nanocores: int
    memory_bytes: int
    timestamp: datetime
    window: timedelta


def go_seconds(duration: timedelta) -> float:
    """``time.Duration.Seconds()``: whole seconds plus the nanosecond remainder, in float64."""
    # A timedelta keeps 0 <= microseconds < 10**6, so its whole seconds (floored, as the
    # division of its total microseconds would give them) are days and seconds, and the
    # nanosecond remainder is its microseconds: no division per call (one per container
    # and scrape read).
    return (
        float(duration.days * 86_400 + duration.seconds) + float(duration.microseconds * 1000) / 1e9
    )


def compute_usage(last: MetricsPoint, prev: MetricsPoint) -> Usage:
    """The usage between ``prev`` and the newer ``last``; ``UsageError`` if they are not two
    samples of one run. The caller guarantees ``last`` is strictly newer than ``prev``."""
    # ``last`` started before ``prev`` (a missing start time is Go's zero time: earlier
    # than any real one).
    prev_start = prev.start_time
    if prev_start is not None and (last.start_time is None or last.start_time < prev_start):
        raise UsageError(_START_DECREASED)
    if last.cumulative_cpu_used < prev.cumulative_cpu_used:
        raise UsageError(_CPU_DECREASED)
    window = last.timestamp - prev.timestamp
    if window <= _ZERO:
        raise UsageError("metric points out of order")  # storage never pairs these
    rate = float(last.cumulative_cpu_used - prev.cumulative_cpu_used) / go_seconds(window)
    # Built by ``tuple.__new__``, as the NamedTuple's generated ``__new__`` does, without that
    # Python-level call (one per container and scrape read).
    return _new(Usage, (int(rate), last.memory_usage, last.timestamp, window))
