"""The hot loops of ``usage_ledger.UsageLedger`` over bindings it keeps between pod changes.

Every advance of ``usage.SimulatedUsage`` credits every pod (``UsageLedger.credit_laid``) and
every scrape reads every pod's points (``UsageLedger.pods_points``); in between, the pods
rarely change. What those loops looked up per pod each time (its key, its workload's index
and readiness, the ledger's counter and gauge maps of the pod, its containers' counter keys
and starts) is answered once here, as a binding of a ``credit_layout.CreditLayout`` or of a
tuple of ``running_pod.RunningPod`` views to the ledger's per-pod maps:

* ``bind_credit`` / ``credit_bound``: ``credit_laid``'s loop, the same steps on the same
  values in the same order (the per-pod requests first, then the containers; the two touch
  different maps, and each map sees its updates in the order it always did).
* ``bind_points`` / ``points_bound``: ``pods_points``' loop for pods whose containers all
  have a start time (``RunningPod.counters``, the usual case); a tuple with any other pod
  is left whole to the general path, ``points_walked`` (``BoundPoints.laid`` is None),
  which ``pods_points`` also is.

Binding fetches the pod's maps from the ledger's per-pod dicts, creating an empty one where
there is none yet (which reads as no entry does: every reader takes a missing map as empty).
A binding holds those very maps, so it is good only while the ledger drops none of them: the
ledger stamps each binding with a generation it bumps whenever it drops a pod's maps
(``UsageLedger.forget`` of a whole pod) and binds again when the stamp is old.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from podscale.metrics.server.points import MetricsPoint
from podscale.runtime.load import DrawnRows
from podscale.runtime.simulated.credit_layout import CreditLayout
from podscale.runtime.simulated.running_pod import PodKey, RunningPod

__all__ = [
    "BoundCredit",
    "BoundPoints",
    "bind_credit",
    "bind_points",
    "credit_bound",
    "points_bound",
    "points_walked",
]

_CORE_NANOS_PER_MILLI_SECOND: Final = 1_000_000  # 1 millicore for 1 s, in core-ns
Counters = dict[tuple[str, datetime], float]
Gauges = dict[str, int]
# What a pod with nothing credited yet reads from (never written).
_NO_COUNTERS: Final[Mapping[tuple[str, datetime], float]] = {}
_NO_GAUGES: Final[Mapping[str, int]] = {}
_PointCell = tuple[str, tuple[str, datetime], datetime]
# A laid pod: its key, counter and gauge maps, its cells and its one cell when it has one.
_PointPod = tuple[PodKey, Counters, Gauges, tuple[_PointCell, ...], _PointCell | None]
_CreditCell = tuple[int, str, datetime, tuple[str, datetime], Counters, Gauges, str | None]


@dataclass(frozen=True, slots=True)
class BoundCredit:
    """``layout`` bound at ``generation``: per pod its key and its workload's index (-1 when
    not ready: it serves nothing); per container with a start time, in layout order, its
    row in the draw (-1 on standby: it uses nothing), name, start, counter key, its pod's
    counter and gauge maps and its node (None when the ledger keeps no sums for it)."""

    layout: CreditLayout
    generation: int
    pods: tuple[tuple[PodKey, int], ...]
    cells: tuple[_CreditCell, ...]


@dataclass(frozen=True, slots=True)
class BoundPoints:
    """``pods`` bound at ``generation``: per pod with a container, in order, its key, its
    counter and gauge maps and per container (name, counter key, start); None when a pod
    has a container without a start time (no counter plan: the general path reads it)."""

    pods: tuple[RunningPod, ...]
    generation: int
    laid: tuple[_PointPod, ...] | None


def _maps(
    key: PodKey, cpu_of: dict[PodKey, Counters], memory_of: dict[PodKey, Gauges]
) -> tuple[Counters, Gauges]:
    """The pod's counter and gauge maps in the ledger's dicts, made empty where missing."""
    counters = cpu_of.get(key)
    if counters is None:
        counters = cpu_of[key] = {}
    gauges = memory_of.get(key)
    if gauges is None:
        gauges = memory_of[key] = {}
    return counters, gauges


def bind_credit(
    layout: CreditLayout,
    generation: int,
    cpu_of: dict[PodKey, Counters],
    memory_of: dict[PodKey, Gauges],
) -> BoundCredit:
    """``layout`` bound to the ledger's maps ``cpu_of`` and ``memory_of`` (see above)."""
    pods: list[tuple[PodKey, int]] = []
    cells: list[_CreditCell] = []
    for key, workload, ready, standby, node, laid in layout.pods:
        pods.append((key, workload if ready else -1))
        if not laid:
            continue  # ``credit_laid`` fetched no maps for a pod without a started container
        counters, gauges = _maps(key, cpu_of, memory_of)
        for row, name, began, counter in laid:
            cells.append((-1 if standby else row, name, began, counter, counters, gauges, node))
    return BoundCredit(layout, generation, tuple(pods), tuple(cells))


def credit_bound(
    bound: BoundCredit,
    drawn: DrawnRows,
    requests: dict[PodKey, float],
    node_cpu: dict[str, float],
    node_memory: dict[str, int],
    start: datetime,
    end: datetime,
    span: float,
) -> None:
    """``UsageLedger.credit_laid``'s loop over ``bound``: requests served into
    ``requests``, the containers into their maps and their nodes' sums of the interval."""
    shares, cpu_rows, memory_rows = drawn
    # ``request_rate * span`` per workload, once: the same product for each of its pods;
    # the last entry (index -1) is a pod not ready (rate 0.0).
    served = [share * span for share in shares]
    served.append(0.0 * span)
    for key, workload in bound.pods:
        requests[key] = requests.get(key, 0.0) + served[workload]
    floor = math.floor
    for row, name, began, counter, counters, gauges, node in bound.cells:
        # ``end - max(start, began)``: a container running since before the interval (the
        # usual case) is credited the whole span.
        if began <= start:
            seconds = span
        else:
            seconds = (end - began).total_seconds()
            if seconds < 0.0:
                seconds = 0.0
        if row < 0:
            milli_cpu = memory = 0
        else:
            milli_cpu, memory = floor(cpu_rows[row]), floor(memory_rows[row])
        used = milli_cpu * seconds  # the same product for the pod and its node
        counters[counter] = counters.get(counter, 0.0) + used
        gauges[name] = memory
        if node is not None:
            node_cpu[node] += used
            node_memory[node] += memory


def bind_points(
    pods: tuple[RunningPod, ...],
    generation: int,
    cpu_of: dict[PodKey, Counters],
    memory_of: dict[PodKey, Gauges],
) -> BoundPoints:
    """``pods`` bound to the ledger's maps ``cpu_of`` and ``memory_of`` (see above)."""
    laid: list[_PointPod] = []
    for pod in pods:
        plan = pod.counters
        if plan is None:
            return BoundPoints(pods, generation, None)
        if not plan:
            continue  # no container: no point, no pod
        load = pod.load
        key = (load.namespace, load.name)
        counters, gauges = _maps(key, cpu_of, memory_of)
        cells = tuple([(n, c, c[1]) for n, c in plan])
        # A pod of one container (the usual case) also as that container's cell.
        laid.append((key, counters, gauges, cells, cells[0] if len(cells) == 1 else None))
    return BoundPoints(pods, generation, tuple(laid))


def points_bound(
    laid: tuple[_PointPod, ...], now: datetime
) -> dict[PodKey, dict[str, MetricsPoint]]:
    """``UsageLedger.pods_points`` of the pods ``laid`` (a ``BoundPoints``'; each has a
    point)."""
    # A MetricsPoint built by ``tuple.__new__``, as its generated ``__new__`` does, without
    # that Python-level call (one per container and scrape).
    new = tuple.__new__
    found: dict[PodKey, dict[str, MetricsPoint]] = {}
    for key, counters, gauges, plan, one in laid:
        if one is not None:  # the loop below over one container, without the loop
            name, counter, began = one
            core_ns = int(counters.get(counter, 0.0) * _CORE_NANOS_PER_MILLI_SECOND)
            memory = gauges.get(name, 0)
            found[key] = {
                name: new(
                    MetricsPoint,
                    (began, now, core_ns if core_ns > 0 else 1, memory if memory > 1 else 1),
                )
            }
            continue
        points: dict[str, MetricsPoint] = {}
        for name, counter, began in plan:
            core_ns = int(counters.get(counter, 0.0) * _CORE_NANOS_PER_MILLI_SECOND)
            memory = gauges.get(name, 0)
            points[name] = new(
                MetricsPoint,
                (began, now, core_ns if core_ns > 0 else 1, memory if memory > 1 else 1),
            )
        found[key] = points
    return found


def points_walked(
    pods: Iterable[RunningPod],
    cpu_of: Mapping[PodKey, Mapping[tuple[str, datetime], float]],
    memory_of: Mapping[PodKey, Mapping[str, int]],
    now: datetime,
) -> dict[PodKey, dict[str, MetricsPoint]]:
    """``UsageLedger.pods_points`` of ``pods`` read from the ledger's maps ``cpu_of`` and
    ``memory_of`` without a binding: the general path (any pod, lookups hoisted)."""
    no_counters = _NO_COUNTERS
    # A MetricsPoint built by ``tuple.__new__``, as its generated ``__new__`` does,
    # without that Python-level call (one per container and scrape).
    new = tuple.__new__
    found: dict[PodKey, dict[str, MetricsPoint]] = {}
    for pod in pods:
        load = pod.load
        key = (load.namespace, load.name)
        counters = cpu_of.get(key) or no_counters
        gauges = memory_of.get(key) or _NO_GAUGES
        points: dict[str, MetricsPoint] = {}
        plan = pod.counters
        if plan is not None:
            # The loop below, over the containers as the pod's view named them once.
            for name, counter in plan:
                core_ns = int(counters.get(counter, 0.0) * _CORE_NANOS_PER_MILLI_SECOND)
                memory = gauges.get(name, 0)
                points[name] = new(
                    MetricsPoint,
                    (
                        counter[1],
                        now,
                        core_ns if core_ns > 0 else 1,
                        memory if memory > 1 else 1,
                    ),
                )
            if points:
                found[key] = points
            continue
        started = pod.started
        for container in load.containers:
            name = container.name
            if name in points:
                continue
            began = started[name]
            core_ns = int(counters.get((name, began), 0.0) * _CORE_NANOS_PER_MILLI_SECOND)
            memory = gauges.get(name, 0)
            points[name] = new(
                MetricsPoint,
                (began, now, core_ns if core_ns > 0 else 1, memory if memory > 1 else 1),
            )
        if points:
            found[key] = points
    return found
