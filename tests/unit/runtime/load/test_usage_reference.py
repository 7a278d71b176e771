"""``compute_usage`` against a plain reference version of its rules: the hot loop inlines its
helpers (share, cost lookup, noise, caps) and skips sharing out nodes that are not full; the
usages and the random draws must be exactly those of the plain version, capped or not."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.runtime.load import (
    ContainerCost,
    ContainerResources,
    LoadProfile,
    PodLoad,
    PodUsage,
    WorkloadDemand,
    compute_usage,
    draw_usage,
    plan_usage,
)
from podscale.runtime.load.usage import ContainerUsage
from podscale.runtime.simulated.resources import Resources

# -- the reference: each rule as its own step -------------------------------------------


def _noise(rng: random.Random, stddev: float) -> float:
    return max(0.0, rng.gauss(1.0, stddev)) if stddev > 0 else 1.0


def _capped(value: float, limit: int | None) -> float:
    return value if limit is None else min(value, float(limit))


def _share(demands: list[float], weights: list[float], capacity: float) -> list[float]:
    if sum(demands) <= capacity:
        return demands
    granted = [0.0] * len(demands)
    pending = set(range(len(demands)))
    remaining = capacity
    while pending:
        total = sum(weights[i] for i in pending)
        content = [i for i in pending if demands[i] <= remaining * weights[i] / total]
        if not content:
            for i in pending:
                granted[i] = remaining * weights[i] / total
            break
        for i in content:
            granted[i] = demands[i]
            remaining -= demands[i]
            pending.discard(i)
    return granted


def reference_usage(
    workloads: Sequence[WorkloadDemand],
    allocatable: Mapping[str, Resources],
    rng: random.Random,
    samples: float,
) -> tuple[PodUsage, ...]:
    entries: list[tuple[PodLoad, float, LoadProfile]] = []
    for workload in workloads:
        ready = sum(1 for p in workload.pods if p.ready)
        share = workload.rate / ready if ready else 0.0
        entries.extend((p, share if p.ready else 0.0, workload.profile) for p in workload.pods)
    entries.sort(key=lambda entry: entry[0].key)
    spread = 1.0 / math.sqrt(samples) if samples > 1.0 else 1.0
    rows: list[tuple[str, str | None, float, float, float, float]] = []
    for pod, share, profile in entries:
        for container in pod.containers:
            cost = profile.cost_of(container.name)
            cpu = (cost.baseline_milli_cpu + cost.milli_cpu_per_rps * share) * _noise(
                rng, profile.noise_stddev * spread
            )
            memory = (cost.baseline_memory + cost.memory_per_rps * share) * _noise(
                rng, profile.noise_stddev
            )
            rows.append(
                (
                    container.name,
                    pod.node,
                    _capped(cpu, container.cpu_limit_milli),
                    _capped(memory, container.memory_limit),
                    float(max(container.request.milli_cpu, 1)),
                    float(max(container.request.memory, 1)),
                )
            )
    cpus = [r[2] for r in rows]
    memories = [r[3] for r in rows]
    for node, capacity in allocatable.items():
        on = [i for i, r in enumerate(rows) if r[1] == node]
        granted_cpu = _share([cpus[i] for i in on], [rows[i][4] for i in on], capacity.milli_cpu)
        granted_mem = _share([memories[i] for i in on], [rows[i][5] for i in on], capacity.memory)
        for i, c, m in zip(on, granted_cpu, granted_mem, strict=True):
            cpus[i], memories[i] = c, m
    usages = []
    row = 0
    for pod, share, _ in entries:
        containers = []
        for container in pod.containers:
            containers.append(
                ContainerUsage(container.name, math.floor(cpus[row]), math.floor(memories[row]))
            )
            row += 1
        usages.append(PodUsage(pod.namespace, pod.name, pod.node, share, tuple(containers)))
    return tuple(usages)


# -- the property ---------------------------------------------------------------------

_NAMES = ("app", "sidecar", "proxy")
_containers = st.lists(
    st.builds(
        ContainerResources,
        name=st.sampled_from(_NAMES),
        request=st.builds(
            Resources,
            milli_cpu=st.integers(0, 800),
            memory=st.integers(0, 512 * 1024 * 1024),
        ),
        cpu_limit_milli=st.none() | st.integers(0, 1000),
        memory_limit=st.none() | st.integers(0, 512 * 1024 * 1024),
    ),
    min_size=1,
    max_size=3,
    unique_by=lambda c: c.name,
)
_costs = st.builds(
    ContainerCost,
    baseline_milli_cpu=st.floats(0, 50),
    baseline_memory=st.floats(0, 64e6),
    milli_cpu_per_rps=st.floats(0, 40),
    memory_per_rps=st.floats(0, 1e6),
)
_profiles = st.builds(
    LoadProfile,
    costs=st.dictionaries(st.sampled_from(_NAMES), _costs, max_size=2),
    default=_costs,
    noise_stddev=st.sampled_from([0.0, 0.05, 0.3]),
)


@st.composite
def _workloads(draw: st.DrawFn) -> list[WorkloadDemand]:
    count = draw(st.integers(1, 3))
    names = draw(st.lists(st.text("abcdef", min_size=1, max_size=3), unique=True, max_size=8))
    workloads = []
    for index in range(count):
        pods = [
            PodLoad(
                name,
                tuple(draw(_containers)),
                namespace=draw(st.sampled_from(["default", "other"])),
                node=draw(st.sampled_from([None, "n1", "n2", "gone"])),
                ready=draw(st.booleans()),
            )
            for name in names[index::count]
        ]
        workloads.append(WorkloadDemand(draw(st.floats(0, 500)), pods, draw(_profiles)))
    return workloads


_allocatable = st.fixed_dictionaries(
    {
        "n1": st.builds(Resources, st.integers(0, 3000), st.integers(0, 2 * 1024**3)),
        "n2": st.builds(Resources, st.integers(0, 3000), st.integers(0, 2 * 1024**3)),
    }
)


@settings(max_examples=300, deadline=None)
@given(
    workloads=_workloads(),
    allocatable=_allocatable,
    seed=st.integers(0, 2**32),
    samples=st.sampled_from([1.0, 2.0, 15.0, 60.5]),
)
def test_compute_usage_equals_the_reference(
    workloads: list[WorkloadDemand],
    allocatable: dict[str, Resources],
    seed: int,
    samples: float,
) -> None:
    fast_rng, reference_rng = random.Random(seed), random.Random(seed)
    got = compute_usage(workloads, allocatable, fast_rng, samples=samples)
    assert got == reference_usage(workloads, allocatable, reference_rng, samples)
    # The same draws, no more and no fewer: the next usage would be the same too.
    assert fast_rng.getstate() == reference_rng.getstate()


def test_a_full_node_is_shared_out_as_the_reference_does() -> None:
    """The capped branch on its own: two busy pods on a node that holds one."""
    container = ContainerResources("app", Resources(milli_cpu=100), cpu_limit_milli=None)
    pods = [PodLoad(n, (container,), node="n1") for n in ("a", "b")]
    workload = WorkloadDemand(100.0, pods, LoadProfile(default=ContainerCost(0, 0, 20, 0)))
    small = {"n1": Resources(milli_cpu=1500, memory=1024)}
    got = compute_usage([workload], small, random.Random(3))
    assert got == reference_usage([workload], small, random.Random(3), 1.0)
    assert sum(u.milli_cpu for u in got) == 1500


@settings(max_examples=150, deadline=None)
@given(
    workloads=_workloads(),
    allocatable=_allocatable,
    seed=st.integers(0, 2**32),
    rates=st.lists(st.lists(st.floats(0, 500), min_size=3, max_size=3), min_size=1, max_size=4),
)
def test_one_plan_drawn_at_many_rates_equals_computing_each_afresh(
    workloads: list[WorkloadDemand],
    allocatable: dict[str, Resources],
    seed: int,
    rates: list[list[float]],
) -> None:
    """``SimulatedUsage`` plans once per assignment of pods and draws at every advance: a
    plan kept over several advances (new rates, samples and the generator moved on) gives
    what ``compute_usage`` of the demands at those rates gives."""
    plan = plan_usage([(w.pods, w.profile) for w in workloads])
    kept_rng, fresh_rng = random.Random(seed), random.Random(seed)
    for samples, at in enumerate(rates, start=1):
        current = [
            WorkloadDemand(rate, w.pods, w.profile) for w, rate in zip(workloads, at, strict=False)
        ]
        got = draw_usage(plan, [d.rate for d in current], allocatable, kept_rng, samples=samples)
        assert got == compute_usage(current, allocatable, fresh_rng, samples=samples)
    assert kept_rng.getstate() == fresh_rng.getstate()


class _OwnGauss(random.Random):
    """A generator whose ``gauss`` is its own: ``draw_rows`` draws through it."""

    def gauss(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        return super().gauss(mu, sigma) * 0.5 + 0.5 * mu


@settings(max_examples=150, deadline=None)
@given(
    workloads=_workloads(),
    allocatable=_allocatable,
    seed=st.integers(0, 2**32),
    spare=st.booleans(),
    own=st.booleans(),
)
def test_the_draws_are_the_generators_own_in_the_reference_order(
    workloads: list[WorkloadDemand],
    allocatable: dict[str, Resources],
    seed: int,
    spare: bool,
    own: bool,
) -> None:
    """``draw_rows`` leaves the same usage and generator state as the reference's calls,
    with a spare normal pending on entry (an odd number of draws before) or not, and with a
    generator whose ``gauss`` is its own."""
    kind = _OwnGauss if own else random.Random
    fast_rng, reference_rng = kind(seed), kind(seed)
    if spare:
        fast_rng.gauss()
        reference_rng.gauss()
    got = compute_usage(workloads, allocatable, fast_rng, samples=15.0)
    assert got == reference_usage(workloads, allocatable, reference_rng, 15.0)
    assert fast_rng.getstate() == reference_rng.getstate()
