"""From a recorded run to the per-minute series ``podscale.replay.measures`` scores.

A run (``podscale.replay.run``) records the target's Ready pods and ``spec.replicas`` as
step functions: the value at the start and each change as ``(seconds since the run's
start, new value)``, seen on every change through the plane's informers. Here they become
exact time-weighted means per minute (``minute_means``: finer than sampling every 15 s),
the scale events and the highest ``spec.replicas`` of the window (``window_events``). The
demand side, ``demand_per_minute``, averages a rate function (requests/s) over each
minute's 60 whole seconds, times the CPU one request costs. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from podscale.replay.measures import ScaleEvent

__all__ = ["MINUTE", "Change", "demand_per_minute", "minute_means", "window_events"]

MINUTE: Final = 60.0
Change = tuple[float, int]


def minute_means(
    initial: float, changes: Sequence[Change], start: float, minutes: int
) -> tuple[float, ...]:
    """The mean of a step function over ``minutes`` minutes from ``start`` (seconds).

    The function is ``initial`` until the first change and each change's value from its
    time on; ``changes`` are in time order (several at one instant: the last wins).
    """
    means = [0.0] * minutes
    value, at, index = float(initial), start, 0
    end = start + minutes * MINUTE
    while index < len(changes) and changes[index][0] <= start:
        value = float(changes[index][1])
        index += 1
    while at < end:
        upto = min(changes[index][0], end) if index < len(changes) else end
        _spread(means, start, at, upto, value)
        at = upto
        if index < len(changes) and changes[index][0] <= at:
            value = float(changes[index][1])
            index += 1
    return tuple(m / MINUTE for m in means)


def _spread(sums: list[float], start: float, begin: float, end: float, value: float) -> None:
    """Add ``value x seconds`` of ``[begin, end)`` to the minutes it covers."""
    if value == 0 or end <= begin:
        return
    first = int((begin - start) // MINUTE)
    last = min(int((end - start) // MINUTE), len(sums) - 1)
    for m in range(first, last + 1):
        lo = max(begin, start + m * MINUTE)
        hi = min(end, start + (m + 1) * MINUTE)
        if hi > lo:
            sums[m] += value * (hi - lo)


def window_events(
    initial: int, changes: Sequence[Change], start: float, minutes: int
) -> tuple[tuple[ScaleEvent, ...], int]:
    """The changes inside ``[start, start + minutes)`` as scale events (minutes into the
    window), and the highest value held at any moment of the window."""
    end = start + minutes * MINUTE
    value = initial
    highest = None
    events: list[ScaleEvent] = []
    for at, new in changes:
        if at >= end:
            break
        if at <= start:
            value = new
            continue
        highest = value if highest is None else max(highest, value)
        if new != value:
            events.append(ScaleEvent((at - start) / MINUTE, value, new))
        value = new
    highest = value if highest is None else max(highest, value)
    return tuple(events), highest


def demand_per_minute(
    rate_at: Callable[[float], float], cpu_per_request: float, start: float, minutes: int
) -> tuple[float, ...]:
    """Mean CPU demand (millicores) of each minute from ``start``: the rate (requests/s) at
    each of the minute's 60 whole seconds, averaged, times ``cpu_per_request``."""
    return tuple(
        cpu_per_request * sum(rate_at(start + m * MINUTE + s) for s in range(int(MINUTE))) / MINUTE
        for m in range(minutes)
    )
