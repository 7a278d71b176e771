"""The usage model: traffic spread over ready pods, per-container costs (sidecars), limits,
node capacity shared by requests, seeded noise; hypothesis: caps never crossed, shares sum
to the rate, same seed gives the same usage."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.runtime.load import (
    ContainerCost,
    ContainerResources,
    LoadProfile,
    PodLoad,
    PodUsage,
    WorkloadDemand,
    compute_usage,
    spread_rate,
)
from podscale.runtime.simulated.resources import Resources

MI = 1024 * 1024
APP = ContainerCost(baseline_milli_cpu=1, baseline_memory=10 * MI, milli_cpu_per_rps=20)
PROFILE = LoadProfile({"app": APP})
BIG_NODE = {"n1": Resources(milli_cpu=64_000, memory=256 * 1024 * MI), "n2": Resources(64_000)}


def app(limit: int | None = 500, request: int = 200) -> ContainerResources:
    return ContainerResources("app", Resources(milli_cpu=request), cpu_limit_milli=limit)


def pod(name: str, *, ready: bool = True, node: str = "n1", **kw: int | None) -> PodLoad:
    return PodLoad(name, (app(**kw),), node=node, ready=ready)  # type: ignore[arg-type]


def usage(
    rate: float,
    pods: list[PodLoad],
    profile: LoadProfile = PROFILE,
    nodes: dict[str, Resources] | None = None,
    seed: int = 1,
) -> dict[str, PodUsage]:
    result = compute_usage(
        [WorkloadDemand(rate, pods, profile)],
        BIG_NODE if nodes is None else nodes,
        random.Random(seed),
    )
    return {u.name: u for u in result}


@pytest.mark.parametrize(
    ("ready", "rate", "expected"),
    [
        ([True, True, True, True], 100.0, [25.0, 25.0, 25.0, 25.0]),
        ([True, False, True, False], 100.0, [50.0, 0.0, 50.0, 0.0]),
        ([False, False], 100.0, [0.0, 0.0]),
        ([True], 0.0, [0.0]),
        ([], 10.0, []),
    ],
    ids=["all-ready", "not-ready-get-nothing", "none-ready-drops", "no-load", "no-pods"],
)
def test_spread_rate(ready: list[bool], rate: float, expected: list[float]) -> None:
    pods = [pod(f"p{i}", ready=r) for i, r in enumerate(ready)]
    assert list(spread_rate(rate, pods).values()) == expected


@pytest.mark.parametrize(
    ("rate", "pods", "expected_cpu"),
    [
        (10.0, [pod("a")], {"a": 201}),
        (100.0, [pod("a")], {"a": 500}),
        (100.0, [pod("a", limit=None)], {"a": 2001}),
        (20.0, [pod("a"), pod("b")], {"a": 201, "b": 201}),
        (20.0, [pod("a"), pod("b", ready=False)], {"a": 401, "b": 1}),
        (0.0, [pod("a")], {"a": 1}),
    ],
    ids=[
        "baseline-plus-cost",
        "capped-by-limit",
        "no-limit",
        "even-split",
        "not-ready-baseline-only",
        "idle",
    ],
)
def test_cpu_usage(rate: float, pods: list[PodLoad], expected_cpu: dict[str, int]) -> None:
    got = usage(rate, pods)
    assert {name: u.milli_cpu for name, u in got.items()} == expected_cpu


def test_memory_usage_and_request_rate() -> None:
    profile = LoadProfile({"app": ContainerCost(baseline_memory=10 * MI, memory_per_rps=MI)})
    got = usage(8.0, [pod("a"), pod("b")], profile)
    assert got["a"].memory == 14 * MI
    assert got["a"].request_rate == 4.0


@pytest.mark.parametrize(
    ("sidecar_cost", "expected"),
    [
        (ContainerCost(baseline_milli_cpu=5), {"app": 201, "proxy": 5}),
        (ContainerCost(baseline_milli_cpu=5, milli_cpu_per_rps=30), {"app": 201, "proxy": 305}),
    ],
    ids=["idle-sidecar", "busy-sidecar"],
)
def test_sidecar_has_its_own_cost(sidecar_cost: ContainerCost, expected: dict[str, int]) -> None:
    containers = (app(limit=None), ContainerResources("proxy", Resources(milli_cpu=50)))
    profile = LoadProfile({"app": APP, "proxy": sidecar_cost})
    [result] = compute_usage(
        [WorkloadDemand(10.0, [PodLoad("a", containers, node="n1")], profile)],
        BIG_NODE,
        random.Random(0),
    )
    assert {c.name: c.milli_cpu for c in result.containers} == expected


def test_unnamed_containers_cost_the_default() -> None:
    profile = LoadProfile(default=ContainerCost(baseline_milli_cpu=3))
    assert usage(10.0, [pod("a")], profile)["a"].milli_cpu == 3


@pytest.mark.parametrize(
    ("requests", "demand_rps", "capacity", "expected"),
    [
        ((100, 100), (50.0, 50.0), 1000, (500, 500)),
        ((300, 100), (50.0, 50.0), 1000, (750, 250)),
        ((300, 100), (5.0, 50.0), 1000, (100, 900)),
        ((100, 100), (10.0, 10.0), 1000, (200, 200)),
    ],
    ids=["equal-shares", "shares-follow-requests", "surplus-goes-to-busy-pod", "fits"],
)
def test_node_capacity_is_shared_by_requests(
    requests: tuple[int, int],
    demand_rps: tuple[float, float],
    capacity: int,
    expected: tuple[int, int],
) -> None:
    profile = LoadProfile({"app": ContainerCost(milli_cpu_per_rps=20)})
    workloads = [
        WorkloadDemand(rps, [PodLoad(f"p{i}", (app(limit=None, request=req),), node="n1")], profile)
        for i, (req, rps) in enumerate(zip(requests, demand_rps, strict=True))
    ]
    got = compute_usage(workloads, {"n1": Resources(milli_cpu=capacity)}, random.Random(0))
    assert tuple(u.milli_cpu for u in got) == expected


def test_pods_on_other_nodes_do_not_compete() -> None:
    nodes = {"n1": Resources(milli_cpu=300, memory=10**12), "n2": Resources(4000, 10**12)}
    got = usage(
        40.0, [pod("a", node="n1", limit=None), pod("b", node="n2", limit=None)], nodes=nodes
    )
    assert (got["a"].milli_cpu, got["b"].milli_cpu) == (300, 401)


def test_noise_is_seeded_and_clamped() -> None:
    noisy = LoadProfile({"app": APP}, noise_stddev=0.2)
    pods = [pod(f"p{i}", limit=None) for i in range(5)]
    first = usage(50.0, pods, noisy, seed=3)
    assert first == usage(50.0, list(reversed(pods)), noisy, seed=3)
    assert first != usage(50.0, pods, noisy, seed=4)
    assert len({u.milli_cpu for u in first.values()}) > 1
    wild = LoadProfile({"app": APP}, noise_stddev=50.0)
    assert all(u.milli_cpu >= 0 and u.memory >= 0 for u in usage(50.0, pods, wild).values())


def test_an_interval_draws_cpu_noise_of_a_mean_and_memory_noise_of_a_reading() -> None:
    """With ``samples`` n, CPU stands for the mean of n one-step draws (stddev / sqrt(n));
    the memory gauge keeps the full stddev."""
    cost = ContainerCost(baseline_milli_cpu=1000.0, baseline_memory=1_000_000.0)
    profile = LoadProfile({"app": cost}, noise_stddev=0.2)
    pods = [pod(f"p{i:04}", limit=None, node="uncapped") for i in range(2000)]
    result = compute_usage(
        [WorkloadDemand(0.0, pods, profile)], BIG_NODE, random.Random(5), samples=16.0
    )
    cpu = statistics.pstdev(u.milli_cpu / 1000 for u in result)
    memory = statistics.pstdev(u.memory / 1_000_000 for u in result)
    assert cpu == pytest.approx(0.2 / 4, rel=0.1)
    assert memory == pytest.approx(0.2, rel=0.1)


def test_no_noise_draws_nothing() -> None:
    rng = random.Random(9)
    compute_usage([WorkloadDemand(10.0, [pod("a")], PROFILE)], BIG_NODE, rng)
    assert rng.random() == random.Random(9).random()


# -- invariants ------------------------------------------------------------------------

limits = st.one_of(st.none(), st.integers(1, 4000))
container_st = st.builds(
    ContainerResources,
    st.sampled_from(["app", "proxy"]),
    st.builds(Resources, st.integers(0, 2000), st.integers(0, 4 * 1024 * MI)),
    limits,
    st.one_of(st.none(), st.integers(1, 8 * 1024 * MI)),
)
pod_st = st.builds(
    PodLoad,
    st.text("abcdef", min_size=1, max_size=6),
    st.lists(container_st, min_size=1, max_size=3, unique_by=lambda c: c.name).map(tuple),
    st.just("default"),
    st.sampled_from(["n1", "n2"]),
    st.booleans(),
)
cost_st = st.builds(
    ContainerCost,
    st.floats(0, 500),
    st.floats(0, 1e9),
    st.floats(0, 200),
    st.floats(0, 1e7),
)
profile_st = st.builds(
    LoadProfile, st.fixed_dictionaries({"app": cost_st, "proxy": cost_st}), cost_st, st.floats(0, 1)
)
node_st = st.builds(Resources, st.integers(0, 8000), st.integers(0, 16 * 1024 * MI))
pods_st = st.lists(pod_st, max_size=8, unique_by=lambda p: p.name)
rate_st = st.floats(0, 10_000)


@given(rate_st, pods_st, profile_st, node_st, node_st, st.integers(0, 2**32))
def test_usage_never_exceeds_limits_or_capacity(
    rate: float,
    pods: list[PodLoad],
    profile: LoadProfile,
    n1: Resources,
    n2: Resources,
    seed: int,
) -> None:
    nodes = {"n1": n1, "n2": n2}
    result = compute_usage([WorkloadDemand(rate, pods, profile)], nodes, random.Random(seed))
    specs = {p.name: {c.name: c for c in p.containers} for p in pods}
    for pod_usage in result:
        for c in pod_usage.containers:
            spec = specs[pod_usage.name][c.name]
            assert c.milli_cpu >= 0
            assert c.memory >= 0
            if spec.cpu_limit_milli is not None:
                assert c.milli_cpu <= spec.cpu_limit_milli
            if spec.memory_limit is not None:
                assert c.memory <= spec.memory_limit
    for name, capacity in nodes.items():
        on_node = [u for u in result if u.node == name]
        assert sum(u.milli_cpu for u in on_node) <= capacity.milli_cpu
        assert sum(u.memory for u in on_node) <= capacity.memory


@given(rate_st, pods_st)
def test_shares_sum_to_the_rate(rate: float, pods: list[PodLoad]) -> None:
    result = compute_usage([WorkloadDemand(rate, pods, PROFILE)], BIG_NODE, random.Random(0))
    total = sum(u.request_rate for u in result)
    if any(p.ready for p in pods):
        assert total == pytest.approx(rate)
    else:
        assert total == 0
    assert all(
        u.request_rate == 0 for u in result if not next(p for p in pods if p.name == u.name).ready
    )


@given(rate_st, pods_st, profile_st, st.integers(0, 2**32))
def test_same_seed_same_usage(
    rate: float, pods: list[PodLoad], profile: LoadProfile, seed: int
) -> None:
    def run() -> tuple[PodUsage, ...]:
        return compute_usage([WorkloadDemand(rate, pods, profile)], BIG_NODE, random.Random(seed))

    assert run() == run()
