"""Scaling policies: per-period changes, scale-up/down limits and the scale event memory."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.hpa.policies import (
    longest_policy_period,
    record_scale_event,
    replicas_change_in_period,
    scale_down_limit,
    scale_up_limit,
    seed_history,
)
from podscale.hpa.types import History, Recommendation, ScaleEvent

T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def pods(value: int, period: int) -> dict[str, Any]:
    return {"type": "Pods", "value": value, "periodSeconds": period}


def percent(value: int, period: int) -> dict[str, Any]:
    return {"type": "Percent", "value": value, "periodSeconds": period}


def rules(*policies: dict[str, Any], select: str = "Max") -> dict[str, Any]:
    return {"stabilizationWindowSeconds": 0, "selectPolicy": select, "policies": list(policies)}


def up(change: int, seconds_ago: float, *, outdated: bool = False) -> ScaleEvent:
    return ScaleEvent(change, at(-seconds_ago), outdated)


DEFAULT_UP = rules(pods(4, 15), percent(100, 15))
DEFAULT_DOWN = rules(percent(100, 15))


@pytest.mark.parametrize(
    ("events", "period", "expected"),
    [
        ([], 60, 0),
        ([up(2, 10), up(3, 59)], 60, 5),
        ([up(2, 10), up(3, 60)], 60, 2),  # exactly one period old: outside (strict After)
        ([up(2, 10), up(3, 61)], 60, 2),
        ([up(2, 10, outdated=True)], 60, 2),  # the flag does not matter, the time does
        ([up(7, 0)], 0, 0),  # a zero period holds nothing, not even an event of now
        ([up(1, 1), up(1, 2), up(1, 3)], 15, 3),
    ],
    ids=["empty", "inside", "at-cutoff", "older", "outdated-flag", "zero-period", "several"],
)
def test_replicas_change_in_period(events: list[ScaleEvent], period: int, expected: int) -> None:
    got = replicas_change_in_period(events, period=timedelta(seconds=period), now=T0)
    assert got == expected


@pytest.mark.parametrize(
    ("current", "scale_rules", "history", "expected"),
    [
        # Default behavior: the higher of +4 pods and +100% per 15 s.
        (1, DEFAULT_UP, History(), 5),
        (3, DEFAULT_UP, History(), 7),
        (4, DEFAULT_UP, History(), 8),
        (10, DEFAULT_UP, History(), 20),
        (5, DEFAULT_UP, History(scale_up_events=[up(4, 10)]), 5),  # started at 1
        (5, DEFAULT_UP, History(scale_up_events=[up(4, 15)]), 10),  # that period is over
        # Scale-downs inside the period raise the period's starting point.
        (5, rules(pods(2, 60)), History(scale_down_events=[up(3, 30)]), 10),
        (5, rules(pods(2, 60)), History([], [up(4, 20)], [up(1, 40)]), 4),
        # Percent rounds up: e2e "ceil(3 * 1.5) = ceil(4.5) = 5".
        (2, rules(percent(50, 60)), History(), 3),
        (3, rules(percent(50, 60)), History(), 5),
        (1, rules(percent(1, 60)), History(), 2),
        # Float math as upstream: 100 * 1.1 is 110.00000000000001, whose ceiling is 111.
        (100, rules(percent(10, 60)), History(), 111),
        (10, rules(pods(1, 60), percent(50, 60), select="Min"), History(), 11),
        (10, rules(pods(1, 60), percent(50, 60), select="Max"), History(), 15),
        (10, {"policies": [pods(1, 60), percent(50, 60)]}, History(), 15),  # Max by default
        (10, rules(pods(1, 60), select="Disabled"), History(), 10),
        # No policies: upstream's int32 seed is the limit; the caller clamps it.
        (10, rules(), History(), -(2**31)),
        (10, rules(select="Min"), History(), 2**31 - 1),
        # An unknown type repeats the previous proposal (validation rejects it upstream).
        (10, rules(pods(3, 60), {"type": "Bogus", "value": 9, "periodSeconds": 60}), History(), 13),
    ],
    ids=[
        "default-from-1",
        "default-from-3",
        "default-tie-at-4",
        "default-from-10",
        "default-within-period",
        "default-period-over",
        "deleted-raise-start",
        "added-and-deleted",
        "e2e-50pct-2",
        "e2e-50pct-3",
        "percent-rounds-up",
        "percent-float-artifact",
        "select-min",
        "select-max",
        "select-absent-is-max",
        "disabled",
        "no-policies-max",
        "no-policies-min",
        "unknown-type",
    ],
)
def test_scale_up_limit(
    current: int, scale_rules: dict[str, Any], history: History, expected: int
) -> None:
    assert scale_up_limit(current, rules=scale_rules, history=history, now=T0) == expected


@pytest.mark.parametrize(
    ("current", "scale_rules", "history", "expected"),
    [
        (10, DEFAULT_DOWN, History(), 0),
        # e2e at 25%/min: 7 -> 5 ("floor(5.25)"), 5 -> 3 ("floor(5 * 0.75) = floor(3.75) = 3").
        (7, rules(percent(25, 60)), History(), 5),
        (5, rules(percent(25, 60)), History(), 3),
        (5, rules(percent(25, 60)), History(scale_down_events=[up(2, 30)]), 5),
        (5, rules(percent(25, 60)), History(scale_down_events=[up(2, 60)]), 3),
        # Docs: 10% or 4 pods per minute, the bigger change wins by default.
        (80, rules(pods(4, 60), percent(10, 60)), History(), 72),
        (72, rules(pods(4, 60), percent(10, 60)), History(), 64),
        (30, rules(pods(4, 60), percent(10, 60)), History(), 26),
        (80, rules(pods(4, 60), percent(10, 60), select="Min"), History(), 76),
        (100, rules(percent(10, 60), pods(5, 60), select="Min"), History(), 95),
        (10, rules(pods(4, 60), select="Disabled"), History(), 10),
        # Scale-ups inside the period lower the period's starting point.
        (10, rules(pods(2, 60)), History(scale_up_events=[up(3, 10)]), 5),
        (10, rules(percent(30, 60)), History(), 7),
        # Float math as upstream: 5 * (1 - 0.8) is 0.9999999999999998, truncated to 0.
        (5, rules(percent(80, 60)), History(), 0),
        (3, rules(pods(5, 60)), History(), -2),
        (10, rules(), History(), 2**31 - 1),
        (10, rules(select="Min"), History(), -(2**31)),
    ],
    ids=[
        "default-to-zero",
        "e2e-25pct-7",
        "e2e-25pct-5",
        "e2e-within-period",
        "e2e-period-over",
        "docs-80",
        "docs-72",
        "docs-below-40",
        "docs-select-min",
        "docs-five-per-minute",
        "disabled",
        "added-lower-start",
        "percent-exact",
        "percent-float-artifact",
        "pods-below-zero",
        "no-policies-max",
        "no-policies-min",
    ],
)
def test_scale_down_limit(
    current: int, scale_rules: dict[str, Any], history: History, expected: int
) -> None:
    assert scale_down_limit(current, rules=scale_rules, history=history, now=T0) == expected


@pytest.mark.parametrize(
    ("scale_rules", "expected"),
    [
        (None, 0),
        (rules(), 0),
        (rules(pods(4, 15), percent(100, 60), pods(1, 30)), 60),
    ],
    ids=["none", "no-policies", "several"],
)
def test_longest_policy_period(scale_rules: dict[str, Any] | None, expected: int) -> None:
    assert longest_policy_period(scale_rules) == timedelta(seconds=expected)


BEHAVIOR = {"scaleUp": rules(pods(4, 60), pods(1, 15)), "scaleDown": rules(percent(50, 30))}


def test_record_scale_event_without_behavior_records_nothing() -> None:
    history = History(scale_up_events=[up(1, 5)])
    before = history.copy()
    got = record_scale_event(history, behavior=None, previous_replicas=1, new_replicas=4, now=T0)
    assert got is history
    assert history == before
    assert (
        record_scale_event(None, behavior=None, previous_replicas=1, new_replicas=4, now=T0) is None
    )


def test_record_scale_event_starts_a_history_when_there_is_none() -> None:
    got = record_scale_event(None, behavior=BEHAVIOR, previous_replicas=1, new_replicas=4, now=T0)
    assert got == History(scale_up_events=[ScaleEvent(3, T0)])


@pytest.mark.parametrize(
    ("previous", "new", "up_events", "down_events"),
    [
        (2, 5, [up(1, 30), ScaleEvent(3, T0)], [up(2, 10)]),
        (5, 2, [up(1, 30)], [up(2, 10), ScaleEvent(3, T0)]),
        # Like upstream, a non-increase is a scale-down event (decide never records one).
        (5, 5, [up(1, 30)], [up(2, 10), ScaleEvent(0, T0)]),
    ],
    ids=["scale-up", "scale-down", "no-change"],
)
def test_record_scale_event_appends_to_its_direction(
    previous: int, new: int, up_events: list[ScaleEvent], down_events: list[ScaleEvent]
) -> None:
    history = History(scale_up_events=[up(1, 30)], scale_down_events=[up(2, 10)])
    got = record_scale_event(
        history, behavior=BEHAVIOR, previous_replicas=previous, new_replicas=new, now=T0
    )
    assert got is history
    assert history.scale_up_events == up_events
    assert history.scale_down_events == down_events


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        # The longest scale-up period is 60 s: only events strictly older are outdated.
        ([up(1, 60), up(2, 10)], [up(1, 60), up(2, 10), ScaleEvent(9, T0)]),
        ([up(1, 61), up(2, 10)], [ScaleEvent(9, T0), up(2, 10)]),
        # Every stale event is flagged; the last stale slot takes the new event.
        (
            [up(1, 300), up(2, 200), up(3, 10)],
            [up(1, 300, outdated=True), ScaleEvent(9, T0), up(3, 10)],
        ),
        # A slot flagged earlier stays reusable.
        ([up(2, 10), up(1, 5, outdated=True)], [up(2, 10), ScaleEvent(9, T0)]),
    ],
    ids=["at-longest-period", "older-than-period", "several-stale", "flagged-before"],
)
def test_record_scale_event_reuses_outdated_slots(
    events: list[ScaleEvent], expected: list[ScaleEvent]
) -> None:
    history = History(scale_up_events=list(events))
    record_scale_event(history, behavior=BEHAVIOR, previous_replicas=1, new_replicas=10, now=T0)
    assert history.scale_up_events == expected


def test_record_scale_event_uses_the_scale_down_periods_for_scale_down() -> None:
    # 40 s old: stale for the 30 s scale-down policy, fresh for the 60 s scale-up one.
    history = History(scale_up_events=[up(1, 40)], scale_down_events=[up(1, 40)])
    record_scale_event(history, behavior=BEHAVIOR, previous_replicas=10, new_replicas=6, now=T0)
    assert history.scale_down_events == [ScaleEvent(4, T0)]
    record_scale_event(history, behavior=BEHAVIOR, previous_replicas=6, new_replicas=9, now=T0)
    assert history.scale_up_events == [up(1, 40), ScaleEvent(3, T0)]


def test_seed_history_records_the_current_size_as_a_recommendation() -> None:
    assert seed_history(7, now=T0) == History(recommendations=[Recommendation(7, T0)])
