"""The demo summary: its numbers on a hand-built run, the edge cases, and invariants."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.demo.summary import DemoSummary, compute_summary, summarize
from podscale.demo.timeline import Sample, Timeline, TimelineEvent, find_rescales

UP = "cpu resource utilization (percentage of request) above target"
DOWN = "All metrics below target"


def at(seconds: float) -> timedelta:
    return timedelta(seconds=seconds)


def sample(seconds: float, load: float, utilization: float | None, current: int) -> Sample:
    return Sample(at(seconds), load, utilization, 50, current, current, current)


def rescale(seconds: float, size: int, reason: str = UP) -> TimelineEvent:
    return TimelineEvent(at(seconds), "SuccessfulRescale", f"New size: {size}; reason: {reason}")


def hand_built() -> Timeline:
    """A load step at 1m, two scale-ups (1->4->8), a metrics gap, one scale-down (8->2)."""
    return Timeline(
        "php-apache",
        samples=[
            sample(0, 1, 10, 1),
            sample(60, 20, 200, 1),
            sample(90, 20, 100, 4),
            sample(120, 40, 80, 4),
            sample(150, 40, 52, 8),
            sample(210, 1, None, 8),
            sample(270, 1, 5, 2),
            sample(300, 1, 5, 2),
        ],
        events=[
            rescale(75, 4),
            rescale(135, 8),
            TimelineEvent(at(200), "FailedGetResourceMetric", "no metrics", "Warning"),
            rescale(240, 2, DOWN),
        ],
    )


def test_compute_summary_on_a_hand_built_run() -> None:
    assert compute_summary(hand_built()) == DemoSummary(
        duration=at(300),
        peak_load=40.0,
        peak_load_at=at(120),
        max_replicas=8,
        max_replicas_at=at(150),
        final_replicas=2,
        scale_ups=2,
        scale_downs=1,
        load_step_at=at(60),
        first_scale_up_at=at(75),
        # (10*60 + 200*30 + 100*30 + 80*30 + 52*60 + 5*30) / 240; the gap does not count.
        mean_utilization=63.625,
        target_utilization=50,
        above_threshold=pytest.approx(55.0),
        # 200%, 100% and 80% are above 55%, 30 s each; 52% is within the tolerance.
        above_target_for=at(90),
    )
    assert compute_summary(hand_built()).time_to_scale_up == at(15)


def test_summarize_a_hand_built_run() -> None:
    assert summarize(hand_built()) == [
        "default/php-apache: 05:00 of virtual time, peak load 40.0 req/s at 02:00",
        "replicas: max 8 at 02:30, final 2; 2 scale-ups, 1 scale-down",
        "first scale-up 00:15 after the load step at 01:00",
        "CPU utilization: mean 63.6% (time-weighted) vs target 50%; above 55% for 01:30",
    ]


@pytest.mark.parametrize(
    ("timeline", "line"),
    [
        (
            Timeline("web", samples=[sample(0, 5, 50, 3), sample(60, 5, 50, 3)]),
            "no load step and no scale-up",
        ),
        (
            Timeline(
                "web",
                samples=[sample(0, 5, 50, 1), sample(60, 5, 50, 2)],
                events=[rescale(30, 2)],
            ),
            "no load step; first scale-up at 00:30",
        ),
        (
            Timeline(
                "web",
                samples=[sample(0, 5, 50, 1), sample(60, 5, 50, 2), sample(90, 50, 50, 2)],
                events=[rescale(30, 2)],
            ),
            "no scale-up after the load step at 01:30",
        ),
        (
            # 25 req/s is a step even though 50 req/s comes later: the first rise counts.
            Timeline(
                "web",
                samples=[sample(0, 0.5, 5, 1), sample(120, 25, 250, 1), sample(600, 50, 50, 5)],
                events=[rescale(150, 5), rescale(615, 10)],
            ),
            "first scale-up 00:30 after the load step at 02:00",
        ),
    ],
    ids=["flat-load-no-rescale", "flat-load-scale-up", "scale-up-only-before-step", "two-steps"],
)
def test_scale_up_line(timeline: Timeline, line: str) -> None:
    assert summarize(timeline)[2] == line


@pytest.mark.parametrize(
    ("timeline", "lines"),
    [
        (Timeline("web", "shop"), ["shop/web: no samples recorded"]),
        (
            Timeline("web", samples=[sample(0, 2, None, 1), sample(30, 2, None, 1)]),
            [
                "default/web: 00:30 of virtual time, peak load 2.0 req/s at 00:00",
                "replicas: max 1 at 00:00, final 1; 0 scale-ups, 0 scale-downs",
                "no load step and no scale-up",
                "CPU utilization: no metrics (target 50%)",
            ],
        ),
        (
            # One sample covers no time: there is no mean to take.
            Timeline("web", samples=[sample(0, 2, 80, 1)]),
            [
                "default/web: 00:00 of virtual time, peak load 2.0 req/s at 00:00",
                "replicas: max 1 at 00:00, final 1; 0 scale-ups, 0 scale-downs",
                "no load step and no scale-up",
                "CPU utilization: no metrics (target 50%)",
            ],
        ),
    ],
    ids=["empty", "no-metrics", "single-sample"],
)
def test_summarize_edge_cases(timeline: Timeline, lines: list[str]) -> None:
    assert summarize(timeline) == lines


def test_compute_summary_needs_a_sample() -> None:
    with pytest.raises(ValueError, match="timeline default/web has no samples"):
        compute_summary(Timeline("web"))


@pytest.mark.parametrize(
    ("tolerance", "above"),
    [(0.0, 150), (0.1, 90), (1.0, 30), (4.0, 0)],
    ids=["none", "default", "hundred-percent", "huge"],
)
def test_tolerance_sets_the_above_target_threshold(tolerance: float, above: int) -> None:
    timeline = hand_built()
    timeline.tolerance = tolerance
    summary = compute_summary(timeline)
    assert summary.above_target_for == at(above)
    assert summary.above_threshold == pytest.approx(50 * (1 + tolerance))


@st.composite
def timelines(draw: st.DrawFn) -> Timeline:
    steps = draw(st.lists(st.integers(0, 120), min_size=1, max_size=30))
    offsets = [sum(steps[: i + 1]) for i in range(len(steps))]
    samples = [
        Sample(
            at(offset),
            draw(st.floats(min_value=0, max_value=1000)),
            draw(st.none() | st.floats(min_value=0, max_value=500)),
            draw(st.integers(1, 100)),
            draw(st.integers(0, 50)),
            draw(st.integers(0, 50)),
            draw(st.integers(0, 50)),
        )
        for offset in offsets
    ]
    event_offsets = sorted(draw(st.lists(st.integers(0, offsets[-1] + 60), max_size=10)))
    events = [rescale(offset, draw(st.integers(0, 50))) for offset in event_offsets]
    tolerance = draw(st.floats(min_value=0, max_value=1))
    return Timeline("web", tolerance=tolerance, samples=samples, events=events)


@given(timelines())
def test_summary_invariants(timeline: Timeline) -> None:
    summary = compute_summary(timeline)
    samples = timeline.samples
    assert summary.peak_load == max(s.load for s in samples)
    assert summary.max_replicas == max(s.current_replicas for s in samples)
    assert summary.max_replicas >= summary.final_replicas == samples[-1].current_replicas
    assert summary.duration == samples[-1].offset - samples[0].offset
    assert timedelta(0) <= summary.above_target_for <= summary.duration
    assert summary.scale_ups + summary.scale_downs <= len(find_rescales(timeline))
    if summary.mean_utilization is not None:
        known = [s.utilization for s in samples[:-1] if s.utilization is not None]
        assert min(known) - 1e-9 <= summary.mean_utilization <= max(known) + 1e-9
    if summary.time_to_scale_up is not None:
        assert summary.time_to_scale_up >= timedelta(0)
    if summary.load_step_at is not None:
        assert samples[0].offset <= summary.load_step_at <= summary.peak_load_at
    lines = summarize(timeline)
    assert len(lines) == 4
    assert all(line and line.isascii() for line in lines)
