"""The demo timeline: offsets as mm:ss, append order, rescale sizes and directions."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from podscale.demo.timeline import (
    Sample,
    Timeline,
    TimelineError,
    TimelineEvent,
    find_rescales,
    format_offset,
)

UP = "cpu resource utilization (percentage of request) above target"


def at(seconds: float) -> timedelta:
    return timedelta(seconds=seconds)


def sample(seconds: float, current: int, *, load: float = 10.0) -> Sample:
    return Sample(at(seconds), load, 50.0, 50, current, current, current)


def rescale(seconds: float, size: int, reason: str = UP) -> TimelineEvent:
    return TimelineEvent(at(seconds), "SuccessfulRescale", f"New size: {size}; reason: {reason}")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "00:00"),
        (59.9, "00:59"),
        (75, "01:15"),
        (3600, "60:00"),
        (6001, "100:01"),
        (-3, "00:00"),
    ],
    ids=["zero", "truncates", "minutes", "hour-as-minutes", "three-digit-minutes", "negative"],
)
def test_format_offset(seconds: float, text: str) -> None:
    assert format_offset(at(seconds)) == text


@pytest.mark.parametrize(
    ("event", "size"),
    [
        (rescale(0, 4), 4),
        (rescale(0, 1, "All metrics below target"), 1),
        (TimelineEvent(at(0), "FailedRescale", f"New size: 4; reason: {UP}; error: x"), None),
        (TimelineEvent(at(0), "SuccessfulRescale", "scaled somehow"), None),
    ],
    ids=["up", "down", "other-reason", "unparsable-message"],
)
def test_new_size(event: TimelineEvent, size: int | None) -> None:
    assert event.new_size == size


@pytest.mark.parametrize(
    ("samples", "events", "expected"),
    [
        ([sample(0, 1), sample(30, 4)], [rescale(15, 4)], [(1, 4, True)]),
        # The sample at the rescale's instant already shows the new size: not the start.
        ([sample(0, 1), sample(15, 4)], [rescale(15, 4)], [(1, 4, True)]),
        # Two rescales between samples chain through the first one's new size.
        (
            [sample(0, 4), sample(60, 2)],
            [rescale(15, 6), rescale(30, 2, "All metrics below target")],
            [(4, 6, True), (6, 2, False)],
        ),
        # A later sample (e.g. after a manual scale) wins over an older rescale.
        (
            [sample(0, 1), sample(20, 7)],
            [rescale(10, 3), rescale(30, 5)],
            [(1, 3, True), (7, 5, False)],
        ),
        ([], [rescale(10, 3)], [(3, 3, False)]),
        ([sample(30, 2)], [rescale(10, 3)], [(2, 3, True)]),
        ([sample(0, 1)], [TimelineEvent(at(5), "FailedGetResourceMetric", "no metrics")], []),
    ],
    ids=[
        "sample-before",
        "same-instant-sample-ignored",
        "chained",
        "newer-sample-wins",
        "no-samples",
        "only-later-sample",
        "not-a-rescale",
    ],
)
def test_find_rescales(
    samples: list[Sample], events: list[TimelineEvent], expected: list[tuple[int, int, bool]]
) -> None:
    timeline = Timeline("web", samples=samples, events=events)
    found = [(r.from_replicas, r.to_replicas, r.is_up) for r in find_rescales(timeline)]
    assert found == expected


@pytest.mark.parametrize(
    "append",
    [
        lambda t: t.append_sample(sample(5, 1)),
        lambda t: t.append_event(TimelineEvent(at(5), "X", "y")),
    ],
    ids=["sample", "event"],
)
def test_append_rejects_going_back_in_time(append: Any) -> None:
    timeline = Timeline("web")
    timeline.append_sample(sample(10, 1))
    timeline.append_event(TimelineEvent(at(10), "X", "y"))
    with pytest.raises(TimelineError, match="earlier than the last one"):
        append(timeline)
    assert len(timeline.samples) == 1
    assert len(timeline.events) == 1


def test_append_accepts_equal_offsets() -> None:
    timeline = Timeline("web")
    timeline.append_sample(sample(10, 1))
    timeline.append_sample(sample(10, 2))
    assert [s.current_replicas for s in timeline.samples] == [1, 2]
