"""The scaling-quality measures on hand-computed series, and their invariants."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.replay.measures import (
    MinuteSeries,
    PodShape,
    ScaleEvent,
    fixed_at_peak,
    needed_pods,
    oracle,
    reaction_times,
    score,
    slo_violated,
)
from podscale.replay.sampling import demand_per_minute, minute_means, window_events

POD = PodShape(cpu_request=100.0, cpu_limit=200.0, utilization=0.5)


@pytest.mark.parametrize(
    ("demand", "expected"),
    [
        (0.0, 0),
        (1.0, 1),
        (50.0, 1),
        (50.000001, 2),
        (500.0, 10),
        (150.00000000000003, 3),
        (1e-300, 1),
    ],
    ids=["idle", "a-little", "exactly-one", "just-over-one", "ten", "float-noise", "tiny"],
)
def test_needed_pods(demand: float, expected: int) -> None:
    assert needed_pods(demand, POD) == expected


@pytest.mark.parametrize(
    ("demand", "ready", "limit", "expected"),
    [
        (0.0, 0.0, 200.0, False),
        (1.0, 0.0, 200.0, True),
        (400.0, 2.0, 200.0, False),
        (401.0, 2.0, 200.0, True),
        (10_000.0, 1.0, None, False),
        (1.0, 0.0, None, True),
    ],
    ids=["idle-no-pods", "load-no-pods", "at-limit", "over-limit", "no-limit", "no-limit-no-pods"],
)
def test_slo_violated(demand: float, ready: float, limit: float | None, expected: bool) -> None:
    assert slo_violated(demand, ready, PodShape(100.0, limit, 0.5)) is expected


@pytest.mark.parametrize(
    ("needed", "ready", "expected"),
    [
        ([2, 2, 2], [2, 2, 2], []),
        ([1, 1, 10, 10, 10, 10], [1, 1, 1, 5, 10, 10], [2]),
        ([1, 10, 10], [1, 10, 10], [0]),
        ([10, 11, 11], [10, 10, 10], []),  # +10% is no rise
        ([1, 4, 4, 8, 8], [1, 1, 4, 4, 8], [1, 1]),
        ([0, 3, 3], [0, 0, 0], [2]),  # open at the end: minutes to the end
        ([5, 4, 5, 6, 7], [5, 4, 4, 4, 4], [3]),  # 4 -> 5 is +25% over the 5-minute low
    ],
    ids=["flat", "step", "already-there", "small", "two-rises", "never-met", "from-the-low"],
)
def test_reaction_times(needed: list[int], ready: list[float], expected: list[int]) -> None:
    assert reaction_times(needed, ready) == expected


def test_score_of_a_hand_computed_run() -> None:
    """needed 1,3,3,1; ready 1,1,2.5,3; replicas 1,3,3,3 with one scale-up at 0.75."""
    series = MinuteSeries(
        cpu_demand=(50.0, 150.0, 150.0, 50.0),
        needed=(1, 3, 3, 1),
        ready=(1.0, 1.0, 2.5, 3.0),
        replicas=(1.0, 3.0, 3.0, 3.0),
        events=(ScaleEvent(0.75, 1, 3),),
        max_replicas=3,
    )
    totals = score(series, POD)
    assert totals.under_pod_minutes == 2.5  # 2 + 0.5
    assert totals.under_minutes == 2
    assert totals.under_beyond_one_pod_minutes == 1.0  # 1 + 0
    assert totals.slo_violation_minutes == 0  # 150 <= 1 x 200
    assert totals.over_pod_hours == pytest.approx(2 / 60)
    assert totals.cost_pod_hours == pytest.approx(10 / 60)
    assert (totals.scale_ups, totals.scale_downs, totals.max_replicas) == (1, 0, 3)
    assert (totals.rises, totals.react_median_minutes, totals.react_max_minutes) == (1, 2.0, 2.0)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ([], (0.0, 0.0)),
        ([(0.0, 2)], (2.0, 2.0)),
        ([(30.0, 2)], (1.0, 2.0)),
        ([(30.0, 2), (30.0, 4), (90.0, 0)], (2.0, 2.0)),
        ([(-5.0, 3), (75.0, 1)], (3.0, 1.5)),
    ],
    ids=["never", "from-start", "half-minute", "same-instant-last-wins", "before-start"],
)
def test_minute_means(changes: list[tuple[float, int]], expected: tuple[float, ...]) -> None:
    assert minute_means(0, changes, 0.0, 2) == expected


def test_window_events_and_highest() -> None:
    changes = [(0.0, 1), (50.0, 6), (90.0, 4), (130.0, 9), (200.0, 2)]
    events, highest = window_events(0, changes, 60.0, 2)
    assert events == (ScaleEvent(0.5, 6, 4), ScaleEvent(70 / 60, 4, 9))
    assert highest == 9


def test_demand_per_minute_averages_whole_seconds() -> None:
    demand = demand_per_minute(lambda s: 10.0 if s >= 90 else 0.0, 2.0, 60.0, 2)
    assert demand == (10.0, 20.0)  # 30 of 60 seconds at 10 req/s x 2m


demands = st.lists(st.floats(0, 5_000, allow_nan=False), min_size=1, max_size=60)


@given(demands, st.lists(st.floats(0, 80, allow_nan=False), min_size=60, max_size=60))
def test_references_bound_the_runs(demand: list[float], ready_pool: list[float]) -> None:
    """The oracle is never short and, of all runs never short, over-provisions least;
    fixed at the peak is never short either."""
    needed = [needed_pods(d, POD) for d in demand]
    best, peak = score(oracle(demand, needed), POD), score(fixed_at_peak(demand, needed), POD)
    assert best.under_pod_minutes == peak.under_pod_minutes == 0
    assert best.under_minutes == peak.under_minutes == best.slo_violation_minutes == 0
    ready = tuple(max(float(n), r) for n, r in zip(needed, ready_pool, strict=False))
    covered = score(MinuteSeries(tuple(demand), tuple(needed), ready, ready), POD)
    assert covered.under_pod_minutes == 0
    assert best.over_pod_hours <= covered.over_pod_hours
    assert best.over_pod_hours <= peak.over_pod_hours


@given(demands, st.lists(st.floats(0, 80, allow_nan=False), min_size=60, max_size=60))
def test_totals_are_sums_of_the_minutes(demand: list[float], pool: list[float]) -> None:
    needed = tuple(needed_pods(d, POD) for d in demand)
    ready = tuple(pool[: len(demand)])
    replicas = tuple(r + 1 for r in ready)
    totals = score(MinuteSeries(tuple(demand), needed, ready, replicas), POD)
    short = [max(0.0, n - r) for n, r in zip(needed, ready, strict=True)]
    assert totals.under_pod_minutes == pytest.approx(sum(short))
    assert totals.under_minutes == sum(1 for s in short if s > 0)
    assert totals.under_beyond_one_pod_minutes == pytest.approx(sum(max(0, s - 1) for s in short))
    over = [max(0.0, r - n) for n, r in zip(needed, ready, strict=True)]
    assert totals.over_pod_hours == pytest.approx(sum(over) / 60)
    assert totals.cost_pod_hours == pytest.approx(sum(replicas) / 60)
    assert totals.slo_violation_minutes == sum(
        slo_violated(d, r, POD) for d, r in zip(demand, ready, strict=True)
    )
