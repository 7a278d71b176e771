"""The bookkeeping behind the simulated kubelets' stats: what each pod has used so far.

``UsageLedger`` turns a sequence of usage snapshots (``podscale.runtime.load.PodUsage`` from
``compute_usage``, each valid over an interval of virtual time) into what a kubelet's Summary
API reports: per container a CUMULATIVE CPU counter in core-nanoseconds since the
container started and a memory working set; per node a counter and working set that include
the node's own system usage; per pod the cumulative number of requests served. It reads
each pod through its ``running_pod.RunningPod`` view (which containers run since when, read
from the status the simulated kubelet wrote).

Contract:

* A container is credited only from its ``startedAt``: a container that started inside an
  interval gets the part after its start, so a fresh container's counter is zero at its
  start time, as the metrics server assumes for its first point.
* A restart (a new ``startedAt``) starts a new counter from zero; the old one is forgotten.
* A pod labelled Standby (``controllers.kapacity.kind.POD_STATE_LABEL``: Kapacity's standby
  state, its resources reclaimed) uses nothing while it carries the label.
* Counters and working sets are reported as whole numbers of at least 1: the metrics server
  drops a pod with a zero reading (a real container always uses something), and a pod
  dropped from the metrics would read to the HPA as a pod without metrics.

No clock and no I/O: ``usage.SimulatedUsage`` decides the intervals and calls
``credit_laid`` (``credit`` of the usages ``draw_usage`` would build, read straight from
the draw, ``podscale.runtime.load.usage.draw_rows``, through a ``credit_layout.CreditLayout``
it keeps between pod changes; ``credit_drawn`` is the same with the layout made afresh).
The numbers per container and pod live in the slots of numpy arrays (``ledger_slots``), so
that both hot loops, crediting a draw and reading every pod's points, are a few array
operations (``ledger_bindings``, ``ledger_points``) over bindings of the layout or of the pod
views to those slots, kept between calls (``points_binding`` and ``bound_points`` for a
caller that keeps the pods it reads); ``credit`` and ``pods_points`` are the general paths,
one slot at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.metrics.server.points import MetricsPoint
from podscale.metrics.server.summary import (
    ContainerStats,
    CPUStats,
    MemoryStats,
    NodeStats,
    PodStats,
)
from podscale.runtime.load import DrawnRows, PodUsage, UsagePlan
from podscale.runtime.simulated.credit_layout import CreditLayout, credit_layout
from podscale.runtime.simulated.ledger_bindings import (
    NODE_SYSTEM_MEMORY,
    NODE_SYSTEM_MILLI_CPU,
    BoundCredit,
    bind_credit,
    credit_bound,
)
from podscale.runtime.simulated.ledger_points import (
    BoundPoints,
    bind_points,
    points_bound,
    points_walked,
)
from podscale.runtime.simulated.ledger_slots import LedgerSlots
from podscale.runtime.simulated.running_pod import PodKey, RunningPod

__all__ = ["NODE_SYSTEM_MEMORY", "NODE_SYSTEM_MILLI_CPU", "UsageLedger"]

_CORE_NANOS_PER_MILLI_SECOND: Final = 1_000_000  # 1 millicore for 1 s, in core-ns


def _seconds(delta: timedelta) -> float:
    """``max(delta.total_seconds(), 0.0)``, spelled as the test it makes."""
    seconds = delta.total_seconds()
    return 0.0 if seconds < 0.0 else seconds


class UsageLedger:
    """Cumulative usage per container, node and pod; see the module docstring."""

    def __init__(self) -> None:
        # Per container and pod, in the slots of numpy arrays (``ledger_slots``).
        self._slots = LedgerSlots()
        self._node_cpu: dict[str, float] = {}
        self._node_memory: dict[str, int] = {}
        self._node_started: dict[str, datetime] = {}
        # Bumped whenever slots are given back: the bindings (``ledger_bindings``,
        # ``ledger_points``) hold slot numbers, and one made before is made again.
        self._generation = 0
        self._bound_credit: BoundCredit | None = None

    def credit(
        self,
        usages: Iterable[PodUsage],
        pods: Mapping[PodKey, RunningPod],
        nodes: Iterable[str],
        start: datetime,
        end: datetime,
    ) -> None:
        """Account ``usages`` as constant over ``[start, end)``; ``nodes`` are the nodes to
        keep counters for (each also runs its system usage)."""
        span = _seconds(end - start)
        node_cpu, node_memory = self._open_nodes(nodes, start, span)
        # The general path (idle pods): one slot at a time. Each array is read after its
        # slot is taken (taking one may grow it).
        slots = self._slots
        for namespace, pod_name, usage_node, request_rate, containers in usages:
            key = (namespace, pod_name)
            pod = pods.get(key)
            if pod is None:
                continue
            slot = slots.request_slot(key)
            slots.requests.values[slot] += request_rate * span
            standby = pod.standby
            started = pod.started
            node = usage_node if usage_node in node_cpu else None
            for name, milli_cpu, memory in containers:
                began = started.get(name)
                if began is None:
                    continue
                # ``end - max(start, began)``: a container running since before the
                # interval (the usual case) is credited the whole span.
                seconds = span if began <= start else _seconds(end - began)
                if standby:
                    milli_cpu = memory = 0
                used = milli_cpu * seconds
                slot = slots.cpu_slot(key, (name, began))
                slots.cpu.values[slot] += used
                slot = slots.memory_slot(key, name)
                slots.memory.values[slot] = memory
                if node is not None:
                    node_cpu[node] += used
                    node_memory[node] += memory
        self._close_nodes(node_cpu, node_memory)

    def credit_drawn(
        self,
        plan: UsagePlan,
        drawn: DrawnRows,
        pods: Mapping[PodKey, RunningPod],
        nodes: Iterable[str],
        start: datetime,
        end: datetime,
    ) -> None:
        """``credit(usages_of(plan, drawn), pods, nodes, start, end)`` without the
        ``PodUsage``s: ``credit_laid`` through the layout of ``plan`` over ``pods``."""
        self.credit_laid(credit_layout(plan, pods, nodes), drawn, start, end)

    def credit_laid(
        self, layout: CreditLayout, drawn: DrawnRows, start: datetime, end: datetime
    ) -> None:
        """``credit_drawn`` of the plan, pods and nodes ``layout`` was made of: every advance
        of ``SimulatedUsage`` credits one draw, and building a tuple per container and pod
        only for this loop to take them apart again cost more than crediting. The same
        arithmetic as ``credit`` on the same values, with each usage read from the drawn
        rows where ``usages_of`` would have put it, and what does not change between draws
        (which pod and slots, its containers' starts, standby, node) read from the layout
        bound to the ledger's slots (``ledger_bindings``: numpy over the whole draw)."""
        span = _seconds(end - start)
        started = self._node_started
        for name in layout.nodes:
            started.setdefault(name, start)
        # The binding is kept while the layout is the same and no slot was given back.
        bound = self._bound_credit
        if bound is None or bound.layout is not layout or bound.generation != self._generation:
            bound = bind_credit(layout, self._generation, self._slots)
            self._bound_credit = bound
        cpu, memory = credit_bound(bound, self._slots, drawn, start, end, span)
        nodes = bound.nodes
        self._close_nodes(dict(zip(nodes, cpu, strict=True)), dict(zip(nodes, memory, strict=True)))

    def _open_nodes(
        self, nodes: Iterable[str], start: datetime, span: float
    ) -> tuple[dict[str, float], dict[str, int]]:
        """The interval's per-node sums (``credit``) opened with each node's system usage;
        a node seen for the first time started at ``start``."""
        node_cpu: dict[str, float] = {}
        node_memory: dict[str, int] = {}
        for name in nodes:
            self._node_started.setdefault(name, start)
            node_cpu[name] = NODE_SYSTEM_MILLI_CPU * span
            node_memory[name] = NODE_SYSTEM_MEMORY
        return node_cpu, node_memory

    def _close_nodes(self, node_cpu: dict[str, float], node_memory: dict[str, int]) -> None:
        """Add the interval's per-node sums to the nodes' counters and gauges."""
        for name, milli_seconds in node_cpu.items():
            self._node_cpu[name] = self._node_cpu.get(name, 0.0) + milli_seconds
            self._node_memory[name] = node_memory[name]

    def requests_served(self, key: PodKey) -> float:
        """Requests the pod has served so far (its share of the traffic, integrated)."""
        return self._slots.served(key)

    @property
    def requests_by_pod(self) -> Mapping[PodKey, float]:
        """``requests_served`` of every pod that served any (or was credited), by key, as
        of now, never changed afterwards (``ledger_slots.ServedSnapshot``: a publish keeps
        it as it is, and reads a pod's through it only when its rates are read)."""
        return self._slots.served_by_pod()

    def forget(self, key: PodKey, keep: RunningPod | None = None) -> None:
        """Drop the pod's counters (all of them, or those of containers that ``keep`` no
        longer runs under the same start time)."""
        if keep is None:
            self._slots.drop(key)
            self._generation += 1
        elif self._slots.drop_stale(key, keep):
            self._generation += 1

    def contents(self) -> dict[str, Mapping[Any, Any]]:
        """Every number the ledger keeps, as plain maps (tests compare ledgers by it)."""
        contents = self._slots.maps()
        contents["node_cpu"] = self._node_cpu
        contents["node_memory"] = self._node_memory
        contents["node_started"] = self._node_started
        return contents

    def pod_stats(self, pod: RunningPod, now: datetime) -> PodStats:
        """The pod as the Summary API reports it at ``now``."""
        key = pod.key
        counter, working_set = self._slots.counter, self._slots.working_set
        containers = []
        for container in pod.load.containers:
            name = container.name
            began = pod.started[name]
            core_ns = int(counter(key, (name, began)) * _CORE_NANOS_PER_MILLI_SECOND)
            cpu = CPUStats(now, core_ns if core_ns > 0 else 1)
            memory = MemoryStats(now, max(1, working_set(key, name)))
            containers.append(ContainerStats(name, began, cpu, memory))
        load = pod.load
        return PodStats(load.namespace, load.name, pod.uid, pod.start_time, tuple(containers))

    def node_stats(self, name: str, now: datetime) -> NodeStats:
        """The node's own line of its Summary at ``now``."""
        core_ns = self._node_cpu.get(name, 0.0) * _CORE_NANOS_PER_MILLI_SECOND
        return NodeStats(
            node_name=name,
            start_time=self._node_started.get(name, now),
            cpu=CPUStats(now, max(1, int(core_ns))),
            memory=MemoryStats(now, max(1, self._node_memory.get(name, NODE_SYSTEM_MEMORY))),
        )

    def pod_points(self, pod: RunningPod, now: datetime) -> dict[str, MetricsPoint]:
        """``pod_stats(pod, now)`` as the metrics server decodes it
        (``points.decode_summary``): one point per container, by name, the first of a
        repeated name standing. Every reading is at least 1 and every container has a start
        time, so none is dropped; a pod without containers gives no point (and no pod)."""
        return self.pods_points([pod], now).get(pod.key, {})

    def pods_points(
        self, pods: Iterable[RunningPod], now: datetime
    ) -> dict[PodKey, dict[str, MetricsPoint]]:
        """``pod_points`` of each pod, by key, leaving out the pods without a point
        (``ledger_points.points_walked``; a scrape reads through ``bound_points``)."""
        return points_walked(pods, self._slots, now)

    def points_binding(
        self, pods: tuple[RunningPod, ...], bound: BoundPoints | None = None
    ) -> BoundPoints:
        """``bound`` when it is ``pods`` bound to this ledger's slots and still good, else
        ``pods`` bound afresh (``ledger_points.bind_points``): a caller that reads the
        same pods at every scrape keeps the answer and passes it back."""
        if bound is not None and bound.pods is pods and bound.generation == self._generation:
            return bound
        return bind_points(pods, self._generation, self._slots)

    def bound_points(
        self, bound: BoundPoints, now: datetime
    ) -> dict[PodKey, dict[str, MetricsPoint]]:
        """``pods_points(bound.pods, now)`` through the binding ``points_binding`` answered
        (made again here if slots were given back since)."""
        bound = self.points_binding(bound.pods, bound)
        if bound.laid is None:
            return self.pods_points(bound.pods, now)
        return points_bound(bound.laid, self._slots, now)

    def node_point(self, name: str, now: datetime) -> MetricsPoint:
        """``node_stats(name, now)`` as the metrics server decodes it (always usable)."""
        # Every node at every scrape: built as ``pods_points`` builds its points, each
        # ``max(1, reading)`` spelled as a test.
        core_ns = int(self._node_cpu.get(name, 0.0) * _CORE_NANOS_PER_MILLI_SECOND)
        memory = self._node_memory.get(name, NODE_SYSTEM_MEMORY)
        return tuple.__new__(
            MetricsPoint,
            (
                self._node_started.get(name, now),
                now,
                core_ns if core_ns > 1 else 1,
                memory if memory > 1 else 1,
            ),
        )
