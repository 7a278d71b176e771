"""The usage model: from a workload's request rate to each pod's CPU and memory usage.

Inputs are the rate from a ``RateSource`` (``podscale.runtime.load.rates``/``traces``), the
pods behind each workload (``PodLoad``, built from pod objects by
``podscale.runtime.load.pods``), what each node can give (``Resources`` from
``podscale.runtime.simulated.resources``) and a ``LoadProfile`` saying what a container costs.
The output feeds the simulated kubelets' metrics (metrics server, per-pod request rates).

Contract:

* Traffic goes to ready pods only, split evenly: every ready pod's ``request_rate`` is
  ``rate / ready_pods`` (so the shares sum to the rate); not-ready pods get 0, and with no
  ready pod the requests are dropped.
* Every container of a passed pod uses its baseline plus ``cost per request/s x share``,
  for CPU (millicores) and memory (bytes) separately; containers are costed by name, so a
  sidecar can be idle or busy independently of the main container.
* That demand is multiplied by seeded noise, ``max(0, N(1, noise_stddev))`` drawn from the
  passed ``random.Random`` in a fixed order (pods sorted by namespace/name, containers in
  spec order, CPU before memory) and not drawn at all when the stddev is 0: the same seed
  and inputs always give the same usage.
* Then it is capped by the container's limit, and on each node the containers together
  never exceed the node's allocatable: when they would, the node's capacity is shared as
  the kernel's CPU shares do, in proportion to the containers' requests, with whatever a
  container does not need going to the others (water-filling). Memory is shared the same
  way: the model clamps rather than simulating OOM kills (``node_caps``).
* Usage is reported in whole millicores and bytes, rounded down so no cap is ever crossed.
* An interval: ``samples`` > 1 says the usage stands for the mean over that many
  independent one-step draws (``SimulatedUsage`` integrates a whole interval between
  scrapes in one call, at the interval's mean rate). CPU, which the kubelet integrates into
  a counter, then draws its noise with the stddev of such a mean, ``stddev / sqrt(samples)``
  (the mean of ``n`` draws of N(1, s) is N(1, s / sqrt(n))); memory, a gauge read at the
  interval's end, keeps the full stddev. Same seed, inputs and ``samples``: same usage.

``compute_usage`` is ``plan_usage`` (what depends on the pods and profiles only) then
``draw_usage`` (the rates, the noise and the caps): a caller whose pods stay the same over
many calls (``SimulatedUsage``, between pod events) keeps the plan and only draws.
``draw_usage`` is ``draw_rows`` (the draws and caps, per container) then ``usages_of`` (the
``PodUsage``s); ``SimulatedUsage`` hands ``draw_rows``' answer to its ledger as it is.

The values it reads and answers (``PodLoad``, ``LoadProfile``, ``PodUsage``, ...) are
defined in ``usage_types`` and re-exported here.

Pure: no clock, no I/O; randomness only from the passed generator.
``tests/unit/runtime/load/test_usage_reference.py`` holds ``compute_usage`` to a plain
reference version of these rules (the hot loop here inlines its helpers).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from podscale.runtime.load.node_caps import NodeRows, apply_node_caps_grouped, node_rows
from podscale.runtime.load.usage_arrays import ARRAY_ROWS, PlanArrays, draw_arrays, plan_arrays
from podscale.runtime.load.usage_types import (
    ContainerCost,
    ContainerResources,
    ContainerUsage,
    DrawnRows,
    LoadProfile,
    PodLoad,
    PodUsage,
    WorkloadDemand,
)
from podscale.runtime.simulated.resources import Resources

__all__ = [
    "ContainerCost",
    "ContainerResources",
    "ContainerUsage",
    "DrawnRows",
    "LoadProfile",
    "PodLoad",
    "PodUsage",
    "UsagePlan",
    "WorkloadDemand",
    "compute_usage",
    "draw_rows",
    "draw_usage",
    "plan_usage",
    "spread_rate",
    "usages_of",
]


def spread_rate(rate: float, pods: Sequence[PodLoad]) -> dict[tuple[str, str], float]:
    """Each pod's request rate: an even share of ``rate`` for ready pods, 0 for the rest."""
    ready = sum(1 for p in pods if p.ready)
    share = rate / ready if ready else 0.0
    return {p.key: share if p.ready else 0.0 for p in pods}


class _PlannedPod(NamedTuple):
    """One pod of a ``UsagePlan``: what its draws need that no rate changes. ``rows`` holds
    per container (name, CPU baseline, CPU per request/s, memory baseline, memory per
    request/s, CPU limit, memory limit), limits as floats or None."""

    namespace: str
    name: str
    node: str | None
    workload: int
    ready: bool
    stddev: float
    rows: tuple[tuple[str, float, float, float, float, float | None, float | None], ...]


@dataclass(frozen=True, slots=True)
class UsagePlan:
    """``compute_usage``'s work that depends only on the pods and profiles, not on the
    rates, the node capacities, the generator or ``samples``: the pods in draw order with
    their containers' costs and limits, each workload's ready pods, and the containers'
    requests (the weights a full node is shared by) with their node. ``plan_usage`` makes
    it; ``draw_usage`` completes it. ``SimulatedUsage`` keeps one per assignment of pods to
    loads, which changes only with the pods, while rates change at every advance."""

    pods: tuple[_PlannedPod, ...]
    ready: tuple[int, ...]
    nodes: tuple[str | None, ...]
    cpu_weight: tuple[float, ...]
    memory_weight: tuple[float, ...]
    # ``nodes`` grouped by node (``node_caps.node_rows``), which every draw caps by.
    node_rows: NodeRows = field(init=False, compare=False, repr=False)
    # Per-container constants as arrays, for a plan large enough to draw with numpy.
    arrays: PlanArrays | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        groups = node_rows(self.nodes)
        object.__setattr__(self, "node_rows", groups)
        count = len(self.nodes)
        large = count >= ARRAY_ROWS
        object.__setattr__(self, "arrays", plan_arrays(self.pods, groups, count) if large else None)


def plan_usage(workloads: Sequence[tuple[Sequence[PodLoad], LoadProfile]]) -> UsagePlan:
    """The ``UsagePlan`` of workloads given as (pods, profile), in ``compute_usage``'s order."""
    entries: list[tuple[tuple[str, str], PodLoad, int, LoadProfile]] = []
    ready: list[int] = []
    for index, (pods, profile) in enumerate(workloads):
        ready.append(sum(1 for p in pods if p.ready))
        entries.extend(((p.namespace, p.name), p, index, profile) for p in pods)
    entries.sort(key=_entry_key)
    planned: list[_PlannedPod] = []
    nodes: list[str | None] = []
    cpu_weight: list[float] = []
    memory_weight: list[float] = []
    for _, pod, index, profile in entries:
        costs, default = profile.costs, profile.default
        rows = []
        for container in pod.containers:
            cost = costs.get(container.name, default)
            cpu_limit, memory_limit = container.cpu_limit_milli, container.memory_limit
            rows.append(
                (
                    container.name,
                    cost.baseline_milli_cpu,
                    cost.milli_cpu_per_rps,
                    cost.baseline_memory,
                    cost.memory_per_rps,
                    None if cpu_limit is None else float(cpu_limit),
                    None if memory_limit is None else float(memory_limit),
                )
            )
            nodes.append(pod.node)
            request = container.request
            cpu_weight.append(float(max(request.milli_cpu, 1)))
            memory_weight.append(float(max(request.memory, 1)))
        planned.append(
            _PlannedPod(
                pod.namespace,
                pod.name,
                pod.node,
                index,
                pod.ready,
                profile.noise_stddev,
                tuple(rows),
            )
        )
    return UsagePlan(
        tuple(planned), tuple(ready), tuple(nodes), tuple(cpu_weight), tuple(memory_weight)
    )


def compute_usage(
    workloads: Sequence[WorkloadDemand],
    allocatable: Mapping[str, Resources],
    rng: random.Random,
    *,
    samples: float = 1.0,
) -> tuple[PodUsage, ...]:
    """Every passed pod's usage, sorted by (namespace, name); ``samples`` see above.

    All workloads sharing the cluster go in one call, so that pods of different workloads
    on one node compete for it. Nodes missing from ``allocatable`` (and pods without a
    node) are not capped by a node.
    """
    plan = plan_usage([(workload.pods, workload.profile) for workload in workloads])
    rates = [workload.rate for workload in workloads]
    return draw_usage(plan, rates, allocatable, rng, samples=samples)


def draw_usage(
    plan: UsagePlan,
    rates: Sequence[float],
    allocatable: Mapping[str, Resources],
    rng: random.Random,
    *,
    samples: float = 1.0,
) -> tuple[PodUsage, ...]:
    """``compute_usage`` of the plan's workloads at ``rates`` (one per workload, in order)."""
    return usages_of(plan, draw_rows(plan, rates, allocatable, rng, samples=samples))


def draw_rows(
    plan: UsagePlan,
    rates: Sequence[float],
    allocatable: Mapping[str, Resources],
    rng: random.Random,
    *,
    samples: float = 1.0,
) -> DrawnRows:
    """The draws and caps of ``draw_usage`` (the same ``rng`` calls in the same order);
    a large plan draws through ``usage_arrays`` (numpy), the same numbers as this loop."""
    # Hot: this runs at every usage advance, so ``spread_rate``, ``cost_of``, ``_noise`` and
    # ``_capped`` are inlined here (the same arithmetic, in the same order).
    shares = [rate / ready if ready else 0.0 for rate, ready in zip(rates, plan.ready, strict=True)]
    cpu_spread = 1.0 / math.sqrt(samples) if samples > 1.0 else 1.0
    weights = (plan.cpu_weight, plan.memory_weight)
    if plan.arrays is not None:
        cpu_rows, memory_rows = draw_arrays(
            plan.arrays, plan.node_rows, weights, shares, cpu_spread, allocatable, rng
        )
        return DrawnRows(shares, cpu_rows, memory_rows)
    gauss = rng.gauss
    # One row per container, pods in order and each pod's containers in spec order (the
    # order of the noise draws), as parallel lists.
    cpu: list[float] = []
    memory: list[float] = []
    for _, _, _, workload, ready, stddev, rows in plan.pods:
        share = shares[workload] if ready else 0.0
        cpu_stddev = stddev * cpu_spread
        for (
            _,
            cpu_base,
            cpu_per_rps,
            memory_base,
            memory_per_rps,
            cpu_limit,
            memory_limit,
        ) in rows:
            # ``max(0.0, x)`` and ``min(demand, limit)`` spelled as the comparisons they make
            # (the same answer for every float, NaN and -0.0 included), without the calls.
            if cpu_stddev > 0:
                noise = gauss(1.0, cpu_stddev)
                if not noise > 0.0:
                    noise = 0.0
            else:
                noise = 1.0
            demand = (cpu_base + cpu_per_rps * share) * noise
            cpu.append(demand if cpu_limit is None or not cpu_limit < demand else cpu_limit)
            if stddev > 0:
                noise = gauss(1.0, stddev)
                if not noise > 0.0:
                    noise = 0.0
            else:
                noise = 1.0
            demand = (memory_base + memory_per_rps * share) * noise
            memory.append(
                demand if memory_limit is None or not memory_limit < demand else memory_limit
            )
    apply_node_caps_grouped(plan.node_rows, (cpu, memory), weights, allocatable)
    return DrawnRows(shares, cpu, memory)


def usages_of(plan: UsagePlan, drawn: DrawnRows) -> tuple[PodUsage, ...]:
    """The ``PodUsage``s of ``draw_rows``' answer: usage rounded down to whole units."""
    shares, cpu_rows, memory_rows = drawn
    cpu = cpu_rows if isinstance(cpu_rows, list) else cpu_rows.tolist()
    memory = memory_rows if isinstance(memory_rows, list) else memory_rows.tolist()
    usages: list[PodUsage] = []
    row = 0
    floor = math.floor
    # The NamedTuples built by ``tuple.__new__``, as their generated ``__new__`` does, without
    # that Python-level call (two per pod and advance).
    new = tuple.__new__
    for namespace, name, node, workload, ready, _, rows in plan.pods:
        containers = []
        for container in rows:
            containers.append(
                new(ContainerUsage, (container[0], floor(cpu[row]), floor(memory[row])))
            )
            row += 1
        share = shares[workload] if ready else 0.0
        usages.append(new(PodUsage, (namespace, name, node, share, tuple(containers))))
    return tuple(usages)


def _entry_key(entry: tuple[tuple[str, str], PodLoad, int, LoadProfile]) -> tuple[str, str]:
    return entry[0]
