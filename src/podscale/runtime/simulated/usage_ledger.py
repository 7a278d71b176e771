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
Both hot loops, crediting and reading every pod's points, run in ``ledger_bindings`` over
bindings of the layout or the pod views to the ledger's per-pod maps, kept between calls
(``points_binding`` and ``bound_points`` for a caller that keeps the pods it reads).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Final

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
    BoundCredit,
    BoundPoints,
    bind_credit,
    bind_points,
    credit_bound,
    points_bound,
    points_walked,
)
from podscale.runtime.simulated.running_pod import PodKey, RunningPod

__all__ = ["NODE_SYSTEM_MEMORY", "NODE_SYSTEM_MILLI_CPU", "UsageLedger"]

# What a node's system daemons (kubelet, runtime, OS) use on their own.
NODE_SYSTEM_MILLI_CPU: Final = 50
NODE_SYSTEM_MEMORY: Final = 256 * 1024 * 1024
_CORE_NANOS_PER_MILLI_SECOND: Final = 1_000_000  # 1 millicore for 1 s, in core-ns


def _seconds(delta: timedelta) -> float:
    """``max(delta.total_seconds(), 0.0)``, spelled as the test it makes."""
    seconds = delta.total_seconds()
    return 0.0 if seconds < 0.0 else seconds


class UsageLedger:
    """Cumulative usage per container, node and pod; see the module docstring."""

    def __init__(self) -> None:
        # Per pod, so that forgetting a pod costs only its own entries.
        self._cpu: dict[PodKey, dict[tuple[str, datetime], float]] = {}
        self._memory: dict[PodKey, dict[str, int]] = {}
        self._requests: dict[PodKey, float] = {}
        self._node_cpu: dict[str, float] = {}
        self._node_memory: dict[str, int] = {}
        self._node_started: dict[str, datetime] = {}
        # Bumped whenever a pod's maps are dropped: the bindings (``ledger_bindings``) hold
        # those maps, and one made before a drop is made again.
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
        # Hot (every advance, every pod): lookups hoisted, the pod's counter dicts fetched once,
        # the usage tuples unpacked rather than read field by field.
        requests, cpu_of, memory_of = self._requests, self._cpu, self._memory
        for namespace, pod_name, usage_node, request_rate, containers in usages:
            key = (namespace, pod_name)
            pod = pods.get(key)
            if pod is None:
                continue
            requests[key] = requests.get(key, 0.0) + request_rate * span
            standby = pod.standby
            started = pod.started
            node = usage_node if usage_node in node_cpu else None
            counters: dict[tuple[str, datetime], float] | None = None
            gauges: dict[str, int] | None = None
            for name, milli_cpu, memory in containers:
                began = started.get(name)
                if began is None:
                    continue
                # ``end - max(start, began)``: a container running since before the
                # interval (the usual case) is credited the whole span.
                seconds = span if began <= start else _seconds(end - began)
                if standby:
                    milli_cpu = memory = 0
                if counters is None or gauges is None:
                    counters = cpu_of.get(key)
                    if counters is None:
                        counters = cpu_of[key] = {}
                    gauges = memory_of.get(key)
                    if gauges is None:
                        gauges = memory_of[key] = {}
                counter = (name, began)
                counters[counter] = counters.get(counter, 0.0) + milli_cpu * seconds
                gauges[name] = memory
                if node is not None:
                    node_cpu[node] += milli_cpu * seconds
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
        only for this loop to take them apart again cost more than crediting. The same steps
        as ``credit``, in the same order, with each usage read from the drawn rows where
        ``usages_of`` would have put it, and what does not change between draws (which
        pod, its containers' starts and counter keys, standby, node) read from the layout."""
        span = _seconds(end - start)
        node_cpu, node_memory = self._open_nodes(layout.nodes, start, span)
        # The layout bound to this ledger's per-pod maps, kept while the layout is the same
        # and no pod's maps were dropped (``ledger_bindings``).
        bound = self._bound_credit
        if bound is None or bound.layout is not layout or bound.generation != self._generation:
            bound = bind_credit(layout, self._generation, self._cpu, self._memory)
            self._bound_credit = bound
        credit_bound(bound, drawn, self._requests, node_cpu, node_memory, start, end, span)
        self._close_nodes(node_cpu, node_memory)

    def _open_nodes(
        self, nodes: Iterable[str], start: datetime, span: float
    ) -> tuple[dict[str, float], dict[str, int]]:
        """The interval's per-node sums (``credit``, ``credit_drawn``) opened with each
        node's system usage; a node seen for the first time started at ``start``."""
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
        return self._requests.get(key, 0.0)

    @property
    def requests_by_pod(self) -> Mapping[PodKey, float]:
        """``requests_served`` of every pod that served any, by key: the ledger's own map,
        read-only and live (a publish reads every pod's through it, without a call each)."""
        return self._requests

    def forget(self, key: PodKey, keep: RunningPod | None = None) -> None:
        """Drop the pod's counters (all of them, or those of containers that ``keep`` no
        longer runs under the same start time)."""
        if keep is None:
            self._generation += 1
            self._cpu.pop(key, None)
            self._memory.pop(key, None)
            self._requests.pop(key, None)
            return
        counters = self._cpu.get(key, {})
        for name, began in [c for c in counters if keep.started.get(c[0]) != c[1]]:
            del counters[(name, began)]
        gauges = self._memory.get(key, {})
        for name in [g for g in gauges if g not in keep.started]:
            del gauges[name]

    def pod_stats(self, pod: RunningPod, now: datetime) -> PodStats:
        """The pod as the Summary API reports it at ``now``."""
        # Hot: every scrape builds every pod's stats, so lookups are hoisted.
        key = pod.key
        counters = self._cpu.get(key) or {}
        gauges = self._memory.get(key) or {}
        containers = []
        for container in pod.load.containers:
            name = container.name
            began = pod.started[name]
            core_ns = int(counters.get((name, began), 0.0) * _CORE_NANOS_PER_MILLI_SECOND)
            cpu = CPUStats(now, core_ns if core_ns > 0 else 1)
            memory = MemoryStats(now, max(1, gauges.get(name, 0)))
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
        """``pod_points`` of each pod, by key, leaving out the pods without a point: one
        call per node and scrape (a scrape reads every pod; ``ledger_bindings.points_walked``)."""
        return points_walked(pods, self._cpu, self._memory, now)

    def points_binding(
        self, pods: tuple[RunningPod, ...], bound: BoundPoints | None = None
    ) -> BoundPoints:
        """``bound`` when it is ``pods`` bound to this ledger's maps and still good, else
        ``pods`` bound afresh (``ledger_bindings.bind_points``): a caller that reads the
        same pods at every scrape keeps the answer and passes it back."""
        if bound is not None and bound.pods is pods and bound.generation == self._generation:
            return bound
        return bind_points(pods, self._generation, self._cpu, self._memory)

    def bound_points(
        self, bound: BoundPoints, now: datetime
    ) -> dict[PodKey, dict[str, MetricsPoint]]:
        """``pods_points(bound.pods, now)`` through the binding ``points_binding`` answered
        (made again here if a pod's maps were dropped since)."""
        bound = self.points_binding(bound.pods, bound)
        if bound.laid is None:
            return self.pods_points(bound.pods, now)
        return points_bound(bound.laid, now)

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
