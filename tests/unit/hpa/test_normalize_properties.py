"""Invariants of normalization over generated behaviors, histories and virtual timelines."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from podscale.hpa.normalize import (
    limit_by_policies,
    limit_legacy,
    stabilize_recommendation,
    stabilize_with_behavior,
)
from podscale.hpa.policies import record_scale_event
from podscale.hpa.types import Config, History, Recommendation, ScaleEvent

T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
CONFIG = Config()


def policies(max_period: int = 120) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(
            lambda value, period: {"type": "Pods", "value": value, "periodSeconds": period},
            st.integers(1, 10),
            st.integers(1, max_period),
        ),
        st.builds(
            lambda value, period: {"type": "Percent", "value": value, "periodSeconds": period},
            st.integers(1, 200),
            st.integers(1, max_period),
        ),
    )


def scaling_rules(
    selects: tuple[str, ...] = ("Max", "Min", "Disabled"),
) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "stabilizationWindowSeconds": st.one_of(st.none(), st.integers(0, 600)),
            "selectPolicy": st.sampled_from(selects),
            "policies": st.lists(policies(), min_size=1, max_size=3),
        }
    )


def behaviors(
    selects: tuple[str, ...] = ("Max", "Min", "Disabled"),
) -> st.SearchStrategy[dict[str, Any]]:
    # The scale-up window is always defaulted; only the scale-down one may be unset.
    scale_up = scaling_rules(selects).map(
        lambda rules: {
            **rules,
            "stabilizationWindowSeconds": rules["stabilizationWindowSeconds"] or 0,
        }
    )
    return st.fixed_dictionaries({"scaleUp": scale_up, "scaleDown": scaling_rules(selects)})


def ages() -> st.SearchStrategy[timedelta]:
    # Whole and half seconds, so exact cutoffs are hit often.
    return st.integers(0, 1800).map(lambda halves: timedelta(seconds=halves / 2))


def histories() -> st.SearchStrategy[History]:
    recommendations = st.lists(
        st.builds(lambda n, age: Recommendation(n, T0 - age), st.integers(0, 60), ages()),
        max_size=8,
    )
    events = st.lists(
        st.builds(
            lambda n, age, old: ScaleEvent(n, T0 - age, old),
            st.integers(1, 10),
            ages(),
            st.booleans(),
        ),
        max_size=5,
    )
    return st.builds(History, recommendations, events, events)


@dataclass(frozen=True)
class Bounds:
    min_replicas: int
    max_replicas: int
    current_replicas: int


@st.composite
def bounds(draw: st.DrawFn) -> Bounds:
    low = draw(st.integers(0, 10))
    high = draw(st.integers(max(low, 1), low + 40))
    return Bounds(low, high, draw(st.integers(low, high)))


def normalize_with_behavior(
    history: History, desired: int, b: Bounds, behavior: dict[str, Any], now: datetime
) -> int:
    stabilized, _ = stabilize_with_behavior(
        history,
        desired,
        current_replicas=b.current_replicas,
        behavior=behavior,
        now=now,
        config=CONFIG,
    )
    replicas, _ = limit_by_policies(
        stabilized,
        current_replicas=b.current_replicas,
        min_replicas=b.min_replicas,
        max_replicas=b.max_replicas,
        behavior=behavior,
        history=history,
        now=now,
    )
    return replicas


@given(history=histories(), desired=st.integers(0, 100), b=bounds(), behavior=behaviors())
def test_behavior_path_stays_within_min_and_max(
    history: History, desired: int, b: Bounds, behavior: dict[str, Any]
) -> None:
    replicas = normalize_with_behavior(history, desired, b, behavior, T0)
    assert b.min_replicas <= replicas <= b.max_replicas


@given(history=histories(), desired=st.integers(0, 100), b=bounds())
def test_legacy_path_stays_within_min_and_max(history: History, desired: int, b: Bounds) -> None:
    stabilized = stabilize_recommendation(history, desired, now=T0, config=CONFIG)
    replicas, _ = limit_legacy(
        stabilized,
        current_replicas=b.current_replicas,
        min_replicas=b.min_replicas,
        max_replicas=b.max_replicas,
        config=CONFIG,
    )
    assert b.min_replicas <= replicas <= b.max_replicas


@given(history=histories(), desired=st.integers(0, 100), b=bounds(), behavior=behaviors())
def test_scale_down_never_undercuts_the_down_window(
    history: History, desired: int, b: Bounds, behavior: dict[str, Any]
) -> None:
    window = behavior["scaleDown"]["stabilizationWindowSeconds"]
    down_window = CONFIG.downscale_stabilization if window is None else timedelta(seconds=window)
    recent = [r.replicas for r in history.recommendations if r.timestamp > T0 - down_window]
    floor = min(b.current_replicas, max([desired, *recent]))
    assert normalize_with_behavior(history, desired, b, behavior, T0) >= floor


@given(history=histories(), desired=st.integers(0, 100), b=bounds(), behavior=behaviors())
def test_stabilization_lands_between_current_and_desired(
    history: History, desired: int, b: Bounds, behavior: dict[str, Any]
) -> None:
    before = len(history.recommendations)
    stabilized, _ = stabilize_with_behavior(
        history,
        desired,
        current_replicas=b.current_replicas,
        behavior=behavior,
        now=T0,
        config=CONFIG,
    )
    low, high = sorted((b.current_replicas, desired))
    assert low <= stabilized <= high
    assert Recommendation(desired, T0) in history.recommendations
    assert len(history.recommendations) in (before, before + 1)


@given(history=histories(), desired=st.integers(0, 100))
def test_legacy_stabilization_never_goes_below_desired(history: History, desired: int) -> None:
    assert stabilize_recommendation(history, desired, now=T0, config=CONFIG) >= desired


def allowed_by(policy: dict[str, Any], base: int, *, going_up: bool) -> int:
    """The furthest count one policy allows from ``base``, upstream's float rounding included."""
    value = policy["value"]
    if policy["type"] == "Pods":
        return base + value if going_up else base - value
    if going_up:
        return math.ceil(base * (1 + value / 100))
    return int(base * (1 - value / 100))


def replicas_at(timeline: list[tuple[datetime, int]], start: int, when: datetime) -> int:
    """The size right after every rescale that happened at or before ``when``."""
    size = start
    for moment, replicas in timeline:
        if moment <= when:
            size = replicas
    return size


@given(
    behavior=behaviors(),
    b=bounds(),
    steps=st.lists(
        st.tuples(
            st.sampled_from([1, 5, 14, 15, 16, 30, 45, 59, 60, 61, 90, 120]), st.integers(0, 60)
        ),
        min_size=1,
        max_size=25,
    ),
)
def test_timeline_never_outruns_a_policy(
    behavior: dict[str, Any], b: Bounds, steps: list[tuple[int, int]]
) -> None:
    """Rates hold over every period, checked against the replica timeline, not the events."""
    history: History | None = History()
    current = b.current_replicas
    now = T0
    timeline: list[tuple[datetime, int]] = []
    for gap, desired in steps:
        now += timedelta(seconds=gap)
        assert history is not None
        state = Bounds(b.min_replicas, b.max_replicas, current)
        new = normalize_with_behavior(history, desired, state, behavior, now)
        if new == current:
            continue
        going_up = new > current
        rules = behavior["scaleUp" if going_up else "scaleDown"]
        assert rules["selectPolicy"] != "Disabled"
        proposals = [
            allowed_by(
                policy,
                replicas_at(
                    timeline, b.current_replicas, now - timedelta(seconds=policy["periodSeconds"])
                ),
                going_up=going_up,
            )
            for policy in rules["policies"]
        ]
        smallest_change = rules["selectPolicy"] == "Min"
        if going_up:
            assert new <= (min(proposals) if smallest_change else max(proposals))
        else:
            assert new >= (max(proposals) if smallest_change else min(proposals))
        history = record_scale_event(
            history, behavior=behavior, previous_replicas=current, new_replicas=new, now=now
        )
        timeline.append((now, new))
        current = new


@given(
    behavior=behaviors(("Max", "Min")),
    history=histories(),
    previous=st.integers(0, 50),
    new=st.integers(0, 50),
)
def test_record_scale_event_adds_at_most_one_slot(
    behavior: dict[str, Any], history: History, previous: int, new: int
) -> None:
    sizes = (len(history.scale_up_events), len(history.scale_down_events))
    got = record_scale_event(
        history, behavior=behavior, previous_replicas=previous, new_replicas=new, now=T0
    )
    assert got is history
    grown = (len(history.scale_up_events) - sizes[0], len(history.scale_down_events) - sizes[1])
    assert grown in ((0, 0), (1, 0), (0, 1))
    events = history.scale_up_events if new > previous else history.scale_down_events
    assert ScaleEvent(abs(new - previous), T0) in events
