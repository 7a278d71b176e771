"""Expectations with an injected clock (``podscale.controllers.replicaset.expectations``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.replicaset import EXPECTATIONS_TIMEOUT, Expectations

NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
KEY = "default/web"


def test_unknown_key_is_satisfied() -> None:
    assert Expectations().satisfied(KEY, now=NOW)


@pytest.mark.parametrize(
    ("expected", "observed", "satisfied"),
    [(3, 0, False), (3, 2, False), (3, 3, True), (1, 2, True), (0, 0, True)],
    ids=["none-seen", "some-seen", "all-seen", "over-observed", "nothing-expected"],
)
def test_creations(expected: int, observed: int, satisfied: bool) -> None:
    exp = Expectations()
    exp.expect_creations(KEY, expected, now=NOW)
    for _ in range(observed):
        exp.creation_observed(KEY)
    assert exp.satisfied(KEY, now=NOW) is satisfied


@pytest.mark.parametrize(
    ("observed", "satisfied"),
    [
        ([], False),
        (["ns/a"], False),
        (["ns/a", "ns/a"], False),
        (["ns/a", "ns/b"], True),
        (["ns/x"], False),
    ],
    ids=[
        "none-seen",
        "one-seen",
        "same-pod-twice-counts-once",
        "all-seen",
        "unexpected-pod-ignored",
    ],
)
def test_deletions_tracked_per_pod(observed: list[str], satisfied: bool) -> None:
    exp = Expectations()
    exp.expect_deletions(KEY, ["ns/a", "ns/b"], now=NOW)
    for pod_key in observed:
        exp.deletion_observed(KEY, pod_key)
    assert exp.satisfied(KEY, now=NOW) is satisfied


@pytest.mark.parametrize(
    ("elapsed", "satisfied"),
    [(EXPECTATIONS_TIMEOUT, False), (EXPECTATIONS_TIMEOUT + timedelta(microseconds=1), True)],
    ids=["at-timeout", "past-timeout"],
)
def test_expectations_expire_after_five_minutes(elapsed: timedelta, satisfied: bool) -> None:
    exp = Expectations()
    exp.expect_creations(KEY, 2, now=NOW)
    assert exp.satisfied(KEY, now=NOW + elapsed) is satisfied


def test_setting_expectations_replaces_the_record() -> None:
    exp = Expectations()
    exp.expect_creations(KEY, 2, now=NOW)
    exp.expect_deletions(KEY, ["ns/a"], now=NOW)
    record = exp.get(KEY)
    assert record is not None
    assert (record.add, record.delete) == (0, 1)


def test_delete_forgets_key_and_observing_unknown_key_is_noop() -> None:
    exp = Expectations()
    exp.expect_creations(KEY, 1, now=NOW)
    exp.delete(KEY)
    exp.creation_observed(KEY)
    exp.deletion_observed(KEY, "ns/a")
    assert exp.get(KEY) is None


def test_keys_are_independent() -> None:
    exp = Expectations()
    exp.expect_creations(KEY, 1, now=NOW)
    exp.creation_observed("default/other")
    assert not exp.satisfied(KEY, now=NOW)


@given(st.integers(0, 50), st.integers(0, 60))
def test_satisfied_exactly_when_all_creations_observed(expected: int, observed: int) -> None:
    exp = Expectations()
    exp.expect_creations(KEY, expected, now=NOW)
    for _ in range(observed):
        exp.creation_observed(KEY)
    assert exp.satisfied(KEY, now=NOW) is (observed >= expected)


def test_pods_awaited_for_deletion_survive_a_round_of_creations() -> None:
    # UIDTrackingControllerExpectations keeps its pod keys apart from the counts:
    # ExpectCreations resets the counts only, so a late delete still lowers them.
    exp = Expectations()
    exp.expect_deletions(KEY, ["ns/a", "ns/b"], now=NOW)
    exp.deletion_observed(KEY, "ns/a")
    exp.expect_creations(KEY, 2, now=NOW)
    exp.deletion_observed(KEY, "ns/b")
    exp.deletion_observed(KEY, "ns/b")
    record = exp.get(KEY)
    assert record is not None
    assert (record.add, record.delete, record.deleting_pods) == (2, -1, frozenset())
    assert not exp.satisfied(KEY, now=NOW)


def test_awaited_pods_are_replaced_and_forgotten_with_the_key() -> None:
    exp = Expectations()
    exp.expect_deletions(KEY, ["ns/a"], now=NOW)
    exp.expect_deletions(KEY, ["ns/b", "ns/b"], now=NOW)
    record = exp.get(KEY)
    assert record is not None
    assert (record.delete, record.deleting_pods) == (1, frozenset({"ns/b"}))
    exp.delete(KEY)
    exp.expect_creations(KEY, 0, now=NOW)
    exp.deletion_observed(KEY, "ns/b")
    record = exp.get(KEY)
    assert record is not None
    assert record.delete == 0
