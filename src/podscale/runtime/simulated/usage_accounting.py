"""``UsageAccounting``: the simulated pods' usage integrated from each workload's load.

The base of ``usage.SimulatedUsage``, which adds the faces (the controller wiring, the
kubelets' stats, pod selection and the request-rate metric); this holds what they read: the
view of the running pods (``running_pod.RunningPod`` by key and per node, kept current by
``_on_pod`` and ``_gone``, which ``SimulatedUsage.bind`` hands the pod informer), the loads
(``usage_loads.WorkloadLoad``, set with ``set_load``) and their selectors
(``load_selectors.LoadSelectors``), and the cumulative counters (``usage_ledger.UsageLedger``)
that ``advance`` credits.

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
randomness (the profiles' noise) comes from the seeded ``rng``. What each draw is made of
(the assignment of pods to loads, its plan and credit layout, the idle usage) is kept
between advances by ``usage_plans.UsagePlans``.

The nodes' allocatable that caps the pods' usage comes from ``node_allocatables``.

Rate sources see ``t`` = time since ``origin`` (the clock's time at construction unless
``set_origin`` moves it, as ``podscale.scenario.run`` does at a scenario's start).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from podscale.controllers.runtime_api import ControllerApi
from podscale.runtime.load import LoadProfile, PodLoad, RateSource, draw_rows
from podscale.runtime.simulated.cluster_api import node_name_of
from podscale.runtime.simulated.load_selectors import LoadSelectors, may_be_custom
from podscale.runtime.simulated.node_allocatables import NodeAllocatables
from podscale.runtime.simulated.nodes import SimulatedNodes
from podscale.runtime.simulated.rate_marks import LastPublish, forget_mark
from podscale.runtime.simulated.resources import Resources
from podscale.runtime.simulated.running_pod import PodKey, RunningPod, running_pod
from podscale.runtime.simulated.usage_ledger import UsageLedger
from podscale.runtime.simulated.usage_loads import (
    WORKLOAD_KINDS,
    WorkloadLoad,
    built_in_workload,
    mean_rate,
)
from podscale.runtime.simulated.usage_plans import Assignment, UsagePlans
from podscale.store.interface import Clock

__all__ = ["UsageAccounting"]

JSON = dict[str, Any]


class UsageAccounting:
    """The pod view, the loads and the integration; see the module docstring."""

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        nodes: SimulatedNodes,
        *,
        rng: random.Random | None,
        step: timedelta,
    ) -> None:
        self._clock = clock
        self._nodes = nodes
        self._rng = rng or random.Random(0)
        self._step = step
        self.origin = clock.now()
        self._last = clock.now()
        self._ledger = UsageLedger()
        self._loads: dict[tuple[str, str, str], WorkloadLoad] = {}
        # ``loads()`` as a tuple, None when a load was set or cleared since (every advance
        # reads it; a fleet has a hundred loads).
        self._sorted_loads: tuple[WorkloadLoad, ...] | None = None
        self._pods: dict[PodKey, RunningPod] = {}
        self._on_node: dict[str, set[PodKey]] = {}
        # Bumped on every change of the pod view; without loads, usage only changes then.
        self._version = 0
        # The assignment of pods to loads, its plan and layout, and the idle usage, kept.
        self._plans = UsagePlans()
        # ``_plans.assigned`` as ``advance`` read it, for ``publish`` (which clears it first).
        self._just_assigned: Assignment | None = None
        self._allocatables = NodeAllocatables(nodes)
        # Each pod's last publish of ``SimulatedUsage.publish``, forgotten with the pod: in
        # ``_published``, or, for the pods of the last publish, in ``_last_publish``
        # (``rate_marks``: ``mark_of`` reads both).
        self._published: dict[PodKey, tuple[datetime, float]] = {}
        self._last_publish: LastPublish | None = None
        # Each load's selector: built-in workloads from their informers, custom targets
        # through their Scale, kept current.
        self._selectors = LoadSelectors(api, clock, lambda: self.advance(self._clock.now()))

    # -- the pod view -------------------------------------------------------------------

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
        forget_mark(self._published, self._last_publish, key)
        self._last_publish = None

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
        plans = self._plans
        if not self._loads:
            idle = plans.idle_usage(self._pods, self._version, allocatable, self._rng)
            self._ledger.credit(idle, self._pods, allocatable, start, now)
            return
        members, _ = self._assign()
        self._just_assigned = plans.assigned
        # One piece for the whole interval, at each load's mean rate over its steps: the
        # cost grows with the advances (scrapes, pod events), not with the seconds.
        rates = [mean_rate(load.rate, start, now, self.origin, self._step) for load, _ in members]
        rates.append(0.0)  # the idle pods
        samples = (now - start) / self._step
        # The drawn rows go to the ledger as they are (``credit_laid``: what ``credit`` of
        # ``draw_usage``'s answer does, without a tuple per container and pod).
        plan = plans.plan()
        drawn = draw_rows(plan, rates, allocatable, self._rng, samples=samples)
        layout = plans.layout(plan, self._pods, self._version, allocatable)
        self._ledger.credit_laid(layout, drawn, start, now)

    def _assign(self) -> tuple[list[tuple[WorkloadLoad, list[PodLoad]]], list[PodLoad]]:
        """``UsagePlans.assign`` of the current pods and loads (kept between pod events)."""
        return self._plans.assign(self._load_tuple(), self._selectors.of, self._pods, self._version)

    def _allocatable(self) -> dict[str, Resources]:
        """Each registered node's allocatable, by name in name order (``NodeAllocatables``:
        the same dict while the nodes did not change)."""
        return self._allocatables.current()


def _name(obj: JSON) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")
