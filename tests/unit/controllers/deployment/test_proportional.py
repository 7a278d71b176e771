"""Scaling events mid-rollout (``podscale.controllers.deployment.proportional``)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from podscale.controllers.deployment.fenceposts import RECREATE, Strategy, max_surge
from podscale.controllers.deployment.proportional import (
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    find_active_or_latest,
    is_saturated,
    is_scaling_event,
    replicas_annotations,
    scale_replica_sets,
)
from podscale.controllers.deployment.replicasets import ReplicaSetState

from .builders import make_rs

ABS = Strategy(max_surge=3, max_unavailable=2)


def sized_for(replicas: int, maximum: int) -> dict[str, str]:
    return {DESIRED_REPLICAS_ANNOTATION: str(replicas), MAX_REPLICAS_ANNOTATION: str(maximum)}


def test_replicas_annotations_record_desired_and_max() -> None:
    assert replicas_annotations(10, ABS) == sized_for(10, 13)
    assert replicas_annotations(10, Strategy(type=RECREATE)) == sized_for(10, 10)


def test_docs_proportional_scaling_10_to_15_splits_3_to_2() -> None:
    """The Kubernetes docs example: a rollout stuck at old 8 / new 5 (10 replicas, maxSurge 3,
    maxUnavailable 2) is scaled to 15: the extra 5 replicas go 3 to the old, 2 to the new."""
    old = make_rs("old", 8, age=0, annotations=sized_for(10, 13))
    new = make_rs("new", 5, 0, age=10, annotations=sized_for(10, 13))
    assert scale_replica_sets(15, ABS, new, [old], status_replicas=13) == {"old": 11, "new": 7}


# (id, replicas, strategy, old [(size, annotations)], new (size, annotations) | None,
#  status_replicas, expected)
SCALE_CASES: list[
    tuple[
        str,
        int,
        Strategy,
        list[tuple[int, dict[str, str]]],
        tuple[int, dict[str, str]] | None,
        int,
        dict[str, int],
    ]
] = [
    (
        "single active ReplicaSet takes everything",
        20,
        ABS,
        [(0, {})],
        (10, sized_for(10, 13)),
        10,
        {"new": 20},
    ),
    ("single active at size: nothing to do", 10, ABS, [], (10, sized_for(10, 13)), 10, {}),
    (
        "no active ReplicaSet: the new one is scaled",
        4,
        ABS,
        [(0, {})],
        (0, {}),
        0,
        {"new": 4},
    ),
    ("no new ReplicaSet: the newest old one", 4, ABS, [(0, {}), (0, {})], None, 0, {"old1": 4}),
    (
        "scale down mid-rollout shrinks the larger first",
        5,
        ABS,
        [(8, sized_for(10, 13))],
        (5, sized_for(10, 13)),
        13,
        {"old": 5, "new": 3},
    ),
    (
        "scale to zero empties everything",
        0,
        ABS,
        [(8, sized_for(10, 13))],
        (5, sized_for(10, 13)),
        13,
        {"old": 0, "new": 0},
    ),
    (
        "equal sizes scaling up: newer first gets the leftover",
        11,
        Strategy(max_surge=0, max_unavailable=1),
        [(5, sized_for(10, 10))],
        (5, sized_for(10, 10)),
        10,
        {"old": 5, "new": 6},
    ),
    (
        "equal sizes scaling down: older first loses the leftover",
        9,
        Strategy(max_surge=0, max_unavailable=1),
        [(5, sized_for(10, 10))],
        (5, sized_for(10, 10)),
        10,
        {"old": 4, "new": 5},
    ),
    (
        "missing max annotation falls back to status.replicas",
        20,
        Strategy(max_surge=0, max_unavailable=1),
        [(5, {})],
        (5, {}),
        10,
        {"old": 10, "new": 10},
    ),
    (
        "no annotation and empty status: all goes to the largest",
        20,
        Strategy(max_surge=0, max_unavailable=1),
        [(6, {})],
        (4, {}),
        0,
        {"old": 16, "new": 4},
    ),
    (
        "recreate with two active ReplicaSets waits for the rollout",
        20,
        Strategy(type=RECREATE),
        [(6, {})],
        (4, {}),
        10,
        {},
    ),
]


@pytest.mark.parametrize(
    ("replicas", "strategy", "old_specs", "new_spec", "status_replicas", "expected"),
    [c[1:] for c in SCALE_CASES],
    ids=[c[0] for c in SCALE_CASES],
)
def test_scale_replica_sets(
    replicas: int,
    strategy: Strategy,
    old_specs: list[tuple[int, dict[str, str]]],
    new_spec: tuple[int, dict[str, str]] | None,
    status_replicas: int,
    expected: dict[str, int],
) -> None:
    old = [
        make_rs(f"old{i}" if len(old_specs) > 1 else "old", size, age=i, annotations=notes)
        for i, (size, notes) in enumerate(old_specs)
    ]
    new = (
        None
        if new_spec is None
        else make_rs("new", new_spec[0], 0, age=100, annotations=new_spec[1])
    )
    assert (
        scale_replica_sets(replicas, strategy, new, old, status_replicas=status_replicas)
        == expected
    )


def test_saturated_new_replica_set_scales_old_ones_to_zero() -> None:
    new = make_rs("new", 10, 10, age=100, annotations=sized_for(10, 13))
    old = [make_rs("a", 2, age=0), make_rs("b", 1, age=1), make_rs("c", 0, age=2)]
    assert scale_replica_sets(10, ABS, new, old, status_replicas=13) == {"a": 0, "b": 0}


SATURATED_CASES = [
    ("all three agree", 10, 10, sized_for(10, 13), True),
    ("not all available", 10, 9, sized_for(10, 13), False),
    ("sized for another count", 10, 10, sized_for(8, 11), False),
    ("no annotation", 10, 10, {}, False),
    ("garbled annotation", 10, 10, {DESIRED_REPLICAS_ANNOTATION: "ten"}, False),
]


@pytest.mark.parametrize(
    ("size", "available", "annotations", "expected"),
    [c[1:] for c in SATURATED_CASES],
    ids=[c[0] for c in SATURATED_CASES],
)
def test_is_saturated(
    size: int, available: int, annotations: dict[str, str], expected: bool
) -> None:
    assert is_saturated(10, make_rs("new", size, available, annotations=annotations)) is expected


def test_is_saturated_without_replica_set() -> None:
    assert is_saturated(10, None) is False


SCALING_EVENT_CASES = [
    ("annotation matches", [(3, sized_for(10, 13))], False),
    ("annotation differs", [(3, sized_for(8, 10))], True),
    ("inactive ReplicaSets do not count", [(0, sized_for(8, 10))], False),
    ("unannotated ReplicaSets do not count", [(3, {})], False),
]


@pytest.mark.parametrize(
    ("specs", "expected"),
    [c[1:] for c in SCALING_EVENT_CASES],
    ids=[c[0] for c in SCALING_EVENT_CASES],
)
def test_is_scaling_event(specs: list[tuple[int, dict[str, str]]], expected: bool) -> None:
    rss = [make_rs(f"rs{i}", size, annotations=notes) for i, (size, notes) in enumerate(specs)]
    assert is_scaling_event(10, rss) is expected


def test_find_active_or_latest_with_two_active_is_none() -> None:
    assert find_active_or_latest(make_rs("new", 1, age=5), [make_rs("old", 1)]) is None
    assert find_active_or_latest(None, []) is None


@given(
    st.integers(0, 60),
    st.integers(0, 5),
    st.integers(0, 5),
    st.lists(st.integers(1, 20), min_size=2, max_size=5),
)
def test_proportional_scaling_sums_to_the_new_size(
    new_replicas: int, surge: int, unavailable: int, sizes: list[int]
) -> None:
    """From a consistent mid-rollout state (every ReplicaSet sized for the same maximum,
    summing to it) scaling lands on replicas + maxSurge with no negative size. The one
    exception is upstream's: the rounding leftover goes to the largest ReplicaSet and is
    clamped at 0 there, so a scale-down of many 1-replica sets can stop short."""
    strategy = Strategy(max_surge=surge, max_unavailable=unavailable)
    # Absolute surge: the previous size follows from the ReplicaSets' total.
    old_max = sum(sizes)
    old_replicas = old_max - surge
    assume(old_replicas >= 1)
    notes = sized_for(old_replicas, old_max)
    rss = [make_rs(f"rs{i}", size, 0, age=i, annotations=notes) for i, size in enumerate(sizes)]
    result = scale_replica_sets(new_replicas, strategy, rss[-1], rss[:-1], status_replicas=old_max)
    allowed = new_replicas + max_surge(strategy, new_replicas) if new_replicas else 0
    assert set(result) == {rs.name for rs in rss}
    assert all(size >= 0 for size in result.values())
    total = sum(result.values())
    assert total == allowed or (total > allowed and 0 in result.values())


@given(
    st.integers(0, 60),
    st.lists(st.tuples(st.integers(0, 20), st.integers(0, 40)), min_size=1, max_size=5),
    st.integers(0, 60),
)
def test_scaling_never_produces_negative_sizes(
    replicas: int, specs: list[tuple[int, int]], status_replicas: int
) -> None:
    rss: list[ReplicaSetState] = [
        make_rs(f"rs{i}", size, 0, age=i, annotations={MAX_REPLICAS_ANNOTATION: str(maximum)})
        for i, (size, maximum) in enumerate(specs)
    ]
    result = scale_replica_sets(replicas, ABS, rss[-1], rss[:-1], status_replicas=status_replicas)
    assert all(size >= 0 for size in result.values())
