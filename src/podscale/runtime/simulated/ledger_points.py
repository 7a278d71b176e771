"""The scrape's hot loop of ``usage_ledger.UsageLedger`` as numpy over bound slots.

Every scrape reads every pod's points (``UsageLedger.pods_points``), and in between the
pods rarely change. Which slots of the ledger's arrays (``ledger_slots.LedgerSlots``) each
container of a tuple of ``running_pod.RunningPod`` views reads is answered once
(``bind_points``, index arrays), for pods whose containers all have a start time
(``RunningPod.counters``, the usual case); ``points_bound`` then gathers the counters and
working sets of the whole tuple at once and only builds the points in Python. A tuple with
any other pod is left whole to the general path, ``points_walked`` (``BoundPoints.laid`` is
None), which ``pods_points`` also is. Bindings are kept and made again as in
``ledger_bindings``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Final

import numpy as np
import numpy.typing as npt

from podscale.metrics.server.points import MetricsPoint
from podscale.runtime.simulated.ledger_slots import LedgerSlots
from podscale.runtime.simulated.running_pod import PodKey, RunningPod

__all__ = ["BoundPoints", "LaidPoints", "bind_points", "points_bound", "points_walked"]

_CORE_NANOS_PER_MILLI_SECOND: Final = 1_000_000  # 1 millicore for 1 s, in core-ns
# Products below this in magnitude truncate to int64 as ``int()`` truncates them.
_INT64_BOUND: Final = 2.0**63
Index = npt.NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class LaidPoints:
    """The pods of a ``BoundPoints`` with a container, in order: per pod its key and
    per container its name and start (``cells``, or ``one`` when every pod has exactly one
    container), and every container's counter and working set slot, in the same order."""

    cells: tuple[tuple[PodKey, tuple[tuple[str, datetime], ...]], ...]
    one: tuple[tuple[PodKey, str, datetime], ...] | None
    counters: Index
    gauges: Index


@dataclass(frozen=True, slots=True)
class BoundPoints:
    """``pods`` bound at ``generation`` (``laid``); ``laid`` is None when a pod has a
    container without a start time (no counter plan: the general path reads it)."""

    pods: tuple[RunningPod, ...]
    generation: int
    laid: LaidPoints | None


def bind_points(pods: tuple[RunningPod, ...], generation: int, slots: LedgerSlots) -> BoundPoints:
    """``pods`` bound to the slots of ``slots``, taken where missing (see above)."""
    cells: list[tuple[PodKey, tuple[tuple[str, datetime], ...]]] = []
    counters: list[int] = []
    gauges: list[int] = []
    for pod in pods:
        plan = pod.counters
        if plan is None:
            return BoundPoints(pods, generation, None)
        if not plan:
            continue  # no container: no point, no pod
        load = pod.load
        key = (load.namespace, load.name)
        for name, counter in plan:
            counters.append(slots.cpu_slot(key, counter))
            gauges.append(slots.memory_slot(key, name))
        cells.append((key, tuple([(name, counter[1]) for name, counter in plan])))
    one = None
    if all(len(pod_cells) == 1 for _, pod_cells in cells):
        one = tuple([(key, *pod_cells[0]) for key, pod_cells in cells])
    laid = LaidPoints(tuple(cells), one, np.array(counters, np.intp), np.array(gauges, np.intp))
    return BoundPoints(pods, generation, laid)


def _core_nanos(counters: npt.NDArray[np.float64]) -> list[int]:
    """``int(counter * 1_000_000)`` of each counter, 1 where that is not positive."""
    # The product is Python's ``float * int`` (the int converted exactly); ``astype``
    # truncates toward zero as ``int()`` does, for products int64 holds.
    products = counters * float(_CORE_NANOS_PER_MILLI_SECOND)
    if len(products) and not (products.min() > -_INT64_BOUND and products.max() < _INT64_BOUND):
        return [max(int(product), 1) for product in products.tolist()]
    return np.maximum(products.astype(np.int64), 1).tolist()  # type: ignore[no-any-return]


def points_bound(
    laid: LaidPoints, slots: LedgerSlots, now: datetime
) -> dict[PodKey, dict[str, MetricsPoint]]:
    """``UsageLedger.pods_points`` of the pods ``laid`` (a ``BoundPoints``'; each has a
    point)."""
    cores = _core_nanos(slots.cpu.values[laid.counters])
    # ``max(1, working set)``: what the metrics server keeps of a zero reading.
    memories: list[int] = np.maximum(slots.memory.values[laid.gauges], 1).tolist()
    # A MetricsPoint built by ``tuple.__new__``, as its generated ``__new__`` does, without
    # that Python-level call (one per container and scrape).
    new = tuple.__new__
    if laid.one is not None:  # one container per pod (the usual case): no inner loop
        return {
            key: {name: new(MetricsPoint, (began, now, core_ns, memory))}
            for (key, name, began), core_ns, memory in zip(laid.one, cores, memories, strict=True)
        }
    found: dict[PodKey, dict[str, MetricsPoint]] = {}
    readings = zip(cores, memories, strict=True)
    for key, cells in laid.cells:
        points: dict[str, MetricsPoint] = {}
        for (name, began), (core_ns, memory) in zip(cells, readings, strict=False):  # this pod's
            points[name] = new(MetricsPoint, (began, now, core_ns, memory))
        found[key] = points
    return found


def points_walked(
    pods: Iterable[RunningPod], slots: LedgerSlots, now: datetime
) -> dict[PodKey, dict[str, MetricsPoint]]:
    """``UsageLedger.pods_points`` of ``pods`` read from ``slots`` without a binding (and
    without taking a slot): the general path, any pod."""
    new = tuple.__new__
    counter_of, working_set = slots.counter, slots.working_set
    found: dict[PodKey, dict[str, MetricsPoint]] = {}
    for pod in pods:
        load = pod.load
        key = (load.namespace, load.name)
        points: dict[str, MetricsPoint] = {}
        started = pod.started
        for container in load.containers:
            name = container.name
            if name in points:
                continue  # the first of a repeated name stands
            began = started[name]
            core_ns = int(counter_of(key, (name, began)) * _CORE_NANOS_PER_MILLI_SECOND)
            memory = working_set(key, name)
            points[name] = new(
                MetricsPoint,
                (began, now, core_ns if core_ns > 0 else 1, memory if memory > 1 else 1),
            )
        if points:
            found[key] = points
    return found
