"""Gray changes: the first step at once, one step per interval, max(1, diff x percent / 100)
gray pods, the observation after 100%, and the invariants of a whole walk."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.kapacity.gray import (
    GrayDecision,
    GrayInput,
    GrayStatus,
    GrayStrategy,
    ReplicaSplit,
    decide_gray,
    gray_pods,
    start_gray,
)

T0 = dt.datetime(2026, 5, 4, 12, tzinfo=dt.UTC)
CUTOFF = GrayStrategy(
    "Cutoff", change_interval_seconds=60, change_percent=25, observation_seconds=120
)
DOWN = GrayInput(1, 20, previous_replicas=10, current_replicas=2, scale_down=CUTOFF)


def at(seconds: int) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def walk(spec: GrayInput, times: list[int]) -> list[tuple[ReplicaSplit, int | None]]:
    """Reconcile at each offset from T0, the change having started at T0."""
    gray = start_gray(spec, T0)
    seen = []
    for offset in times:
        decision = decide_gray(spec, gray, at(offset))
        gray = decision.gray
        seen.append((decision.split, gray.gray_percent if gray else None))
    return seen


def test_scale_down_in_cutoff_steps_then_observation() -> None:
    got = walk(DOWN, [0, 30, 60, 120, 180, 299, 300])
    assert got == [
        (ReplicaSplit(8, cutoff=2), 25),  # first step immediate
        (ReplicaSplit(8, cutoff=2), 25),  # interval not over: hold
        (ReplicaSplit(6, cutoff=4), 50),
        (ReplicaSplit(4, cutoff=6), 75),
        (ReplicaSplit(2, cutoff=8), 100),  # online reached the target; pods kept cut off
        (ReplicaSplit(2, cutoff=8), 100),  # observation running
        (ReplicaSplit(2), 100),  # observation over: the cut-off pods go
    ]


STATE_CASES = [
    ("standby-keeps-pods-on-standby", "Standby", ReplicaSplit(8, standby=2)),
    ("deleted-keeps-no-gray-pods", "Deleted", ReplicaSplit(8)),
    ("cutoff-keeps-pods-cut-off", "Cutoff", ReplicaSplit(8, cutoff=2)),
]


@pytest.mark.parametrize(
    ("state", "split"), [c[1:] for c in STATE_CASES], ids=[c[0] for c in STATE_CASES]
)
def test_gray_state_decides_where_scaled_down_pods_wait(state: str, split: ReplicaSplit) -> None:
    strategy = GrayStrategy(state, 60, 25)  # type: ignore[arg-type]
    spec = GrayInput(1, 20, 10, 2, scale_down=strategy)
    assert walk(spec, [0])[0][0] == split


def test_scale_up_adds_online_pods_per_step() -> None:
    spec = GrayInput(1, 20, 4, 14, scale_up=GrayStrategy("Online", 10, 30))
    got = [split.online for split, _ in walk(spec, [0, 10, 20, 30, 31])]
    assert got == [7, 10, 13, 14, 14]


def test_observation_zero_ends_at_the_next_reconcile() -> None:
    spec = GrayInput(1, 20, 10, 8, scale_down=GrayStrategy("Cutoff", 60, 100))
    got = walk(spec, [0, 0])
    assert got == [(ReplicaSplit(8, cutoff=2), 100), (ReplicaSplit(8), 100)]


GRAY_PODS_CASES = [
    ("at-least-one-pod-at-zero-percent", 8, 2, 0, 1),
    ("at-least-one-pod-when-share-rounds-to-zero", 3, 2, 10, 1),
    ("integer-division-truncates", 10, 3, 50, 3),
    ("full-change-at-hundred", 2, 12, 100, 10),
]


@pytest.mark.parametrize(
    ("prev", "cur", "percent", "want"),
    [c[1:] for c in GRAY_PODS_CASES],
    ids=[c[0] for c in GRAY_PODS_CASES],
)
def test_gray_pods_formula(prev: int, cur: int, percent: int, want: int) -> None:
    assert gray_pods(prev, cur, percent) == want


NO_GRAY_CASES = [
    ("no-previous-value", GrayInput(1, 20, None, 5, scale_down=CUTOFF)),
    ("no-strategy-for-direction", GrayInput(1, 20, 2, 10, scale_down=CUTOFF)),
    ("preview-mode", GrayInput(1, 20, 10, 2, scale_down=CUTOFF, preview=True)),
    ("same-after-clamp", GrayInput(1, 5, 10, 8, scale_down=CUTOFF)),
]


@pytest.mark.parametrize("spec", [c[1] for c in NO_GRAY_CASES], ids=[c[0] for c in NO_GRAY_CASES])
def test_without_gray_the_clamped_value_applies_at_once(spec: GrayInput) -> None:
    assert start_gray(spec, T0) is None
    decision = decide_gray(spec, None, T0)
    want = min(max(spec.current_replicas, spec.min_replicas), spec.max_replicas)
    assert decision.split == ReplicaSplit(want)
    assert decision.next_step_at is None
    assert not decision.progressing


def test_clamped_target_and_condition_ride_along() -> None:
    spec = GrayInput(4, 20, 10, 2, scale_down=CUTOFF)
    decision = decide_gray(spec, start_gray(spec, T0), T0)
    assert decision.clamped.replicas == 4
    assert decision.clamped.limited.reason == "TooFewReplicas"
    assert decision.split == ReplicaSplit(9, cutoff=1)  # 25% of the clamped 10 -> 4
    assert decision.progressing


@given(
    low=st.integers(0, 10),
    span=st.integers(0, 20),
    previous=st.integers(0, 40),
    current=st.integers(0, 40),
    state=st.sampled_from(["Cutoff", "Standby", "Deleted"]),
    interval=st.integers(1, 600),
    percent=st.integers(1, 100),
    observation=st.integers(0, 600),
)
def test_a_gray_walk_stays_in_range_moves_toward_target_and_ends_there(
    low: int,
    span: int,
    previous: int,
    current: int,
    state: str,
    interval: int,
    percent: int,
    observation: int,
) -> None:
    high = low + span
    strategy = GrayStrategy(state, interval, percent, observation)  # type: ignore[arg-type]
    up = GrayStrategy("Online", interval, percent, observation)
    spec = GrayInput(low, high, previous, current, scale_up=up, scale_down=strategy)
    start = min(max(previous, low), high)
    gray: GrayStatus | None = start_gray(spec, T0)
    now = T0
    last_online = start
    decision: GrayDecision | None = None
    for _ in range(300):
        decision = decide_gray(spec, gray, now)
        split, target = decision.split, decision.clamped.replicas
        assert low <= split.online <= high
        # monotone toward the target, never past it
        assert min(last_online, target) <= split.online <= max(last_online, target)
        if target < start:
            assert split.online <= last_online
        last_online = split.online
        waiting = split.cutoff + split.standby
        if decision.next_step_at is not None and target < start and state != "Deleted":
            assert waiting >= 1  # a gray step always holds at least one pod
            assert split.online + waiting == start
        gray = decision.gray
        if decision.next_step_at is None:
            break
        now = max(now, decision.next_step_at)
    assert decision is not None
    assert decision.next_step_at is None
    assert decision.split == ReplicaSplit(decision.clamped.replicas)
