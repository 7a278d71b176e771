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
  reading the whole namespace.
* per-pod request rates as a Pods custom metric (default ``http_requests_per_second``),
  written into a ``PushMetricsProvider`` every ``publish_period`` by ``run``, averaged over
  the period as Prometheus' ``rate()`` would, for the ready pods of workloads with a load.

How usage is integrated: ``advance(now)`` credits the time since the last advance. The
traffic of a workload goes to the ready pods its ``spec.selector`` matches (as a Service
routes; a Deployment, ReplicaSet or StatefulSet is read from its informer), or for any other
kind with a scale subresource (a custom kind) the pods its Scale's ``status.selector``
matches, as an HPA finds them (``load_selectors.LoadSelectors`` answers both; it reads
``/scale`` whenever the object changes, and the interval up to a new selector is accounted
with the old one), split by ``compute_usage`` together with every other pod so node capacity
is shared; pods no load claims run at ``IDLE_PROFILE``. While a load is set, the interval is
accounted in one piece at each load's mean rate over its ``step`` grid (aligned to
``origin``, each step at the rate of its start: ``usage_loads.mean_rate``), so a rate that
changes between scrapes is averaged as it should be, and the CPU noise is that of the mean
of one draw per step (``compute_usage``'s ``samples``); a pod event that changes who serves
(readiness, a start, a stop) first advances up to that instant with the old view. So the
cost grows with scrapes and pod events, not with simulated seconds times pods. Versus
crediting every step on its own (the model before), cumulative counters and requests served
have the same expectation and spread while no limit or node capacity binds; when one binds
inside an interval, the interval's mean is capped rather than each step, which reads at most
the capped share of the noise higher (about ``stddev x demand / sqrt(steps)``). All
randomness (the profiles' noise) comes from the seeded ``rng``.

The nodes' allocatable that caps the pods' usage comes from ``node_allocatables``.

Rate sources see ``t`` = time since ``origin`` (the clock's time at construction unless
``set_origin`` moves it, as ``podscale.scenario.run`` does at a scenario's start).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.api.selectors import Selector
from podscale.client.cache import Lister
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.metrics.push import PushMetricsProvider
from podscale.metrics.server.points import MetricsBatch, MetricsPoint
from podscale.metrics.server.summary import NodeSummary
from podscale.runtime.load import (
    LoadProfile,
    PodLoad,
    PodUsage,
    RateSource,
    UsagePlan,
    WorkloadDemand,
    compute_usage,
    draw_rows,
    plan_usage,
)
from podscale.runtime.simulated.cluster_api import NODE, POD, node_name_of
from podscale.runtime.simulated.credit_layout import CreditLayout, credit_layout
from podscale.runtime.simulated.load_selectors import LoadSelectors, may_be_custom
from podscale.runtime.simulated.node_allocatables import NodeAllocatables
from podscale.runtime.simulated.nodes import SimulatedNodes
from podscale.runtime.simulated.request_rates import request_rates
from podscale.runtime.simulated.resources import Resources
from podscale.runtime.simulated.running_pod import PodKey, RunningPod, running_pod
from podscale.runtime.simulated.usage_ledger import UsageLedger
from podscale.runtime.simulated.usage_loads import (
    IDLE_PROFILE,
    WORKLOAD_KINDS,
    WorkloadLoad,
    assign_pods,
    built_in_workload,
    mean_rate,
)
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

JSON = dict[str, Any]
DEFAULT_STEP: Final = timedelta(seconds=1)
DEFAULT_PUBLISH_PERIOD: Final = timedelta(seconds=15)
DEFAULT_REQUEST_METRIC: Final = "http_requests_per_second"


class KubeletUnreachable(ConnectionError):
    """What scraping a lost node's kubelet raises."""


class SimulatedUsage:
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
        self._api = api
        self._clock = clock
        self._nodes = nodes
        self._rng = rng or random.Random(0)
        self._step = step
        self.push = push
        self.request_metric = request_metric
        self._publish_period = publish_period
        self.origin = clock.now()
        self._last = clock.now()
        self._ledger = UsageLedger()
        self._loads: dict[tuple[str, str, str], WorkloadLoad] = {}
        # ``loads()`` as a tuple, None when a load was set or cleared since (every advance
        # reads it; a fleet has a hundred loads).
        self._sorted_loads: tuple[WorkloadLoad, ...] | None = None
        self._pods: dict[PodKey, RunningPod] = {}
        self._on_node: dict[str, set[PodKey]] = {}
        # ``_node_pods``: per node, the pod view's version and the node's views.
        self._node_pods_at: dict[str, tuple[int, tuple[RunningPod, ...]]] = {}
        # Bumped on every change of the pod view; without loads, usage only changes then.
        self._version = 0
        self._idle: tuple[object, tuple[PodUsage, ...]] | None = None
        # The last assignment of pods to loads, with what it was computed from: the pod
        # view's version, the loads and their selectors (see ``_assign``).
        self._assigned: _Assignment | None = None
        # ``_assigned`` as ``advance`` read it, for ``publish`` (which clears it first).
        self._just_assigned: _Assignment | None = None
        # The usage plan of ``_assigned`` (``_plan``), with the assignment it was made of.
        self._planned: tuple[_Assignment, UsagePlan] | None = None
        # ``_layout``'s answer with what it was made from: the plan, the pod view's version
        # and the allocatable map (each the very object, held here so never another under
        # a reused id).
        self._laid: tuple[UsagePlan, int, dict[str, Resources], CreditLayout] | None = None
        self._allocatables = NodeAllocatables(nodes)
        self._published: dict[PodKey, tuple[datetime, float]] = {}
        self._stats_failure: str | None = None
        self._pod_lister: Lister | None = None
        # Each load's selector: built-in workloads from their informers, custom targets
        # through their Scale, kept current.
        self._selectors = LoadSelectors(api, clock, lambda: self.advance(self._clock.now()))

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        pods = informers.informer_for(POD)
        pods.add_handler(
            EventHandler(self._on_pod, lambda _old, new: self._on_pod(new), self._gone)
        )
        self._pod_lister = pods.lister
        self._allocatables.bind(informers.informer_for(NODE).lister)
        self._selectors.bind(informers)

    async def reconcile(self, key: str) -> None:
        """Nothing is ever queued: the handlers keep the pod view current."""

    def _on_pod(self, pod: JSON) -> None:
        if node_name_of(pod) not in self._nodes.names:
            return
        view = running_pod(pod)
        key = (str((pod.get("metadata") or {}).get("namespace") or ""), _name(pod))
        if view is None:
            self._gone(pod)
            return
        old = self._pods.get(key)
        if old == view:
            return  # a status write that changes nothing the usage depends on
        if self._loads:
            self.advance(self._clock.now())
        self._pods[key] = view
        self._version += 1
        if old is not None and old.load.node != view.load.node:
            self._on_node.get(str(old.load.node), set()).discard(key)
        self._on_node.setdefault(str(view.load.node), set()).add(key)
        self._ledger.forget(key, keep=view)

    def _gone(self, pod: JSON) -> None:
        key = (str((pod.get("metadata") or {}).get("namespace") or ""), _name(pod))
        if key not in self._pods:
            return
        if self._loads:
            self.advance(self._clock.now())
        gone = self._pods.pop(key)
        self._version += 1
        self._on_node.get(str(gone.load.node), set()).discard(key)
        self._ledger.forget(key)
        self._published.pop(key, None)

    # -- loads --------------------------------------------------------------------------

    def set_origin(self, origin: datetime) -> None:
        """Rate sources read ``t`` as the time since ``origin`` from now on."""
        self.advance(self._clock.now())
        self.origin = origin

    def set_load(
        self,
        kind: str,
        namespace: str,
        name: str,
        rate: RateSource,
        profile: LoadProfile | None = None,
        *,
        api_version: str = "apps/v1",
    ) -> None:
        """Drive the workload ``kind`` in ``api_version`` with ``rate``; replaces an earlier
        load of it. Usage up to now is accounted with the old loads. A kind other than the
        built-in Deployment, ReplicaSet and StatefulSet is followed through its scale
        subresource from then on, which needs a running event loop."""
        key = (kind, namespace, name)
        built_in = built_in_workload(api_version, kind)
        if built_in is None and not may_be_custom(api_version, kind):
            raise ValueError(
                f"cannot load a {kind}: use one of {', '.join(WORKLOAD_KINDS)}, "
                "or a custom kind with a scale subresource"
            )
        self.advance(self._clock.now())
        if built_in is None:
            self._selectors.follow(key, api_version)
        else:
            self._selectors.unfollow(key)
        load = WorkloadLoad(kind, namespace, name, rate, profile or LoadProfile(), api_version)
        self._loads[key] = load
        self._sorted_loads = None

    def clear_load(self, kind: str, namespace: str, name: str) -> None:
        """The workload's pods go back to idling."""
        self.advance(self._clock.now())
        self._loads.pop((kind, namespace, name), None)
        self._sorted_loads = None
        self._selectors.unfollow((kind, namespace, name))

    def stop_following(self) -> None:
        """Stop following every custom target's Scale (their pods go on as last seen)."""
        self._selectors.stop()

    def loads(self) -> list[WorkloadLoad]:
        return list(self._load_tuple())

    def _load_tuple(self) -> tuple[WorkloadLoad, ...]:
        if self._sorted_loads is None:
            self._sorted_loads = tuple(self._loads[key] for key in sorted(self._loads))
        return self._sorted_loads

    def offered_rate(self, kind: str, namespace: str, name: str, now: datetime) -> float:
        """Requests per second the workload receives at ``now`` (0 without a load)."""
        load = self._loads.get((kind, namespace, name))
        return 0.0 if load is None else load.rate.rate_at(now - self.origin)

    # -- integration --------------------------------------------------------------------

    def advance(self, now: datetime) -> None:
        """Account usage up to ``now`` (see the module docstring); idempotent per instant."""
        if now <= self._last:
            return
        start, self._last = self._last, now
        allocatable = self._allocatable()
        if not self._loads:
            self._ledger.credit(self._idle_usage(allocatable), self._pods, allocatable, start, now)
            return
        members, _ = self._assign()
        self._just_assigned = self._assigned
        # One piece for the whole interval, at each load's mean rate over its steps: the
        # cost grows with the advances (scrapes, pod events), not with the seconds.
        rates = [mean_rate(load.rate, start, now, self.origin, self._step) for load, _ in members]
        rates.append(0.0)  # the idle pods
        samples = (now - start) / self._step
        # The drawn rows go to the ledger as they are (``credit_laid``: what ``credit`` of
        # ``draw_usage``'s answer does, without a tuple per container and pod).
        plan = self._plan()
        drawn = draw_rows(plan, rates, allocatable, self._rng, samples=samples)
        self._ledger.credit_laid(self._layout(plan, allocatable), drawn, start, now)

    def _layout(self, plan: UsagePlan, allocatable: dict[str, Resources]) -> CreditLayout:
        """``credit_layout(plan, self._pods, allocatable)``, made again only when the plan,
        the pod view (its version: every change of ``_pods`` bumps it) or the allocatable map
        (``_allocatable`` answers the same dict while the nodes are the same) changed; those
        are all it reads, and every advance asks."""
        laid = self._laid
        if (
            laid is not None
            and laid[0] is plan
            and laid[1] == self._version
            and laid[2] is allocatable
        ):
            return laid[3]
        layout = credit_layout(plan, self._pods, allocatable)
        self._laid = (plan, self._version, allocatable, layout)
        return layout

    def _plan(self) -> UsagePlan:
        """The ``UsagePlan`` of the loads' pods and the idle ones (``compute_usage``'s demands
        without their rates), made again only when ``_assign`` answered a new assignment:
        the plan is a function of the assignment alone (its pods, and its loads' profiles)."""
        assigned = self._assigned
        assert assigned is not None
        cached = self._planned
        if cached is not None and cached[0] is assigned:
            return cached[1]
        plan = plan_usage(
            [(pods, load.profile) for load, pods in assigned.members]
            + [(assigned.idle, IDLE_PROFILE)]
        )
        self._planned = (assigned, plan)
        return plan

    def _idle_usage(self, allocatable: dict[str, Resources]) -> tuple[PodUsage, ...]:
        """Every pod at ``IDLE_PROFILE`` (no noise): the same until the pods or nodes change."""
        stamp = (self._version, tuple(sorted(allocatable.items())))
        if self._idle is None or self._idle[0] != stamp:
            pods = [self._pods[key].load for key in sorted(self._pods)]
            demand = WorkloadDemand(0.0, pods, IDLE_PROFILE)
            self._idle = (stamp, compute_usage([demand], allocatable, self._rng))
        return self._idle[1]

    def _assign(self) -> tuple[list[tuple[WorkloadLoad, list[PodLoad]]], list[PodLoad]]:
        """``assign_pods`` of the current pods and loads, computed again only when the pod
        view, a load or a load's selector changed since the last call (every scrape and
        publish asks; between pod events the answer is the same)."""
        loads = self._load_tuple()
        selector_of = self._selectors.of
        selectors = tuple([selector_of(load) for load in loads])
        cached = self._assigned
        if (
            cached is not None
            and cached.version == self._version
            and (
                cached.loads is loads
                or (
                    len(cached.loads) == len(loads)
                    and all(a is b for a, b in zip(cached.loads, loads, strict=True))
                )
            )
            # The same loads in the same order: their selectors compare one by one, the very
            # objects (while nothing was parsed again) without calling ``==``.
            and cached.selectors == selectors
        ):
            return cached.members, cached.idle
        by_key = {
            (ld.kind, ld.namespace, ld.name): selector
            for ld, selector in zip(loads, selectors, strict=True)
        }
        members, idle = assign_pods(
            loads, self._pods, lambda ld: by_key[(ld.kind, ld.namespace, ld.name)]
        )
        self._assigned = _Assignment(self._version, loads, selectors, members, idle)
        return members, idle

    def _allocatable(self) -> dict[str, Resources]:
        """Each registered node's allocatable, by name in name order (``NodeAllocatables``:
        the same dict while the nodes did not change)."""
        return self._allocatables.current()

    # -- KubeletStatsSource and PodSelection ----------------------------------------------

    def select_pods(self, namespace: str, selector: Selector) -> list[str]:
        """Names of the pods in ``namespace`` (per the informer) ``selector`` matches."""
        if self._pod_lister is None:
            return []
        # ``_name`` inlined: one per selected pod, on every HPA and usage-history read.
        return [
            str((pod.get("metadata") or {}).get("name") or "")
            for pod in self._pod_lister.list(namespace, selector)
        ]

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
        pods = ledger.pods_points(self._node_pods(node_name), now)
        return MetricsBatch({node_name: ledger.node_point(node_name, now)}, pods)

    def _node_pods(self, node_name: str) -> tuple[RunningPod, ...]:
        """The views of the node's pods in key order, as ``summary`` reads them; kept per
        node with the pod view's version, which every change of ``_pods`` and
        ``_on_node`` bumps (every scrape reads every node; pods change far less often)."""
        version = self._version
        cached = self._node_pods_at.get(node_name)
        if cached is not None and cached[0] == version:
            return cached[1]
        running = self._pods
        pods = tuple(running[key] for key in sorted(self._on_node.get(node_name, ())))
        self._node_pods_at[node_name] = (version, pods)
        return pods

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
        by_namespace = request_rates(
            members, self._ledger.requests_by_pod, self._published, now, self.push is not None
        )
        if self.push is not None:
            for namespace, values in by_namespace.items():
                self.push.set_pod_metrics(namespace, self.request_metric, values)


@dataclass(frozen=True, slots=True)
class _Assignment:
    """What ``SimulatedUsage._assign`` last computed and from what."""

    version: int
    loads: tuple[WorkloadLoad, ...]
    selectors: tuple[Selector | None, ...]  # one per load, in order
    members: list[tuple[WorkloadLoad, list[PodLoad]]]
    idle: list[PodLoad]


def _name(obj: JSON) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")
