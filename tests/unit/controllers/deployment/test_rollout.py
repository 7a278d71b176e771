"""Rolling and Recreate steps (``podscale.controllers.deployment.rollout``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.deployment.fenceposts import (
    RECREATE,
    Strategy,
    max_surge,
    max_unavailable,
)
from podscale.controllers.deployment.replicasets import ReplicaSetState
from podscale.controllers.deployment.rollout import (
    RecreateStep,
    new_replica_set_replicas,
    old_pods_running,
    plan_old_scale_down,
    plan_recreate,
    reconcile_new_replica_set,
)

from .builders import make_rs

ABS = Strategy(max_surge=3, max_unavailable=2)

NEW_RS_CASES = [
    # (id, replicas, strategy, old sizes, new size, expected)
    ("fresh rollout of 10 with maxSurge 3 starts 3 new pods", 10, ABS, [10], 0, 3),
    ("defaults: 25% surge of 10 is 3", 10, Strategy(), [10], 0, 3),
    ("no surge room left keeps the size", 10, ABS, [10], 3, 3),
    ("room after old scaled down", 10, ABS, [8], 3, 5),
    ("never beyond replicas", 10, ABS, [1], 8, 10),
    ("recreate jumps to replicas", 10, Strategy(type=RECREATE), [0], 0, 10),
]


@pytest.mark.parametrize(
    ("replicas", "strategy", "old_sizes", "new_size", "expected"),
    [c[1:] for c in NEW_RS_CASES],
    ids=[c[0] for c in NEW_RS_CASES],
)
def test_new_replica_set_replicas(
    replicas: int, strategy: Strategy, old_sizes: list[int], new_size: int, expected: int
) -> None:
    new = make_rs("new", new_size, age=100)
    old = [make_rs(f"old{i}", size, age=i) for i, size in enumerate(old_sizes)]
    assert new_replica_set_replicas(replicas, strategy, [*old, new], new) == expected


RECONCILE_NEW_CASES = [
    ("already at replicas: no change", 10, [0], 10, None),
    ("oversized new scales down to replicas", 5, [0], 8, 5),
    ("blocked by surge: no change", 10, [10], 3, None),
    ("grows into surge room", 10, [8], 3, 5),
]


@pytest.mark.parametrize(
    ("replicas", "old_sizes", "new_size", "expected"),
    [c[1:] for c in RECONCILE_NEW_CASES],
    ids=[c[0] for c in RECONCILE_NEW_CASES],
)
def test_reconcile_new_replica_set(
    replicas: int, old_sizes: list[int], new_size: int, expected: int | None
) -> None:
    new = make_rs("new", new_size, age=100)
    old = [make_rs(f"old{i}", size, age=i) for i, size in enumerate(old_sizes)]
    assert reconcile_new_replica_set(replicas, ABS, [*old, new], new) == expected


# (id, old [(replicas, available)], new (replicas, available), targets, cleaned, scaled)
OLD_CASES: list[tuple[str, list[tuple[int, int]], tuple[int, int], dict[str, int], int, int]] = [
    ("healthy start: drop maxUnavailable pods", [(10, 10)], (3, 0), {"old0": 8}, 0, 2),
    ("new pods unavailable block further scale down", [(8, 8)], (5, 0), {}, 0, 0),
    ("new pods ready free old ones", [(8, 8)], (5, 5), {"old0": 3}, 0, 5),
    ("unhealthy old replicas cleaned first", [(8, 6)], (5, 5), {"old0": 3}, 2, 3),
    (
        "cleanup oldest first, then healthy scale down oldest first",
        [(3, 1), (5, 5)],
        (5, 4),
        {"old0": 0, "old1": 4},
        2,
        2,
    ),
    ("nothing old left", [(0, 0)], (10, 10), {}, 0, 0),
    (
        "documented case 1: crashlooping new pods and a lost node",
        [(8, 7)],
        (5, 0),
        {},
        0,
        0,
    ),
    (
        "documented case 2: roll over frees the unavailable budget",
        [(8, 8), (5, 0)],
        (0, 0),
        {"old1": 0},
        5,
        0,
    ),
]


@pytest.mark.parametrize(
    ("old_counts", "new_counts", "targets", "cleaned", "scaled"),
    [c[1:] for c in OLD_CASES],
    ids=[c[0] for c in OLD_CASES],
)
def test_plan_old_scale_down(
    old_counts: list[tuple[int, int]],
    new_counts: tuple[int, int],
    targets: dict[str, int],
    cleaned: int,
    scaled: int,
) -> None:
    old = [make_rs(f"old{i}", r, a, age=i) for i, (r, a) in enumerate(old_counts)]
    new = make_rs("new", *new_counts, age=100)
    plan = plan_old_scale_down(10, ABS, [*old, new], old, new)
    assert dict(plan.targets) == targets
    assert (plan.cleaned_up, plan.scaled_down) == (cleaned, scaled)
    assert plan.scaled == bool(cleaned + scaled)


def _apply(rss: list[ReplicaSetState], targets: dict[str, int]) -> list[ReplicaSetState]:
    # A ReplicaSet controller that deletes unavailable pods first.
    out = []
    for rs in rss:
        size = targets.get(rs.name, rs.replicas)
        available = min(rs.available_replicas, size)
        out.append(
            ReplicaSetState(
                name=rs.name,
                replicas=size,
                created=rs.created,
                uid=rs.uid,
                status_replicas=size,
                ready_replicas=available,
                available_replicas=available,
            )
        )
    return out


fencepost = st.one_of(st.integers(0, 5), st.integers(0, 100).map(lambda p: f"{p}%"))


@given(st.integers(1, 30), fencepost, fencepost)
def test_rolling_rollout_respects_surge_and_availability(
    replicas: int, surge: int | str, unavailable: int | str
) -> None:
    """Driving a rollout to the end never exceeds replicas + maxSurge pods nor drops the
    available count below replicas - maxUnavailable, and ends fully on the new ReplicaSet."""
    strategy = Strategy(max_surge=surge, max_unavailable=unavailable)
    ceiling = replicas + max_surge(strategy, replicas)
    floor = replicas - max_unavailable(strategy, replicas)
    old = make_rs("old", replicas, age=0)
    new = make_rs("new", 0, age=100)
    for _ in range(4 * replicas + 10):
        rss = [old, new]
        target = reconcile_new_replica_set(replicas, strategy, rss, new)
        if target is not None:
            old, new = _apply(rss, {"new": target})
        else:
            plan = plan_old_scale_down(replicas, strategy, rss, [old], new)
            old, new = _apply(rss, dict(plan.targets))
        assert old.replicas + new.replicas <= ceiling
        assert old.available_replicas + new.available_replicas >= floor
        # The new pods start and become available before the next sync.
        new = make_rs("new", new.replicas, age=100)
        if (old.replicas, new.replicas) == (0, replicas):
            break
    assert (old.replicas, new.replicas) == (0, replicas)


@given(
    st.integers(1, 20),
    fencepost,
    fencepost,
    st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=1, max_size=4),
    st.integers(0, 20),
    st.integers(0, 20),
)
def test_old_scale_down_keeps_availability(
    replicas: int,
    surge: int | str,
    unavailable: int | str,
    old_counts: list[tuple[int, int]],
    new_size: int,
    new_available: int,
) -> None:
    """One scale-down step never removes available pods below replicas - maxUnavailable
    (or below what was available, if that was already lower) and never grows anything."""
    strategy = Strategy(max_surge=surge, max_unavailable=unavailable)
    old = [make_rs(f"old{i}", r, min(a, r), age=i) for i, (r, a) in enumerate(old_counts)]
    new = make_rs("new", new_size, min(new_available, new_size), age=100)
    rss = [*old, new]
    before = sum(rs.available_replicas for rs in rss)
    plan = plan_old_scale_down(replicas, strategy, rss, old, new)
    after_rss = _apply(rss, dict(plan.targets))
    after = sum(rs.available_replicas for rs in after_rss)
    assert after >= min(before, replicas - max_unavailable(strategy, replicas))
    assert all(plan.targets[rs.name] < rs.replicas for rs in old if rs.name in plan.targets)
    assert all(size >= 0 for size in plan.targets.values())
    assert plan.cleaned_up + plan.scaled_down == sum(
        rs.replicas - plan.targets.get(rs.name, rs.replicas) for rs in old
    )


def _pod(phase: str) -> dict[str, Any]:
    return {"status": {"phase": phase}}


RUNNING_CASES: list[tuple[str, int, dict[str, list[dict[str, Any]]], bool]] = [
    ("old ReplicaSet still reports pods", 1, {}, True),
    ("no pods at all", 0, {}, False),
    ("only the new ReplicaSet's pods", 0, {"uid-new": [_pod("Running")]}, False),
    ("an old running pod", 0, {"uid-old": [_pod("Running")]}, True),
    ("an old pending pod", 0, {"uid-old": [_pod("Pending")]}, True),
    ("an old pod in Unknown counts", 0, {"uid-old": [_pod("Unknown")]}, True),
    ("finished old pods do not count", 0, {"uid-old": [_pod("Succeeded"), _pod("Failed")]}, False),
]


@pytest.mark.parametrize(
    ("old_status_replicas", "pods", "expected"),
    [c[1:] for c in RUNNING_CASES],
    ids=[c[0] for c in RUNNING_CASES],
)
def test_old_pods_running(
    old_status_replicas: int, pods: dict[str, list[dict[str, Any]]], expected: bool
) -> None:
    old = make_rs("old", 0, 0, status_replicas=old_status_replicas)
    assert old_pods_running(make_rs("new", 3, age=1), [old], pods) is expected


RECREATE_CASES: list[
    tuple[str, list[ReplicaSetState], ReplicaSetState | None, dict[str, Any], RecreateStep]
] = [
    (
        "scale old down first",
        [make_rs("old", 3)],
        None,
        {},
        RecreateStep(scale_old_to_zero=("old",)),
    ),
    (
        "wait while old pods terminate",
        [make_rs("old", 0, 0, status_replicas=2)],
        None,
        {},
        RecreateStep(wait_for_old_pods=True),
    ),
    (
        "create the new ReplicaSet",
        [make_rs("old", 0, 0, status_replicas=0)],
        None,
        {},
        RecreateStep(create_new=True),
    ),
    (
        "scale new straight to replicas",
        [],
        make_rs("new", 0, age=1),
        {},
        RecreateStep(new_replicas=5),
    ),
    ("done", [], make_rs("new", 5, age=1), {}, RecreateStep()),
]


@pytest.mark.parametrize(
    ("old", "new", "pods", "expected"),
    [c[1:] for c in RECREATE_CASES],
    ids=[c[0] for c in RECREATE_CASES],
)
def test_plan_recreate(
    old: list[ReplicaSetState],
    new: ReplicaSetState | None,
    pods: dict[str, list[dict[str, Any]]],
    expected: RecreateStep,
) -> None:
    assert plan_recreate(5, new, old, pods) == expected
