"""The per-sync shortcuts of the status computation equal the general path:
``conditions.set_new_condition`` against ``set_condition(new_condition(...))``, the memo
of ``fenceposts.resolve_fenceposts`` against a fresh resolution, and ``calculate_status``
/ ``rollout_status`` with a passed ``strategy`` against reading it themselves."""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.deployment import fenceposts
from podscale.controllers.deployment.conditions import (
    new_condition,
    set_condition,
    set_new_condition,
)
from podscale.controllers.deployment.fenceposts import resolve_fenceposts, strategy_of
from podscale.controllers.deployment.status import calculate_status, rollout_status

from .builders import T0, make_rs

NOW = T0 + timedelta(hours=1)
_TYPES = st.sampled_from(["Available", "Progressing", "ReplicaFailure"])
_STATUSES = st.sampled_from(["True", "False", "Unknown"])
_REASONS = st.sampled_from(["MinimumReplicasAvailable", "MinimumReplicasUnavailable", "Other"])
_stored = st.builds(
    lambda kind, status, reason, ago: new_condition(
        kind, status, reason, "before", NOW - timedelta(seconds=ago)
    ),
    _TYPES,
    _STATUSES,
    _REASONS,
    st.integers(0, 5000),
)


@given(
    st.lists(_stored, max_size=4, unique_by=lambda c: c["type"]),
    _TYPES,
    _STATUSES,
    _REASONS,
)
def test_set_new_condition_equals_setting_a_fresh_one(
    stored: list[dict[str, Any]], kind: str, status: str, reason: str
) -> None:
    general = copy.deepcopy(stored)
    set_condition(general, new_condition(kind, status, reason, "now", NOW))
    lazy = copy.deepcopy(stored)
    set_new_condition(lazy, kind, status, reason, "now", NOW)
    assert lazy == general
    assert [c["type"] for c in lazy] == [c["type"] for c in general]


_INT_OR_PERCENT = st.one_of(
    st.none(),
    st.integers(0, 30),
    st.booleans(),
    st.sampled_from(["0%", "25%", "33%", "100%", "+5%", "x%", "5", ""]),
)


@given(st.lists(st.tuples(_INT_OR_PERCENT, _INT_OR_PERCENT, st.integers(0, 40)), max_size=20))
def test_resolve_fenceposts_memo_equals_a_fresh_resolution(
    calls: list[tuple[Any, Any, int]],
) -> None:
    for surge, unavailable, desired in calls:
        for _ in range(2):  # the second call may come from the memo
            try:
                expected: Any = fenceposts._resolve(surge, unavailable, desired)
            except ValueError as err:
                expected = ("error", str(err))
            try:
                got: Any = resolve_fenceposts(surge, unavailable, desired)
            except ValueError as err:
                got = ("error", str(err))
            assert got == expected


@pytest.mark.parametrize(
    ("first", "second"),
    [((1, 0, 4), (True, 0, 4)), ((0, 1, 4), (0, True, 4)), (("25%", 1, 4), ("25%", 1.0, 4))],
    ids=["surge-bool-after-int", "unavailable-bool-after-int", "float-after-int"],
)
def test_equal_values_of_other_types_never_share_a_memo_entry(
    first: tuple[Any, Any, int], second: tuple[Any, Any, int]
) -> None:
    assert resolve_fenceposts(*first) == fenceposts._resolve(*first)
    try:
        expected: Any = fenceposts._resolve(*second)
    except (ValueError, AttributeError) as err:
        expected = type(err)
    try:
        got: Any = resolve_fenceposts(*second)
    except (ValueError, AttributeError) as err:
        got = type(err)
    assert got == expected


def test_unhashable_values_are_resolved_without_the_memo() -> None:
    with pytest.raises(AttributeError):
        fenceposts._resolve([1], 0, 4)  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        resolve_fenceposts([1], 0, 4)  # type: ignore[arg-type]


def test_the_memo_is_bounded() -> None:
    for desired in range(fenceposts._RESOLVED_LIMIT + 10):
        resolve_fenceposts("25%", "25%", desired)
    assert len(fenceposts._RESOLVED) <= fenceposts._RESOLVED_LIMIT


def _deployment(replicas: int, strategy: dict[str, Any], conditions: list[Any]) -> dict[str, Any]:
    return {
        "metadata": {"name": "web", "generation": 2},
        "spec": {"replicas": replicas, "progressDeadlineSeconds": 600, "strategy": strategy},
        "status": {"replicas": replicas, "updatedReplicas": 1, "conditions": conditions},
    }


@given(
    st.integers(0, 12),
    st.integers(0, 12),
    st.sampled_from(
        [
            {},
            {"type": "Recreate"},
            {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 2}},
            {"rollingUpdate": {"maxUnavailable": "50%"}},
        ]
    ),
    st.lists(_stored, max_size=3, unique_by=lambda c: c["type"]),
)
def test_a_passed_strategy_equals_the_one_read_from_the_deployment(
    replicas: int, available: int, strategy: dict[str, Any], conditions: list[Any]
) -> None:
    body = _deployment(replicas, strategy, conditions)
    new_rs = make_rs("new", replicas, min(available, replicas))
    old_rs = make_rs("old", 1, 0, age=-60)
    everything = [old_rs, new_rs]
    read = strategy_of(body)
    assert calculate_status(body, everything, new_rs, NOW, strategy=read) == calculate_status(
        body, everything, new_rs, NOW
    )
    assert rollout_status(body, everything, new_rs, NOW, strategy=read) == rollout_status(
        body, everything, new_rs, NOW
    )
