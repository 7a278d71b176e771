"""Normalization: stabilization windows, min/max, rate limits, and the reasons reported."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.hpa.normalize import (
    LIMIT_MESSAGES,
    STABILIZATION_MESSAGES,
    limit_by_policies,
    limit_legacy,
    stabilize_recommendation,
    stabilize_with_behavior,
)
from podscale.hpa.policies import record_scale_event, seed_history
from podscale.hpa.types import Config, History, Recommendation, ScaleEvent

T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
CONFIG = Config()


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def rec(replicas: int, seconds_ago: float) -> Recommendation:
    return Recommendation(replicas, at(-seconds_ago))


def pods(value: int, period: int) -> dict[str, Any]:
    return {"type": "Pods", "value": value, "periodSeconds": period}


def percent(value: int, period: int) -> dict[str, Any]:
    return {"type": "Percent", "value": value, "periodSeconds": period}


def rules(*policies: dict[str, Any], window: int | None = 0, select: str = "Max") -> dict[str, Any]:
    return {
        "stabilizationWindowSeconds": window,
        "selectPolicy": select,
        "policies": list(policies),
    }


def behavior(
    scale_up: dict[str, Any] | None = None, scale_down: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A defaulted behavior; the scale-down window is left unset as upstream defaulting does."""
    return {
        "scaleUp": scale_up or rules(percent(100, 15), pods(4, 15)),
        "scaleDown": scale_down or rules(percent(100, 15), window=None),
    }


DEFAULT_BEHAVIOR = behavior()


@pytest.mark.parametrize(
    ("messages", "reason", "message"),
    [
        (
            LIMIT_MESSAGES,
            "ScaleUpLimit",
            "the desired replica count is increasing faster than the maximum scale rate",
        ),
        (
            LIMIT_MESSAGES,
            "TooManyReplicas",
            "the desired replica count is more than the maximum replica count",
        ),
        (
            LIMIT_MESSAGES,
            "ScaleDownLimit",
            "the desired replica count is decreasing faster than the maximum scale rate",
        ),
        (
            LIMIT_MESSAGES,
            "TooFewReplicas",
            "the desired replica count is less than the minimum replica count",
        ),
        (LIMIT_MESSAGES, "DesiredWithinRange", "the desired count is within the acceptable range"),
        (
            STABILIZATION_MESSAGES,
            "ScaleUpStabilized",
            "recent recommendations were lower than current one, "
            "applying the lowest recent recommendation",
        ),
        (
            STABILIZATION_MESSAGES,
            "ScaleDownStabilized",
            "recent recommendations were higher than current one, "
            "applying the highest recent recommendation",
        ),
        (STABILIZATION_MESSAGES, "ReadyForNewScale", "recommended size matches current size"),
    ],
    ids=[
        "ScaleUpLimit",
        "TooManyReplicas",
        "ScaleDownLimit",
        "TooFewReplicas",
        "DesiredWithinRange",
        "ScaleUpStabilized",
        "ScaleDownStabilized",
        "ReadyForNewScale",
    ],
)
def test_messages_match_upstream(messages: Any, reason: str, message: str) -> None:
    assert messages[reason] == message


def test_message_tables_are_complete_and_read_only() -> None:
    assert len(LIMIT_MESSAGES) == 5
    assert len(STABILIZATION_MESSAGES) == 3
    with pytest.raises(TypeError):
        LIMIT_MESSAGES["ScaleUpLimit"] = "x"  # type: ignore[index]


@pytest.mark.parametrize(
    ("recommendations", "desired", "expected", "recorded"),
    [
        ([], 3, 3, [Recommendation(3, T0)]),
        ([rec(8, 60)], 3, 8, [rec(8, 60), Recommendation(3, T0)]),
        ([rec(2, 60)], 5, 5, [rec(2, 60), Recommendation(5, T0)]),
        # Exactly a window old is not Before the cutoff: it still counts.
        ([rec(8, 300)], 3, 8, [rec(8, 300), Recommendation(3, T0)]),
        ([rec(8, 301)], 3, 3, [Recommendation(3, T0)]),
        # The last expired slot is reused; other expired ones stay, ignored.
        (
            [rec(9, 900), rec(6, 100), rec(9, 400)],
            3,
            6,
            [rec(9, 900), rec(6, 100), Recommendation(3, T0)],
        ),
    ],
    ids=["empty", "higher-in-window", "lower-in-window", "at-cutoff", "expired", "slot-reuse"],
)
def test_stabilize_recommendation(
    recommendations: list[Recommendation],
    desired: int,
    expected: int,
    recorded: list[Recommendation],
) -> None:
    history = History(recommendations=list(recommendations))
    assert stabilize_recommendation(history, desired, now=T0, config=CONFIG) == expected
    assert history.recommendations == recorded


def test_stabilize_recommendation_uses_the_configured_window() -> None:
    history = History(recommendations=[rec(8, 90)])
    config = Config(downscale_stabilization=timedelta(minutes=1))
    assert stabilize_recommendation(history, 3, now=T0, config=config) == 3


@pytest.mark.parametrize(
    ("current", "desired", "min_replicas", "max_replicas", "expected"),
    [
        # Scale-up limit max(2 * current, 4).
        (1, 10, 1, 20, (4, "ScaleUpLimit")),
        (3, 10, 1, 20, (6, "ScaleUpLimit")),
        (10, 50, 1, 100, (20, "ScaleUpLimit")),
        (3, 10, 1, 5, (5, "TooManyReplicas")),
        (3, 10, 1, 6, (6, "TooManyReplicas")),  # tie: max replicas is named
        (3, 6, 1, 20, (6, "DesiredWithinRange")),
        (5, 1, 2, 20, (2, "TooFewReplicas")),
        (5, 2, 2, 20, (2, "DesiredWithinRange")),
        (5, 3, 1, 20, (3, "DesiredWithinRange")),
        # No rate limit going down, and none when the size is unchanged.
        (20, 1, 1, 20, (1, "DesiredWithinRange")),
        (0, 3, 0, 10, (3, "DesiredWithinRange")),
    ],
    ids=[
        "up-minimum-4",
        "up-double",
        "up-double-large",
        "max-below-limit",
        "max-equals-limit",
        "up-within",
        "below-min",
        "at-min",
        "down-within",
        "down-unlimited",
        "from-zero",
    ],
)
def test_limit_legacy(
    current: int, desired: int, min_replicas: int, max_replicas: int, expected: tuple[int, str]
) -> None:
    got = limit_legacy(
        desired,
        current_replicas=current,
        min_replicas=min_replicas,
        max_replicas=max_replicas,
        config=CONFIG,
    )
    assert got == expected


def test_limit_legacy_takes_factor_and_minimum_from_config() -> None:
    config = Config(scale_up_limit_factor=1.5, scale_up_limit_minimum=2.0)
    assert limit_legacy(
        100, current_replicas=3, min_replicas=1, max_replicas=50, config=config
    ) == (4, "ScaleUpLimit")  # int(4.5)


@pytest.mark.parametrize(
    ("recommendations", "current", "desired", "scale_behavior", "expected"),
    [
        ([], 5, 5, DEFAULT_BEHAVIOR, (5, "ScaleUpStabilized")),
        ([], 5, 8, DEFAULT_BEHAVIOR, (8, "ScaleUpStabilized")),
        # Default scale-down window (300 s, from config): highest recent recommendation.
        ([rec(7, 200)], 8, 3, DEFAULT_BEHAVIOR, (7, "ScaleDownStabilized")),
        ([rec(9, 200)], 8, 3, DEFAULT_BEHAVIOR, (8, "ScaleDownStabilized")),
        ([rec(7, 300)], 8, 3, DEFAULT_BEHAVIOR, (3, "ScaleDownStabilized")),  # strict After
        ([rec(7, 299)], 8, 3, DEFAULT_BEHAVIOR, (7, "ScaleDownStabilized")),
        ([rec(7, 200)], 8, 3, behavior(scale_down=rules(window=60)), (3, "ScaleDownStabilized")),
        # Scale-up window: lowest recent recommendation.
        ([rec(6, 100)], 5, 9, behavior(rules(window=180)), (6, "ScaleUpStabilized")),
        ([rec(4, 100)], 5, 9, behavior(rules(window=180)), (5, "ScaleUpStabilized")),
        ([rec(4, 180)], 5, 9, behavior(rules(window=180)), (9, "ScaleUpStabilized")),
        # Both windows: stay inside the envelope, move only when it forces a move.
        (
            [rec(2, 100), rec(9, 100)],
            5,
            6,
            behavior(rules(window=300), rules(window=300)),
            (5, "ScaleUpStabilized"),
        ),
        (
            [rec(6, 100), rec(9, 100)],
            5,
            4,
            behavior(rules(window=300), rules(window=300)),
            (5, "ScaleDownStabilized"),
        ),
        (
            [rec(7, 100), rec(9, 100)],
            5,
            8,
            behavior(rules(window=300), rules(window=300)),
            (7, "ScaleUpStabilized"),
        ),
        # The reason follows desired >= current, even when nothing was held back.
        ([rec(3, 100)], 5, 5, DEFAULT_BEHAVIOR, (5, "ScaleUpStabilized")),
        ([], 5, 4, behavior(scale_down=rules(window=0)), (4, "ScaleDownStabilized")),
    ],
    ids=[
        "steady",
        "up-no-window",
        "down-held-by-recent",
        "down-held-at-current",
        "down-at-cutoff",
        "down-inside-cutoff",
        "down-short-window",
        "up-held-by-recent",
        "up-held-at-current",
        "up-at-cutoff",
        "envelope-no-up",
        "envelope-no-down",
        "envelope-partial-up",
        "unchanged-reason",
        "down-no-window",
    ],
)
def test_stabilize_with_behavior(
    recommendations: list[Recommendation],
    current: int,
    desired: int,
    scale_behavior: dict[str, Any],
    expected: tuple[int, str],
) -> None:
    history = History(recommendations=list(recommendations))
    got = stabilize_with_behavior(
        history, desired, current_replicas=current, behavior=scale_behavior, now=T0, config=CONFIG
    )
    assert got == expected


@pytest.mark.parametrize(
    ("recommendations", "recorded"),
    [
        ([], [Recommendation(4, T0)]),
        ([rec(1, 100)], [rec(1, 100), Recommendation(4, T0)]),
        # Older than the down window (300 s) but inside the up window (600 s): kept.
        ([rec(1, 400)], [rec(1, 400), Recommendation(4, T0)]),
        ([rec(1, 600)], [rec(1, 600), Recommendation(4, T0)]),  # not strictly older
        ([rec(1, 700), rec(2, 601), rec(3, 5)], [rec(1, 700), Recommendation(4, T0), rec(3, 5)]),
    ],
    ids=["empty", "fresh", "inside-one-window", "at-cutoff", "last-expired-slot"],
)
def test_stabilize_with_behavior_records_in_expired_slot(
    recommendations: list[Recommendation], recorded: list[Recommendation]
) -> None:
    history = History(recommendations=list(recommendations))
    scale_behavior = behavior(rules(window=600), rules(window=300))
    stabilize_with_behavior(
        history, 4, current_replicas=4, behavior=scale_behavior, now=T0, config=CONFIG
    )
    assert history.recommendations == recorded


@pytest.mark.parametrize(
    ("window", "age", "expected"),
    [
        (timedelta(minutes=1), 90.0, 3),
        (timedelta(minutes=5), 90.0, 7),
        # Upstream keeps whole seconds of the flag: 120.9 s acts as 120 s.
        (timedelta(seconds=120.9), 120.5, 3),
        (timedelta(seconds=120.9), 119.5, 7),
    ],
    ids=["one-minute", "five-minutes", "fraction-dropped", "inside-whole-seconds"],
)
def test_stabilize_with_behavior_defaults_the_down_window_from_config(
    window: timedelta, age: float, expected: int
) -> None:
    scale_behavior = behavior(scale_down={"selectPolicy": "Max", "policies": [percent(100, 15)]})
    before = copy.deepcopy(scale_behavior)
    history = History(recommendations=[rec(7, age)])
    got, _ = stabilize_with_behavior(
        history,
        3,
        current_replicas=8,
        behavior=scale_behavior,
        now=T0,
        config=Config(downscale_stabilization=window),
    )
    assert got == expected
    assert scale_behavior == before  # upstream writes the default into the spec; we do not


THREE_OR_HALF_MIN = rules(pods(3, 60), percent(50, 60), select="Min")
THREE_OR_HALF_MAX = rules(pods(3, 60), percent(50, 60), select="Max")
UP_BY_TWO = behavior(rules(pods(2, 60)), rules(pods(3, 60), window=0))


@pytest.mark.parametrize(
    ("current", "desired", "min_replicas", "max_replicas", "scale_behavior", "expected"),
    [
        (5, 10, 1, 20, UP_BY_TWO, (7, "ScaleUpLimit")),
        (5, 10, 1, 6, UP_BY_TWO, (6, "TooManyReplicas")),
        (5, 10, 1, 7, UP_BY_TWO, (7, "TooManyReplicas")),  # tie: max replicas is named
        (5, 7, 1, 20, UP_BY_TWO, (7, "DesiredWithinRange")),
        (10, 2, 1, 20, UP_BY_TWO, (7, "ScaleDownLimit")),
        (10, 2, 8, 20, UP_BY_TWO, (8, "TooFewReplicas")),
        (10, 2, 7, 20, UP_BY_TWO, (7, "TooFewReplicas")),  # tie: min replicas is named
        (10, 7, 1, 20, UP_BY_TWO, (7, "DesiredWithinRange")),
        # An unchanged size is left alone, even outside [min, max].
        (25, 25, 1, 20, UP_BY_TWO, (25, "DesiredWithinRange")),
        # Disabled pins the limit at current: no move, reported as the rate limit.
        (5, 10, 1, 20, behavior(rules(select="Disabled")), (5, "ScaleUpLimit")),
        (5, 1, 1, 20, behavior(scale_down=rules(select="Disabled")), (5, "ScaleDownLimit")),
        (5, 1, 5, 20, behavior(scale_down=rules(select="Disabled")), (5, "TooFewReplicas")),
        # Min picks the smallest change in both directions, Max the biggest.
        (10, 30, 1, 50, behavior(THREE_OR_HALF_MIN), (13, "ScaleUpLimit")),
        (10, 1, 1, 50, behavior(scale_down=THREE_OR_HALF_MIN), (7, "ScaleDownLimit")),
        (10, 30, 1, 50, behavior(THREE_OR_HALF_MAX), (15, "ScaleUpLimit")),
        (10, 1, 1, 50, behavior(scale_down=THREE_OR_HALF_MAX), (5, "ScaleDownLimit")),
        # Default behavior: the higher of 4 pods and 100% per 15 s; 100% down.
        (1, 30, 1, 50, DEFAULT_BEHAVIOR, (5, "ScaleUpLimit")),
        (10, 30, 1, 50, DEFAULT_BEHAVIOR, (20, "ScaleUpLimit")),
        (10, 0, 1, 50, DEFAULT_BEHAVIOR, (1, "TooFewReplicas")),
    ],
    ids=[
        "up-rate",
        "up-max",
        "up-max-tie",
        "up-within",
        "down-rate",
        "down-min",
        "down-min-tie",
        "down-within",
        "unchanged-out-of-range",
        "up-disabled",
        "down-disabled",
        "down-disabled-at-min",
        "up-select-min",
        "down-select-min",
        "up-select-max",
        "down-select-max",
        "default-up-pods",
        "default-up-percent",
        "default-down-to-min",
    ],
)
def test_limit_by_policies(
    current: int,
    desired: int,
    min_replicas: int,
    max_replicas: int,
    scale_behavior: dict[str, Any],
    expected: tuple[int, str],
) -> None:
    got = limit_by_policies(
        desired,
        current_replicas=current,
        min_replicas=min_replicas,
        max_replicas=max_replicas,
        behavior=scale_behavior,
        history=History(),
        now=T0,
    )
    assert got == expected


@pytest.mark.parametrize(
    ("desired", "events", "scale_behavior", "expected"),
    [
        # 6 pods were added 10 s ago: the period started at 4, so a 1-pod limit is 5, below
        # current; upstream holds at current instead of scaling down.
        (20, History(scale_up_events=[ScaleEvent(6, at(-10))]), behavior(rules(pods(1, 60))),
         (10, "ScaleUpLimit")),
        # 5 pods were removed 10 s ago: the period started at 15, so a 2-pod limit is 13,
        # above current; upstream holds at current instead of scaling up.
        (1, History(scale_down_events=[ScaleEvent(5, at(-10))]),
         behavior(scale_down=rules(pods(2, 60))), (10, "ScaleDownLimit")),
    ],
    ids=["up-limit-below-current", "down-limit-above-current"],
)  # fmt: skip
def test_limit_by_policies_never_reverses_direction(
    desired: int, events: History, scale_behavior: dict[str, Any], expected: tuple[int, str]
) -> None:
    got = limit_by_policies(
        desired,
        current_replicas=10,
        min_replicas=1,
        max_replicas=50,
        behavior=scale_behavior,
        history=events,
        now=T0,
    )
    assert got == expected


def run_timeline(
    scale_behavior: dict[str, Any],
    *,
    start: int,
    steps: list[tuple[float, int]],
    min_replicas: int = 1,
    max_replicas: int = 100,
) -> list[tuple[int, str]]:
    """Drive both behavior steps as ``decide`` does; ``steps`` are (time, desired) pairs."""
    history = seed_history(start, now=at(-1000))
    current = start
    results = []
    for seconds, desired in steps:
        now = at(seconds)
        stabilized, _ = stabilize_with_behavior(
            history,
            desired,
            current_replicas=current,
            behavior=scale_behavior,
            now=now,
            config=CONFIG,
        )
        new, reason = limit_by_policies(
            stabilized,
            current_replicas=current,
            min_replicas=min_replicas,
            max_replicas=max_replicas,
            behavior=scale_behavior,
            history=history,
            now=now,
        )
        if new != current:
            record_scale_event(
                history,
                behavior=scale_behavior,
                previous_replicas=current,
                new_replicas=new,
                now=now,
            )
            current = new
        results.append((current, reason))
    return results


def test_docs_scale_down_walk_from_80() -> None:
    # Docs: 4 pods or 10% per minute, the bigger change wins; 80 -> 72 -> 64 ... -> 10.
    down = rules(pods(4, 60), percent(10, 60), window=0)
    steps = [(60.0 * minute, 10) for minute in range(15)]
    sizes = [size for size, _ in run_timeline(behavior(scale_down=down), start=80, steps=steps)]
    assert sizes == [72, 64, 57, 51, 45, 40, 36, 32, 28, 24, 20, 16, 12, 10, 10]


def test_docs_scale_down_waits_for_the_period() -> None:
    down = rules(pods(4, 60), percent(10, 60), window=0)
    steps = [(0.0, 10), (30.0, 10), (59.0, 10), (60.0, 10)]
    got = run_timeline(behavior(scale_down=down), start=80, steps=steps)
    assert got == [
        (72, "ScaleDownLimit"),
        (72, "ScaleDownLimit"),
        (72, "ScaleDownLimit"),
        (64, "ScaleDownLimit"),
    ]


@pytest.mark.parametrize(
    ("scale_behavior", "start", "steps", "expected"),
    [
        # e2e "scale limited by percentage": up at 50%/min 2 -> 3 -> 5.
        (
            behavior(rules(percent(50, 60))),
            2,
            [(0.0, 8), (30.0, 8), (60.0, 8)],
            [3, 3, 5],
        ),
        # ... and down at 25%/min 7 -> 5 -> 3.
        (
            behavior(scale_down=rules(percent(25, 60), window=0)),
            7,
            [(0.0, 1), (30.0, 1), (60.0, 1)],
            [5, 5, 3],
        ),
        # e2e "scale limited by number of Pods rate": 1 pod per 60 s.
        (behavior(rules(pods(1, 60))), 1, [(0.0, 3), (59.0, 3), (60.0, 3)], [2, 2, 3]),
        # Default behavior: the higher of 4 pods and 100% every 15 s.
        (
            DEFAULT_BEHAVIOR,
            1,
            [(0.0, 40), (10.0, 40), (15.0, 40), (30.0, 40), (45.0, 40)],
            [5, 5, 10, 20, 40],
        ),
        # e2e "with autoscaling disabled": pinned both ways.
        (behavior(rules(select="Disabled")), 3, [(0.0, 9), (60.0, 9)], [3, 3]),
        (
            behavior(scale_down=rules(select="Disabled", window=0)),
            3,
            [(0.0, 1), (600.0, 1)],
            [3, 3],
        ),
    ],
    ids=["e2e-up-50pct", "e2e-down-25pct", "e2e-pods-rate", "default-up", "off-up", "off-down"],
)
def test_timelines(
    scale_behavior: dict[str, Any], start: int, steps: list[tuple[float, int]], expected: list[int]
) -> None:
    sizes = [size for size, _ in run_timeline(scale_behavior, start=start, steps=steps)]
    assert sizes == expected


def test_default_scale_down_waits_for_the_stabilization_window() -> None:
    # The seeded recommendation (10, at -1000 s) is stale; a fresh 10 at 0 s holds the size
    # while it is strictly newer than 300 s ago, so it lets go at exactly 300 s.
    steps = [(0.0, 10), (100.0, 2), (299.0, 2), (300.0, 2)]
    got = run_timeline(DEFAULT_BEHAVIOR, start=10, steps=steps)
    assert [size for size, _ in got] == [10, 10, 10, 2]
