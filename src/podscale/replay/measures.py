"""The scaling-quality measures: per-minute series of one run in, totals out.

Pure functions over plain values (docs/replay.md has the definitions in prose). A run is
four series over the evaluation window's minutes, all of one target workload:
``cpu_demand`` (mean offered CPU, millicores, noise-free), ``needed`` (pods that serve it
at the target utilization), ``ready`` (mean Ready pods) and ``replicas`` (mean
``spec.replicas``), plus the window's scale events and its highest ``spec.replicas``.
``score`` turns them into ``Totals``; ``fixed_at_peak`` and ``oracle`` build the two
reference runs from the same demand. ``podscale.replay.sampling`` makes the series from a
recorded run, ``podscale.replay.report`` prints the totals.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

__all__ = [
    "RISE_FACTOR",
    "RISE_LOOKBACK",
    "MinuteSeries",
    "PodShape",
    "ScaleEvent",
    "Totals",
    "fixed_at_peak",
    "needed_pods",
    "oracle",
    "reaction_times",
    "score",
    "slo_violated",
]

# A rise of ``needed`` by at least 20% over the lowest value of the 5 minutes before.
RISE_FACTOR: Final = 1.2
RISE_LOOKBACK: Final = 5
# Demand / capacity ratios are rounded to this many digits before ``ceil``: 0.1 + 0.2 must
# not need one pod more than 0.3.
_DIGITS: Final = 9


@dataclass(frozen=True, slots=True)
class PodShape:
    """What one pod of the target asks for: CPU request and limit (millicores; None: no
    limit) and the target utilization ``u`` as a fraction (0.5 for 50%)."""

    cpu_request: float
    cpu_limit: float | None
    utilization: float

    def __post_init__(self) -> None:
        if not (self.cpu_request > 0 and self.utilization > 0):
            raise ValueError("the CPU request and the target utilization must be positive")


class ScaleEvent(NamedTuple):
    """A change of ``spec.replicas``, ``minute`` minutes into the evaluation window."""

    minute: float
    from_replicas: int
    to_replicas: int


@dataclass(frozen=True, slots=True)
class MinuteSeries:
    """One run over the evaluation window, one entry per minute."""

    cpu_demand: tuple[float, ...]
    needed: tuple[int, ...]
    ready: tuple[float, ...]
    replicas: tuple[float, ...]
    events: tuple[ScaleEvent, ...] = ()
    max_replicas: int = 0

    def __post_init__(self) -> None:
        lengths = {len(self.cpu_demand), len(self.needed), len(self.ready), len(self.replicas)}
        if len(lengths) != 1:
            raise ValueError("the per-minute series must have the same length")

    def __len__(self) -> int:
        return len(self.needed)


@dataclass(frozen=True, slots=True)
class Totals:
    """The measures of one run (see ``score``); reaction times are None without a rise."""

    under_pod_minutes: float
    under_minutes: int
    under_beyond_one_pod_minutes: float
    slo_violation_minutes: int
    over_pod_hours: float
    cost_pod_hours: float
    scale_ups: int
    scale_downs: int
    max_replicas: int
    rises: int
    react_median_minutes: float | None
    react_max_minutes: float | None


def needed_pods(cpu_demand: float, pod: PodShape) -> int:
    """``ceil(cpu_demand / (cpu_request x u))``: the pods that serve the demand at target.
    Any demand at all needs a pod, however small (rounding must not make it 0)."""
    pods = math.ceil(round(cpu_demand / (pod.cpu_request * pod.utilization), _DIGITS))
    return max(1, pods) if cpu_demand > 0 else 0


def slo_violated(cpu_demand: float, ready: float, pod: PodShape) -> bool:
    """The ready pods at their CPU limit cannot serve the demand. Without a limit a pod can
    take any load, so only a minute without ready pods violates; with 0 ready pods any
    demand does."""
    if ready <= 0:
        return cpu_demand > 0
    if pod.cpu_limit is None:
        return False
    return cpu_demand > ready * pod.cpu_limit


def reaction_times(needed: Sequence[int], ready: Sequence[float]) -> list[int]:
    """Minutes from each rise of ``needed`` until ``ready >= needed``.

    Minute ``m`` rises when ``needed[m] > needed[m-1]`` and ``needed[m]`` is at least
    ``RISE_FACTOR`` times the lowest ``needed`` of the ``RISE_LOOKBACK`` minutes before it
    (the window's first minute has no history and never rises). A rise stays open until the
    first minute ``m' >= m`` with ``ready[m'] >= needed[m']``, and its time is ``m' - m``
    (0 when the pods were already there); rises while one is open belong to it. A rise still
    open at the window's end counts the minutes to the end: a lower bound.
    """
    times: list[int] = []
    opened: int | None = None
    for m in range(len(needed)):
        if opened is None and m > 0 and needed[m] > needed[m - 1]:
            base = min(needed[max(0, m - RISE_LOOKBACK) : m])
            if needed[m] >= RISE_FACTOR * base:
                opened = m
        if opened is not None and ready[m] >= needed[m]:
            times.append(m - opened)
            opened = None
    if opened is not None:
        times.append(len(needed) - opened)
    return times


def score(series: MinuteSeries, pod: PodShape) -> Totals:
    """The totals of one run (every sum is over the window's minutes)."""
    shortfall = [max(0.0, n - r) for n, r in zip(series.needed, series.ready, strict=True)]
    surplus = [max(0.0, r - n) for n, r in zip(series.needed, series.ready, strict=True)]
    reactions = reaction_times(series.needed, series.ready)
    return Totals(
        under_pod_minutes=sum(shortfall),
        under_minutes=sum(1 for s in shortfall if s > 0),
        under_beyond_one_pod_minutes=sum(max(0.0, s - 1) for s in shortfall),
        slo_violation_minutes=sum(
            1
            for demand, ready in zip(series.cpu_demand, series.ready, strict=True)
            if slo_violated(demand, ready, pod)
        ),
        over_pod_hours=sum(surplus) / 60,
        cost_pod_hours=sum(series.replicas) / 60,
        scale_ups=sum(1 for e in series.events if e.to_replicas > e.from_replicas),
        scale_downs=sum(1 for e in series.events if e.to_replicas < e.from_replicas),
        max_replicas=series.max_replicas,
        rises=len(reactions),
        react_median_minutes=float(statistics.median(reactions)) if reactions else None,
        react_max_minutes=float(max(reactions)) if reactions else None,
    )


def fixed_at_peak(cpu_demand: Sequence[float], needed: Sequence[int]) -> MinuteSeries:
    """The hindsight reference: as many pods as the busiest minute needs, all the time."""
    peak = max(needed, default=0)
    flat = tuple(float(peak) for _ in needed)
    return MinuteSeries(tuple(cpu_demand), tuple(needed), flat, flat, (), peak)


def oracle(cpu_demand: Sequence[float], needed: Sequence[int]) -> MinuteSeries:
    """The perfect reference: exactly the needed pods ready every minute; each change of
    ``needed`` is a scale event at its minute."""
    events = tuple(
        ScaleEvent(float(m), needed[m - 1], needed[m])
        for m in range(1, len(needed))
        if needed[m] != needed[m - 1]
    )
    exact = tuple(float(n) for n in needed)
    return MinuteSeries(
        tuple(cpu_demand), tuple(needed), exact, exact, events, max(needed, default=0)
    )
