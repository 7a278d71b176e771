"""``SimulatedUsage``: the simulated kubelets' resource stats, driven by each workload's load.

Joins the load model (``podscale.runtime.load``: a ``RateSource`` and a ``LoadProfile`` per
workload, ``compute_usage``) to the metrics pipeline. Registered with the
``ControllerManager`` like the other simulated components, it reads the pod, node and
workload informers (never polling the store) and implements:

* ``KubeletStatsSource`` of ``podscale.metrics.server``: ``nodes()`` (the registered
  simulated nodes) and ``summary(node)`` (cumulative per-container CPU counters and working
  sets, ``usage_ledger``); a lost node's kubelet does not answer. ``summary_points(node)``
  is the same answer already decoded into metric points, which the scraper reads instead
  (``summary_points_now``, as the answer never waits: ``InlineStatsSource``).
* a fault: ``fail_stats`` makes every kubelet's stats endpoint fail (usage is still
  accounted, only the answers fail) until ``restore_stats``, as when metrics-server cannot
  reach the kubelets; the metrics server then serves no pod metrics.
* ``PodSelection`` of ``podscale.metrics.server``: ``select_pods`` answers a label selector
  from the pod informer's label index, so the metrics server serves one HPA's pods without
  reading the whole namespace (the names kept until the next pod event, ``pod_names``).
* per-pod request rates as a Pods custom metric (default ``http_requests_per_second``),
  written into a ``PushMetricsProvider`` every ``publish_period`` by ``run``, averaged over
  the period as Prometheus' ``rate()`` would, for the ready pods of workloads with a load
  (``request_rates``), computed only when read (``rate_marks``).

What these faces read comes from its base, ``usage_accounting.UsageAccounting``: the pod
view (kept current by the pod informer's events, which ``bind`` hands it), the loads
(``set_load``, ``clear_load``, ``set_origin``) and ``advance``, which integrates usage up to
an instant (how, and how exactly, is told there).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Final

from podscale.api.kinds import KindInfo
from podscale.api.selectors import Selector
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.metrics.push import PushMetricsProvider
from podscale.metrics.server.points import MetricsBatch, MetricsPoint
from podscale.metrics.server.summary import NodeSummary
from podscale.runtime.simulated.cluster_api import NODE, POD
from podscale.runtime.simulated.ledger_points import BoundPoints
from podscale.runtime.simulated.nodes import SimulatedNodes
from podscale.runtime.simulated.pod_names import NameSelection
from podscale.runtime.simulated.rate_marks import RateTable, publish_rates, rate_table
from podscale.runtime.simulated.running_pod import PodKey
from podscale.runtime.simulated.usage_accounting import UsageAccounting
from podscale.runtime.simulated.usage_loads import IDLE_PROFILE, WORKLOAD_KINDS, WorkloadLoad
from podscale.store.interface import Clock

__all__ = [
    "DEFAULT_PUBLISH_PERIOD",
    "DEFAULT_REQUEST_METRIC",
    "DEFAULT_STEP",
    "IDLE_PROFILE",
    "WORKLOAD_KINDS",
    "KubeletUnreachable",
    "SimulatedUsage",
    "WorkloadLoad",
]

DEFAULT_STEP: Final = timedelta(seconds=1)
DEFAULT_PUBLISH_PERIOD: Final = timedelta(seconds=15)
DEFAULT_REQUEST_METRIC: Final = "http_requests_per_second"


class KubeletUnreachable(ConnectionError):
    """What scraping a lost node's kubelet raises."""


class SimulatedUsage(UsageAccounting):
    """Resource usage and request rates of the simulated pods; see the module docstring."""

    name: Final = "usage"
    workers_flag: Final = "concurrent_usage_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = (POD, NODE, *WORKLOAD_KINDS.values())

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        nodes: SimulatedNodes,
        *,
        rng: random.Random | None = None,
        step: timedelta = DEFAULT_STEP,
        push: PushMetricsProvider | None = None,
        request_metric: str = DEFAULT_REQUEST_METRIC,
        publish_period: timedelta = DEFAULT_PUBLISH_PERIOD,
    ) -> None:
        if step <= timedelta(0) or publish_period <= timedelta(0):
            raise ValueError("step and publish_period must be positive")
        super().__init__(api, clock, nodes, rng=rng, step=step)
        self.push = push
        self.request_metric = request_metric
        self._publish_period = publish_period
        # ``_node_pods``: per node, the pod view's version and the node's views, bound.
        self._node_pods_at: dict[str, tuple[int, BoundPoints]] = {}
        self._stats_failure: str | None = None
        # ``publish``: the assignment's members and their ``rate_table``.
        self._rate_rows: tuple[object, RateTable] | None = None
        self._pod_names: NameSelection | None = None

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        pods = informers.informer_for(POD)
        pods.add_handler(
            EventHandler(self._on_pod, lambda _old, new: self._on_pod(new), self._gone)
        )
        self._pod_names = NameSelection(pods.lister)
        self._allocatables.bind(informers.informer_for(NODE).lister)
        self._selectors.bind(informers)

    async def reconcile(self, key: str) -> None:
        """Nothing is ever queued: the handlers keep the pod view current."""

    # -- KubeletStatsSource and PodSelection ----------------------------------------------

    def select_pods(self, namespace: str, selector: Selector) -> tuple[str, ...]:
        """Names of the pods in ``namespace`` (per the informer) ``selector`` matches."""
        if self._pod_names is None:
            return ()
        # Asked on every HPA sync and usage-history read, mostly between two pod events:
        # kept while the pod informer's cache has not changed (``pod_names``).
        return self._pod_names.select(namespace, selector)

    async def nodes(self) -> list[str]:
        """The registered simulated nodes (metrics-server lists nodes from the API)."""
        return self.nodes_now()

    def nodes_now(self) -> list[str]:
        """``nodes()`` without a coroutine (``InlineStatsSource``: it never waits)."""
        return list(self._allocatable())  # its keys come in sorted order

    async def summary(self, node_name: str) -> NodeSummary:
        """The node's kubelet Summary now; a lost node, or any node while ``fail_stats``
        holds, raises ``KubeletUnreachable``."""
        now = self._answering(node_name)
        keys = sorted(self._on_node.get(node_name, ()))
        return NodeSummary(
            node=self._ledger.node_stats(node_name, now),
            pods=tuple(self._ledger.pod_stats(self._pods[key], now) for key in keys),
        )

    async def summary_points(self, node_name: str) -> MetricsBatch:
        """``decode_summary(await self.summary(node_name))`` without the Summary
        (``DecodedStatsSource``): a scrape builds one point per container instead of four
        stats objects and then the point."""
        return self.summary_points_now(node_name)

    def summary_points_now(self, node_name: str) -> MetricsBatch:
        """``summary_points`` without a coroutine: the metrics server's scrape reads this
        (``InlineStatsSource``), in place of a task per node."""
        now = self._answering(node_name)
        ledger = self._ledger
        pods: Mapping[PodKey, Mapping[str, MetricsPoint]]
        pods = ledger.bound_points(self._node_pods(node_name), now)
        return MetricsBatch({node_name: ledger.node_point(node_name, now)}, pods)

    def _node_pods(self, node_name: str) -> BoundPoints:
        """The views of the node's pods in key order, as ``summary`` reads them, bound to
        the ledger (``UsageLedger.points_binding``); kept per node with the pod view's
        version, which every change of ``_pods`` and ``_on_node`` bumps (every scrape reads
        every node; pods change far less often)."""
        version = self._version
        cached = self._node_pods_at.get(node_name)
        if cached is not None and cached[0] == version:
            return cached[1]
        running = self._pods
        pods = tuple(running[key] for key in sorted(self._on_node.get(node_name, ())))
        bound = self._ledger.points_binding(pods)
        self._node_pods_at[node_name] = (version, bound)
        return bound

    def _answering(self, node_name: str) -> datetime:
        """Now, with usage accounted up to it, if the node's kubelet answers; else raise."""
        if node_name not in self._nodes.names or self._nodes.is_lost(node_name):
            raise KubeletUnreachable(f"node {node_name} is not reachable")
        if self._stats_failure is not None:
            raise KubeletUnreachable(f"node {node_name}: {self._stats_failure}")
        now = self._clock.now()
        self.advance(now)
        return now

    def fail_stats(self, reason: str = "connection refused") -> None:
        """Every kubelet's stats endpoint fails with ``reason`` until ``restore_stats``."""
        self._stats_failure = reason

    def restore_stats(self) -> None:
        """The kubelets answer stats requests again."""
        self._stats_failure = None

    # -- request rates as a custom metric -------------------------------------------------

    async def run(self) -> None:
        """Publish request rates every ``publish_period`` until cancelled (which also
        stops following the custom targets)."""
        try:
            while True:
                await asyncio.sleep(self._publish_period.total_seconds())
                self.publish()
        except asyncio.CancelledError:
            self.stop_following()
            raise

    def publish(self) -> None:
        """Write each ready loaded pod's request rate since the last publish (milli-units)."""
        if not self._loads:
            return  # only loaded workloads' pods have a request rate
        now = self._clock.now()
        # ``_assign`` once: when this advance integrated, it has just answered, and nothing
        # ran since (this is one synchronous call) to change the pods, loads or selectors.
        self._just_assigned = None
        self.advance(now)
        assigned = self._just_assigned
        members = assigned.members if assigned is not None else self._assign()[0]
        # The members' table, kept while the assignment's members are the same list.
        kept = self._rate_rows
        if kept is None or kept[0] is not members:
            kept = self._rate_rows = (members, rate_table(members))
        pushing = self.push is not None
        self._last_publish, rates = publish_rates(
            kept[1], self._ledger.requests_by_pod, self._published, self._last_publish, now, pushing
        )
        if self.push is not None:
            # Computed only if read (``rate_marks``): in a fleet scaling on CPU, never.
            for namespace, names, values in rates:
                self.push.refresh_pod_metrics(namespace, self.request_metric, names, values)
