"""Stability checkers: Rollback outranks Pause, the cool-down keeps an action in force,
Pause holds a gray change and Rollback returns its gray pods to traffic."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.kapacity.gray import (
    GrayInput,
    GrayStatus,
    GrayStrategy,
    ReplicaSplit,
    decide_gray,
    start_gray,
)
from podscale.controllers.kapacity.stability import (
    Action,
    CheckerReading,
    Verdict,
    metric_anomalous,
    stabilize,
    verdict,
)

T0 = dt.datetime(2026, 5, 4, 12, tzinfo=dt.UTC)
CUTOFF = GrayStrategy(
    "Cutoff", change_interval_seconds=60, change_percent=25, observation_seconds=120
)
DOWN = GrayInput(1, 20, previous_replicas=10, current_replicas=2, scale_down=CUTOFF)


def at(seconds: int) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def reading(name: str, action: str, anomalous: bool, cool_down: int = 0) -> CheckerReading:
    return CheckerReading(name, action, cool_down, anomalous)  # type: ignore[arg-type]


VERDICT_CASES = [
    ("no-checkers", [], {}, None, None),
    ("quiet-checker", [reading("a", "Pause", False)], {}, None, None),
    ("pause-on-anomaly", [reading("a", "Pause", True, 30)], {}, "Pause", at(30)),
    ("rollback-on-anomaly", [reading("a", "Rollback", True)], {}, "Rollback", at(0)),
    (
        "rollback-outranks-pause",
        [reading("a", "Pause", True, 300), reading("b", "Rollback", True, 10)],
        {},
        "Rollback",
        at(10),
    ),
    (
        "cool-down-keeps-action",
        [reading("a", "Pause", False, 60)],
        {"a": at(-30)},
        "Pause",
        at(30),
    ),
    (
        "cool-down-over-resumes",
        [reading("a", "Rollback", False, 60)],
        {"a": at(-60)},
        None,
        None,
    ),
    (
        "longest-cool-down-of-the-action",
        [reading("a", "Pause", True, 10), reading("b", "Pause", False, 100)],
        {"b": at(-20)},
        "Pause",
        at(80),
    ),
]


@pytest.mark.parametrize(
    ("readings", "last", "action", "until"),
    [c[1:] for c in VERDICT_CASES],
    ids=[c[0] for c in VERDICT_CASES],
)
def test_verdict(
    readings: list[CheckerReading],
    last: dict[str, dt.datetime],
    action: str | None,
    until: dt.datetime | None,
) -> None:
    found = verdict(readings, last, T0)
    assert (found.action, found.until) == (action, until)


def test_verdict_remembers_anomalies_of_listed_checkers_only() -> None:
    found = verdict([reading("a", "Pause", True)], {"gone": at(-5)}, T0)
    assert found.last_anomaly == {"a": T0}


@pytest.mark.parametrize(
    ("observed", "threshold", "anomalous"),
    [(0.9, 0.8, True), (0.8, 0.8, False), (0.1, 0.8, False)],
    ids=["above-threshold", "at-threshold-is-fine", "below-threshold"],
)
def test_metric_anomalous(observed: float, threshold: float, anomalous: bool) -> None:
    assert metric_anomalous(observed, threshold) is anomalous


def gray_at(percent: int, since: int) -> GrayStatus:
    return GrayStatus(percent, at(since))


ROLLBACK = Verdict("Rollback", at(300), {})
PAUSE = Verdict("Pause", at(300), {})


def test_rollback_returns_cut_off_pods_to_traffic_without_new_pods() -> None:
    gray = gray_at(50, -60)  # 6 online, 4 cut off; the 75% step is due now
    decision = decide_gray(DOWN, gray, T0)
    rolled = stabilize(DOWN, gray, decision, ROLLBACK, T0)
    assert rolled.split == ReplicaSplit(10)  # online + cutoff before == 10 pods, none started
    assert rolled.gray == GrayStatus(0, T0)
    assert rolled.next_step_at == at(300)
    assert rolled.progressing


def test_after_rollback_and_cool_down_the_change_restarts_from_its_first_step() -> None:
    restarted = decide_gray(DOWN, GrayStatus(0, T0), at(300))
    assert restarted.split == ReplicaSplit(8, cutoff=2)


def test_pause_holds_the_step_taken_and_restarts_its_wait() -> None:
    gray = gray_at(50, -60)
    decision = decide_gray(DOWN, gray, T0)
    assert decision.split == ReplicaSplit(4, cutoff=6)  # what would happen unpaused
    held = stabilize(DOWN, gray, decision, PAUSE, T0)
    assert held.split == ReplicaSplit(6, cutoff=4)
    assert held.gray == GrayStatus(50, T0)
    assert held.next_step_at == at(300)


def test_pause_before_the_first_step_keeps_the_previous_count() -> None:
    gray = start_gray(DOWN, T0)
    held = stabilize(DOWN, gray, decide_gray(DOWN, gray, T0), PAUSE, T0)
    assert held.split == ReplicaSplit(10)
    assert held.gray == GrayStatus(0, T0)


def test_pause_during_observation_keeps_the_pods_cut_off() -> None:
    gray = gray_at(100, -119)  # one second of observation left
    held = stabilize(DOWN, gray, decide_gray(DOWN, gray, T0), PAUSE, T0)
    assert held.split == ReplicaSplit(2, cutoff=8)
    assert held.gray == GrayStatus(100, T0)


NO_EFFECT_CASES = [
    ("no-action", DOWN, gray_at(50, -10), Verdict(None, None, {})),
    ("change-ended", DOWN, gray_at(100, -121), ROLLBACK),
    ("no-gray-change", GrayInput(1, 20, 10, 2), None, ROLLBACK),
    ("preview-mode", GrayInput(1, 20, 10, 2, scale_down=CUTOFF, preview=True), None, PAUSE),
]


@pytest.mark.parametrize(
    ("spec", "gray", "found"),
    [c[1:] for c in NO_EFFECT_CASES],
    ids=[c[0] for c in NO_EFFECT_CASES],
)
def test_stabilize_leaves_the_decision_alone(
    spec: GrayInput, gray: GrayStatus | None, found: Verdict
) -> None:
    decision = decide_gray(spec, gray, T0)
    assert stabilize(spec, gray, decision, found, T0) == decision


@given(
    previous=st.integers(0, 30),
    current=st.integers(0, 30),
    percent=st.integers(0, 100),
    since=st.integers(-600, 0),
    action=st.sampled_from(["Pause", "Rollback"]),
)
def test_stabilized_counts_stay_between_previous_and_target(
    previous: int, current: int, percent: int, since: int, action: Action
) -> None:
    spec = GrayInput(0, 30, previous, current, scale_up=CUTOFF, scale_down=CUTOFF)
    gray = gray_at(percent, since)
    decision = stabilize(
        spec,
        gray,
        decide_gray(spec, gray, T0),
        Verdict(action, at(60), {}),
        T0,
    )
    online = decision.split.online
    assert min(previous, current) <= online <= max(previous, current)
    if action == "Rollback" and decision.gray != gray:
        assert decision.split == ReplicaSplit(previous)
