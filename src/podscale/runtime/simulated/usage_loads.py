"""Which pods serve which load, and how an interval is cut: pure helpers of ``usage``.

``SimulatedUsage`` (its base, ``usage_accounting.UsageAccounting``) keeps a ``WorkloadLoad``
per loaded workload and a view of the running pods; ``assign_pods`` (through
``usage_plans.UsagePlans``) says which pods receive each workload's traffic (those its
selector matches in its namespace, as a Service routes; a pod that two selectors match
serves the first load in key order, so no request is counted twice) and which pods idle at
``IDLE_PROFILE``. ``grid_pieces`` cuts an interval at every ``step`` after an origin, so
integration pieces line up however often the interval is read; ``mean_rate`` is a rate
source's mean over an interval on that grid (each step at the rate of its start).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from operator import mul
from typing import Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.api.selectors import Selector
from podscale.runtime.load import ContainerCost, LoadProfile, PodLoad, RateSource
from podscale.runtime.load.rates import rates_at, rates_at_seconds
from podscale.runtime.simulated.running_pod import PodKey, RunningPod

__all__ = [
    "IDLE_PROFILE",
    "WORKLOAD_KINDS",
    "WorkloadLoad",
    "assign_pods",
    "built_in_workload",
    "grid_pieces",
    "mean_rate",
]

# A container nobody sends traffic to still ticks over (1m CPU, 8 MiB).
IDLE_PROFILE: Final = LoadProfile(
    default=ContainerCost(baseline_milli_cpu=1.0, baseline_memory=8 * 1024 * 1024)
)
WORKLOAD_KINDS: Final[dict[str, KindInfo]] = {
    kind: kind_for("apps/v1", kind) for kind in ("Deployment", "ReplicaSet", "StatefulSet")
}


@dataclass(frozen=True, slots=True)
class WorkloadLoad:
    """The load on one workload: its request rate over time and what its containers cost.
    ``api_version`` says where ``kind`` lives (a custom kind's group and version)."""

    kind: str
    namespace: str
    name: str
    rate: RateSource
    profile: LoadProfile
    api_version: str = "apps/v1"


def built_in_workload(api_version: str, kind: str) -> KindInfo | None:
    """The built-in workload kind (read from its spec and informer), or None for any other
    kind (a custom one, found through its scale subresource)."""
    info = WORKLOAD_KINDS.get(kind)
    return info if info is not None and info.api_version == api_version else None


def assign_pods(
    loads: Iterable[WorkloadLoad],
    pods: Mapping[PodKey, RunningPod],
    selector_of: Callable[[WorkloadLoad], Selector | None],
) -> tuple[list[tuple[WorkloadLoad, list[PodLoad]]], list[PodLoad]]:
    """Each load with the pods serving it (by key), and the pods no load claims. A load
    whose selector is None (workload gone, or selecting nothing) gets no pods.

    A selector with an exact requirement (``app=web``) only looks at the pods carrying that
    label pair: matching every pod against every load made a fleet quadratic."""
    claimed: set[PodKey] = set()
    members: list[tuple[WorkloadLoad, list[PodLoad]]] = []
    keys = sorted(pods)
    by_namespace: dict[str, list[PodKey]] = {}
    by_label: dict[tuple[str, str, str], list[PodKey]] = {}
    for key in keys:
        namespace = pods[key].load.namespace
        by_namespace.setdefault(namespace, []).append(key)
        for label, value in pods[key].labels.items():
            by_label.setdefault((namespace, label, value), []).append(key)
    for load in loads:
        selector = selector_of(load)
        serving: list[PodLoad] = []
        if selector is not None:
            for key in _candidates(load.namespace, selector, by_namespace, by_label):
                pod = pods[key]
                if key not in claimed and selector.matches(pod.labels):
                    serving.append(pod.load)
                    claimed.add(key)
        members.append((load, serving))
    idle = [pods[key].load for key in keys if key not in claimed]
    return members, idle


def _candidates(
    namespace: str,
    selector: Selector,
    by_namespace: Mapping[str, list[PodKey]],
    by_label: Mapping[tuple[str, str, str], list[PodKey]],
) -> list[PodKey]:
    """The keys (sorted) of the pods of ``namespace`` that ``selector`` may match."""
    for requirement in selector.requirements:
        value = selector.requires_exact_match(requirement.key)
        if value is not None:
            return list(by_label.get((namespace, requirement.key, value), ()))
    return list(by_namespace.get(namespace, ()))


def grid_pieces(
    start: datetime, end: datetime, origin: datetime, step: timedelta
) -> list[tuple[datetime, datetime]]:
    """``[start, end)`` cut at ``origin + k * step``; an empty interval gives one piece."""
    pieces = []
    cut = start - (start - origin) % step + step
    while cut < end:
        pieces.append((start, cut))
        start, cut = cut, cut + step
    pieces.append((start, end))
    return pieces


def mean_rate(
    rate: RateSource, start: datetime, end: datetime, origin: datetime, step: timedelta
) -> float:
    """``rate``'s mean over ``[start, end)``, each ``step`` of the grid from ``origin`` at the
    rate of its start (the rate at ``start`` for an empty interval).

    Exactly what crediting each grid piece at its own rate adds up to, in one number: the
    cost is one ``rate_at`` per step and workload, never per pod."""
    span = (end - start).total_seconds()
    if span <= 0:
        return rate.rate_at(start - origin)
    # Float seconds from the origin: a timedelta per step only where the source needs one.
    step_s = step.total_seconds()
    t = (start - origin).total_seconds()
    stop = (end - origin).total_seconds()
    cut = (t // step_s + 1) * step_s
    # Each step's start and length; the rates read in one call (``rates_at``), then summed
    # in step order as crediting the steps one by one would.
    walk = _whole_steps if not step.microseconds else _walk_steps
    starts, lengths = walk(t, cut, stop, step_s)
    total = 0.0
    # Each step's rate times its length (``map`` over the two lists, one entry per step
    # each), added up in step order.
    for part in map(mul, _rates_of(rate, starts, step), lengths):
        total += part
    return total / span


def _walk_steps(
    t: float, cut: float, stop: float, step_s: float
) -> tuple[list[float], list[float]]:
    """The starts and lengths of the grid's pieces of ``[t, stop)``, ``cut`` the first cut
    after ``t``, each found from the one before."""
    starts: list[float] = []
    lengths: list[float] = []
    while cut < stop:
        starts.append(t)
        lengths.append(cut - t)
        t, cut = cut, cut + step_s
    starts.append(t)
    lengths.append(stop - t)
    return starts, lengths


def _whole_steps(
    t: float, cut: float, stop: float, step_s: float
) -> tuple[list[float], list[float]]:
    """``_walk_steps`` for a step of whole seconds, the cuts counted out by ``range``: every
    cut is then a whole number of seconds (see ``_rates_of``), so ``cut + step_s`` is exact
    and equals the int sum read back as a float, every inner length is ``step_s`` exactly,
    and a whole ``cut`` is below ``stop`` exactly when below ``ceil(stop)``."""
    step = int(step_s)
    cuts = list(map(float, range(int(cut), math.ceil(stop), step)))
    if not cuts:
        return [t], [stop - t]
    lengths = [cuts[0] - t]
    lengths += [step_s] * (len(cuts) - 1)
    lengths.append(stop - cuts[-1])
    return [t, *cuts], lengths


def _rates_of(rate: RateSource, starts: list[float], step: timedelta) -> list[float]:
    """``rates_at(rate, [timedelta(seconds=s) for s in starts])`` for ``mean_rate``'s grid.

    On a step of whole seconds every start after the first is a cut ``(k + 1) * step``: a
    whole number of seconds (``//`` of floats gives an integral float, and sums and products
    of integral floats below 2**53 are exact; a datetime span is far below), which
    ``rates_at_seconds`` reads without a timedelta each. The first start (the interval's,
    any microsecond) joins them only when it is whole as well; otherwise it is read as a
    timedelta on its own."""
    if step.microseconds:
        return rates_at(rate, [timedelta(seconds=s) for s in starts])
    first = starts[0]
    if first.is_integer():
        return rates_at_seconds(rate, starts)
    head = rates_at(rate, [timedelta(seconds=first)])
    return head + rates_at_seconds(rate, starts[1:]) if len(starts) > 1 else head
