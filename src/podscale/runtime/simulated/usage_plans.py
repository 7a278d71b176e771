"""``UsagePlans``: what ``SimulatedUsage.advance`` draws from, kept between advances.

``usage.SimulatedUsage`` integrates usage at every advance (every scrape, publish and pod
event), while what the draw is made from changes far less often: which pods serve which
load (``usage_loads.assign_pods``), the ``UsagePlan`` of those pods and the idle ones
(``podscale.runtime.load.plan_usage``), where each drawn row is credited
(``credit_layout.credit_layout``) and, with no load at all, every pod's idle usage
(``compute_usage`` at ``usage_loads.IDLE_PROFILE``). ``UsagePlans`` keeps each answer with
what it was made from (the pod view's version, which ``SimulatedUsage`` bumps on every
change of its pods, the loads and their selectors from ``load_selectors.LoadSelectors``,
the allocatable map of ``node_allocatables.NodeAllocatables``) and makes it again only
when one of those changed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from podscale.api.selectors import Selector
from podscale.runtime.load import (
    PodLoad,
    PodUsage,
    UsagePlan,
    WorkloadDemand,
    compute_usage,
    plan_usage,
)
from podscale.runtime.simulated.credit_layout import CreditLayout, credit_layout
from podscale.runtime.simulated.resources import Resources
from podscale.runtime.simulated.running_pod import PodKey, RunningPod
from podscale.runtime.simulated.usage_loads import IDLE_PROFILE, WorkloadLoad, assign_pods

__all__ = ["Assignment", "UsagePlans"]


@dataclass(frozen=True, slots=True)
class Assignment:
    """What ``UsagePlans.assign`` last computed and from what."""

    version: int
    loads: tuple[WorkloadLoad, ...]
    selectors: tuple[Selector | None, ...]  # one per load, in order
    members: list[tuple[WorkloadLoad, list[PodLoad]]]
    idle: list[PodLoad]


class UsagePlans:
    """The assignment, plan, layout and idle usage, each kept; see the module docstring."""

    def __init__(self) -> None:
        self._idle: tuple[object, tuple[PodUsage, ...]] | None = None
        # The last assignment of pods to loads, with what it was computed from: the pod
        # view's version, the loads and their selectors (see ``assign``).
        self.assigned: Assignment | None = None
        # The usage plan of ``assigned`` (``plan``), with the assignment it was made of.
        self._planned: tuple[Assignment, UsagePlan] | None = None
        # ``layout``'s answer with what it was made from: the plan, the pod view's version
        # and the allocatable map (each the very object, held here so never another under
        # a reused id).
        self.laid: tuple[UsagePlan, int, dict[str, Resources], CreditLayout] | None = None

    def layout(
        self,
        plan: UsagePlan,
        pods: dict[PodKey, RunningPod],
        version: int,
        allocatable: dict[str, Resources],
    ) -> CreditLayout:
        """``credit_layout(plan, pods, allocatable)``, made again only when the plan, the pod
        view (its ``version``: every change of ``pods`` bumps it) or the allocatable map
        (``NodeAllocatables`` answers the same dict while the nodes are the same) changed;
        those are all it reads, and every advance asks."""
        laid = self.laid
        if laid is not None and laid[0] is plan and laid[1] == version and laid[2] is allocatable:
            return laid[3]
        layout = credit_layout(plan, pods, allocatable)
        self.laid = (plan, version, allocatable, layout)
        return layout

    def plan(self) -> UsagePlan:
        """The ``UsagePlan`` of the loads' pods and the idle ones (``compute_usage``'s demands
        without their rates), made again only when ``assign`` answered a new assignment:
        the plan is a function of the assignment alone (its pods, and its loads' profiles)."""
        assigned = self.assigned
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

    def idle_usage(
        self,
        pods: dict[PodKey, RunningPod],
        version: int,
        allocatable: dict[str, Resources],
        rng: random.Random,
    ) -> tuple[PodUsage, ...]:
        """Every pod at ``IDLE_PROFILE`` (no noise): the same until the pods or nodes change."""
        stamp = (version, tuple(sorted(allocatable.items())))
        if self._idle is None or self._idle[0] != stamp:
            loads = [pods[key].load for key in sorted(pods)]
            demand = WorkloadDemand(0.0, loads, IDLE_PROFILE)
            self._idle = (stamp, compute_usage([demand], allocatable, rng))
        return self._idle[1]

    def assign(
        self,
        loads: tuple[WorkloadLoad, ...],
        selector_of: Callable[[WorkloadLoad], Selector | None],
        pods: dict[PodKey, RunningPod],
        version: int,
    ) -> tuple[list[tuple[WorkloadLoad, list[PodLoad]]], list[PodLoad]]:
        """``assign_pods`` of ``pods`` (at ``version``) and ``loads``, computed again only
        when the pod view, a load or a load's selector changed since the last call (every
        scrape and publish asks; between pod events the answer is the same)."""
        selectors = tuple([selector_of(load) for load in loads])
        cached = self.assigned
        if (
            cached is not None
            and cached.version == version
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
            loads, pods, lambda ld: by_key[(ld.kind, ld.namespace, ld.name)]
        )
        self.assigned = Assignment(version, loads, selectors, members, idle)
        return members, idle
