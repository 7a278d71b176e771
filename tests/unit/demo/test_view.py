"""The live view's plain lines: the bar, the status and event lines, throttling."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.demo.timeline import Sample, TimelineEvent
from podscale.demo.view import (
    BAR_CELLS,
    LiveView,
    render_bar,
    render_line,
    utilization_band,
)
from podscale.scenario.hpa_metrics import MetricReading

UP = "cpu resource utilization (percentage of request) above target"


def at(seconds: float) -> timedelta:
    return timedelta(seconds=seconds)


def sample(
    seconds: float = 135,
    *,
    load: float = 25.0,
    utilization: float | None = 250.0,
    target: int = 50,
    replicas: tuple[int, int, int] = (5, 1, 1),
) -> Sample:
    desired, current, ready = replicas
    return Sample(at(seconds), load, utilization, target, desired, current, ready)


@pytest.mark.parametrize(
    ("utilization", "target", "bar"),
    [
        (None, 50, "[          |          ]"),
        (0.0, 50, "[..........|..........]"),
        (25.0, 50, "[#####.....|..........]"),
        (50.0, 50, "[##########|..........]"),
        (75.0, 50, "[##########|#####.....]"),
        (100.0, 50, "[##########|##########]"),
        (250.0, 50, "[##########|#########>]"),
        (-5.0, 50, "[..........|..........]"),
        (50.0, 0, "[##########|..........]"),
    ],
    ids=[
        "unknown",
        "idle",
        "half-target",
        "at-target",
        "above",
        "full-scale",
        "off-scale",
        "negative-clamped",
        "zero-target",
    ],
)
def test_render_bar(utilization: float | None, target: int, bar: str) -> None:
    assert render_bar(utilization, target) == bar


@given(st.none() | st.floats(min_value=-1e6, max_value=1e6), st.integers(0, 1000))
def test_render_bar_width_is_fixed(utilization: float | None, target: int) -> None:
    bar = render_bar(utilization, target)
    assert len(bar) == 2 * BAR_CELLS + 3
    assert bar[BAR_CELLS + 1] == "|"


@pytest.mark.parametrize(
    ("the_sample", "events", "lines"),
    [
        (
            sample(),
            [TimelineEvent(at(135), "SuccessfulRescale", f"New size: 5; reason: {UP}")],
            [
                "02:15  load     25.0 req/s  cpu  250%  desired   5  current   1  ready   1"
                "  [##########|#########>] cpu: 250%/50%",
                f"02:15  * SuccessfulRescale: New size: 5; reason: {UP}",
            ],
        ),
        (
            sample(3, load=0.5, utilization=None, replicas=(1, 1, 0)),
            [
                TimelineEvent(
                    at(0), "FailedGetResourceMetric", "failed to get cpu utilization", "Warning"
                )
            ],
            [
                "00:03  load      0.5 req/s  cpu   --%  desired   1  current   1  ready   0"
                "  [          |          ] cpu: <unknown>/50%",
                "00:00  ! FailedGetResourceMetric: failed to get cpu utilization",
            ],
        ),
        (
            sample(3000, load=50, utilization=52.4, replicas=(10, 10, 10)),
            [],
            [
                "50:00  load     50.0 req/s  cpu   52%  desired  10  current  10  ready  10"
                "  [##########|..........] cpu: 52%/50%"
            ],
        ),
    ],
    ids=["scale-up-with-event", "no-metrics-with-warning", "steady-no-events"],
)
def test_render_line(the_sample: Sample, events: list[TimelineEvent], lines: list[str]) -> None:
    assert render_line(the_sample, events) == lines


def test_an_external_metric_shows_its_value_and_target_not_cpu() -> None:
    queue = MetricReading("queue_messages_ready", 60.0, 30.0, "", True)
    the_sample = Sample(at(400), 5.0, 20.0, 0, 10, 6, 6, targets="60/30 (avg)", metrics=(queue,))
    (line,) = render_line(the_sample)
    assert line == (
        "06:40  load      5.0 req/s  cpu   20%  desired  10  current   6  ready   6"
        "  [##########|##########] 60/30 (avg)"
    )
    assert "0%/" not in line
    assert "target" not in line
    assert utilization_band(the_sample, 0.1) == 1


@given(
    seconds=st.integers(0, 99 * 60 + 59),
    load=st.floats(min_value=0, max_value=999_999),
    utilization=st.none() | st.floats(min_value=0, max_value=9999),
    target=st.integers(1, 999),
    replicas=st.tuples(st.integers(0, 999), st.integers(0, 999), st.integers(0, 999)),
)
def test_status_line_width_is_stable(
    seconds: int,
    load: float,
    utilization: float | None,
    target: int,
    replicas: tuple[int, int, int],
) -> None:
    the_sample = sample(
        seconds, load=load, utilization=utilization, target=target, replicas=replicas
    )
    reference = render_line(sample())[0]
    (line,) = render_line(the_sample)
    # Every column up to the bar keeps its width; the TARGETS cell after it varies.
    assert line.index("]") == reference.index("]")
    assert line.isascii()


@pytest.mark.parametrize(
    ("utilization", "band"),
    [(56.0, 1), (54.0, 0), (46.0, 0), (44.0, -1), (None, 0)],
    ids=["above-tolerance", "upper-band", "lower-band", "below-tolerance", "unknown"],
)
def test_utilization_band_is_the_tolerance_band(utilization: float | None, band: int) -> None:
    assert utilization_band(sample(utilization=utilization), 0.1) == band


def test_lines_are_plain_ascii() -> None:
    events = [TimelineEvent(at(2), "FailedGetScale", "boom", "Warning")]
    lines = render_line(sample(utilization=80.0), events)
    assert all(line.isascii() and "\x1b" not in line for line in lines)
    assert lines[1] == "00:02  ! FailedGetScale: boom"


@pytest.mark.parametrize(
    ("interval", "offsets", "shown"),
    [
        (15, [0, 5, 10, 15, 20, 29, 30], [0, 15, 30]),
        (15, [0, 20, 30, 35], [0, 20, 35]),
        (0, [0, 0, 5], [0, 0, 5]),
        (60, [10, 20, 69, 70], [10, 70]),
    ],
    ids=["every-third", "uneven-steps", "no-throttle", "first-sample-not-at-zero"],
)
def test_live_view_throttles_status_lines(
    interval: int, offsets: list[int], shown: list[int]
) -> None:
    out = io.StringIO()
    view = LiveView(out, interval=at(interval))
    for offset in offsets:
        view.show(sample(offset))
    written = out.getvalue().splitlines()
    assert [line[:5] for line in written] == [f"{o // 60:02d}:{o % 60:02d}" for o in shown]


def test_live_view_never_holds_back_events() -> None:
    out = io.StringIO()
    view = LiveView(out, interval=at(15))
    view.show(sample(0))
    event = TimelineEvent(at(5), "SuccessfulRescale", "New size: 2; reason: x")
    assert view.show(sample(5), [event]) == ["00:05  * SuccessfulRescale: New size: 2; reason: x"]
    assert out.getvalue().splitlines()[1:] == ["00:05  * SuccessfulRescale: New size: 2; reason: x"]


def test_live_view_force_writes_a_held_back_sample_and_restarts_the_interval() -> None:
    out = io.StringIO()
    view = LiveView(out, interval=at(15))
    view.show(sample(0))
    assert len(view.show(sample(7), force=True)) == 1
    assert view.show(sample(15)) == []
    assert len(view.show(sample(22))) == 1


def test_live_view_accepts_an_echo_callable() -> None:
    lines: list[str] = []
    view = LiveView(lines.append)
    view.show(sample(0))
    assert lines == render_line(sample(0))


def test_live_view_rejects_a_negative_interval() -> None:
    with pytest.raises(ValueError, match="interval must not be negative"):
        LiveView(io.StringIO(), interval=at(-1))
