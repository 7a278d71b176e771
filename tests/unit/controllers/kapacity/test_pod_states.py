"""Kapacity's pod state transfer (``controllers.kapacity.pod_states``): which pods a
ReplicaProfile moves between Online, Cutoff, Standby and Deleted, over a given sort order
(first = first to scale down); hypothesis: the counts reach the spec and no pod moves twice."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.kapacity.pod_states import (
    Classified,
    Desired,
    PodState,
    StateChange,
    allowed_online,
    classify,
    is_running,
    plan_state_change,
    state_of,
)

LABEL = "kapacitystack.io/pod-state"
ORDER = tuple(f"p{i}" for i in range(8))  # p0 goes first, p7 is kept longest


def pod(name: str, phase: str = "Running", state: str | None = None, **meta: Any) -> dict[str, Any]:
    labels = {"app": "web"} if state is None else {"app": "web", LABEL: state}
    return {"metadata": {"name": name, "labels": labels, **meta}, "status": {"phase": phase}}


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (None, PodState.ONLINE),
        ({LABEL: ""}, PodState.ONLINE),
        ({LABEL: "Cutoff"}, PodState.CUTOFF),
        ({LABEL: "Standby"}, PodState.STANDBY),
        ({LABEL: "Deleted"}, PodState.ONLINE),
        ({LABEL: "cutoff"}, PodState.ONLINE),
    ],
    ids=["no-label", "empty", "cutoff", "standby", "deleted-is-no-label-state", "case-sensitive"],
)
def test_state_of_reads_unknown_as_online(
    labels: dict[str, str] | None, expected: PodState
) -> None:
    assert state_of(labels) is expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (pod("a"), True),
        (pod("a", "Pending"), False),
        (pod("a", "Succeeded"), False),
        (pod("a", deletionTimestamp="2026-01-01T00:00:00Z"), False),
    ],
    ids=["running", "pending", "finished", "terminating"],
)
def test_is_running_is_kapacitys_rule(raw: dict[str, Any], expected: bool) -> None:
    assert is_running(raw) is expected


def test_classify_counts_only_running_pods_by_label() -> None:
    pods = [
        pod("a"),
        pod("b", state="Cutoff"),
        pod("c", state="Standby"),
        pod("d", "Pending", state="Cutoff"),
        pod("e", state="Cutoff"),
    ]
    found = classify(pods)
    assert found == Classified(("a",), ("b", "e"), ("c",))
    assert found.total == 4


def online(n: int) -> tuple[str, ...]:
    return ORDER[:n]


@pytest.mark.parametrize(
    ("current", "desired", "expected"),
    [
        (Classified(online(4)), Desired(4), StateChange()),
        (Classified(online(4)), Desired(2, 2), StateChange(cutoff=("p0", "p1"))),
        (Classified(online(4)), Desired(3, 0, 1), StateChange(standby=("p0",))),
        (Classified(online(4)), Desired(2), StateChange(delete=("p0", "p1"))),
        (Classified(("p2", "p3"), ("p0", "p1")), Desired(4), StateChange(online=("p0", "p1"))),
        (Classified(("p2", "p3"), ("p0", "p1")), Desired(3, 1), StateChange(online=("p1",))),
        (
            Classified(("p0",), ("p1",), ("p2", "p3")),
            Desired(3, 1),
            StateChange(online=("p1", "p3"), cutoff=("p2",)),
        ),
        (
            Classified(("p2", "p3"), ("p0", "p1")),
            Desired(2, 0, 2),
            StateChange(standby=("p0", "p1")),
        ),
        (Classified(("p2", "p3"), ("p0", "p1")), Desired(2, 3), StateChange()),
        (
            Classified(("p1", "p2", "p3"), ("p0",)),
            Desired(1, 2, 1),
            StateChange(cutoff=("p1", "p2"), standby=("p0",)),
        ),
        (Classified(online(2)), Desired(4), StateChange()),
    ],
    ids=[
        "ensured-no-change",
        "cutoff-the-first-in-sort-order",
        "surplus-cascades-through-cutoff-to-standby",
        "surplus-beyond-standby-is-deleted",
        "online-takes-back-cutoff-pods",
        "online-takes-the-last-in-sort-order",
        "online-short-takes-cutoff-then-standby-keeping-longest-first",
        "cutoff-surplus-moves-on-to-standby",
        "too-few-pods-leaves-the-rest-to-scaling",
        "online-surplus-lands-in-cutoff-cutoff-surplus-in-standby",
        "missing-online-pods-come-from-scaling",
    ],
)
def test_plan_state_change(current: Classified, desired: Desired, expected: StateChange) -> None:
    assert plan_state_change(current, desired, ORDER) == expected


def test_pods_missing_from_the_order_rank_last_by_name() -> None:
    change = plan_state_change(Classified(("z", "y", "p0")), Desired(1, 2), ["p0"])
    assert change == StateChange(cutoff=("p0", "y"))


def _apply(current: Classified, change: StateChange) -> dict[PodState, set[str]]:
    held = {
        PodState.ONLINE: set(current.online),
        PodState.CUTOFF: set(current.cutoff),
        PodState.STANDBY: set(current.standby),
        PodState.DELETED: set(),
    }
    moves = {
        PodState.ONLINE: change.online,
        PodState.CUTOFF: change.cutoff,
        PodState.STANDBY: change.standby,
        PodState.DELETED: change.delete,
    }
    for state, names in moves.items():
        for name in names:
            for members in held.values():
                members.discard(name)
            held[state].add(name)
    return held


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[Classified, Desired, list[str]]:
    names = [f"p{i}" for i in range(draw(st.integers(0, 10)))]
    states = [draw(st.sampled_from(("o", "c", "s"))) for _ in names]
    current = Classified(
        tuple(n for n, s in zip(names, states, strict=True) if s == "o"),
        tuple(n for n, s in zip(names, states, strict=True) if s == "c"),
        tuple(n for n, s in zip(names, states, strict=True) if s == "s"),
    )
    desired = Desired(draw(st.integers(0, 10)), draw(st.integers(0, 10)), draw(st.integers(0, 10)))
    order = draw(st.permutations(names))
    return current, desired, list(order)


@given(scenarios())
def test_no_pod_moves_twice_and_counts_reach_the_spec(
    case: tuple[Classified, Desired, list[str]],
) -> None:
    current, desired, order = case
    change = plan_state_change(current, desired, order)
    moved = [*change.online, *change.cutoff, *change.standby, *change.delete]
    assert len(moved) == len(set(moved))
    assert set(moved) <= set(order)
    held = _apply(current, change)
    wanted = desired.online + desired.cutoff + desired.standby
    if current.total == wanted:
        # Enough pods run: after the change every state holds what the spec asks.
        assert len(held[PodState.ONLINE]) == desired.online
        assert len(held[PodState.CUTOFF]) == desired.cutoff
        assert len(held[PodState.STANDBY]) == desired.standby
        assert not change.delete
    if current.total >= wanted:
        assert len(held[PodState.ONLINE]) == desired.online
    # A pod never moves into the state it is already in.
    assert not set(change.online) & set(current.online)
    assert not set(change.cutoff) & set(current.cutoff)
    assert not set(change.standby) & set(current.standby)


@pytest.mark.parametrize(
    ("direction", "wanted", "online", "expected"),
    [
        ("Both", 6, 4, 6),
        ("Both", 2, 4, 2),
        ("Neither", 6, 4, 4),
        ("Neither", 2, 4, 4),
        ("Up", 6, 4, 6),
        ("Up", 2, 4, 4),
        ("Down", 6, 4, 4),
        ("Down", 2, 4, 2),
    ],
    ids=[
        "both-up",
        "both-down",
        "neither-holds-up",
        "neither-holds-down",
        "up-allows-up",
        "up-holds-down",
        "down-holds-up",
        "down-allows-down",
    ],
)
def test_allowed_scaling_direction_bounds_the_online_count(
    direction: str, wanted: int, online: int, expected: int
) -> None:
    assert allowed_online(direction, wanted, online) == expected
