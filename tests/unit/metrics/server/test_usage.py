"""``compute_usage``: the CPU rate and memory between two points, and the refusals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from podscale.metrics.server.points import MetricsPoint
from podscale.metrics.server.usage import Usage, UsageError, compute_usage, go_seconds

T0 = datetime(2026, 1, 1, tzinfo=UTC)
START = T0 - timedelta(hours=1)


def at(
    seconds: float, cpu: int, memory: int = 1024, start: datetime | None = START
) -> MetricsPoint:
    return MetricsPoint(start, T0 + timedelta(seconds=seconds), cpu, memory)


@pytest.mark.parametrize(
    ("prev", "last", "expected"),
    [
        (
            at(0, 1_000),
            at(15, 1_000 + 3_750_000_000, 64),
            Usage(250_000_000, 64, at(15, 0).timestamp, timedelta(seconds=15)),
        ),
        (at(0, 5), at(15, 5), Usage(0, 1024, at(15, 0).timestamp, timedelta(seconds=15))),
        (at(0, 0), at(3, 1), Usage(0, 1024, at(3, 0).timestamp, timedelta(seconds=3))),
        (
            at(0, 0),
            at(0.5, 1_000),
            Usage(2_000, 1024, at(0.5, 0).timestamp, timedelta(seconds=0.5)),
        ),
        (
            at(0, 0),
            at(7, 10_000_000_000),
            Usage(1_428_571_428, 1024, at(7, 0).timestamp, timedelta(seconds=7)),
        ),
        (
            at(0, 0),
            at(60, 120_000_000_000, 2**30),
            Usage(2_000_000_000, 2**30, at(60, 0).timestamp, timedelta(minutes=1)),
        ),
    ],
    ids=[
        "quarter-core",
        "idle",
        "truncated-to-zero",
        "sub-second-window",
        "truncated-rate",
        "memory-of-newer",
    ],
)
def test_rate_over_the_window(prev: MetricsPoint, last: MetricsPoint, expected: Usage) -> None:
    assert compute_usage(last, prev) == expected


@pytest.mark.parametrize(
    ("prev", "last", "message"),
    [
        (at(0, 10), at(15, 9), "unexpected decrease in cumulative CPU usage value"),
        (
            at(0, 10),
            at(15, 20, start=START - timedelta(seconds=1)),
            "unexpected decrease in startTime of node/container",
        ),
        (at(0, 10), at(15, 20, start=None), "unexpected decrease in startTime of node/container"),
    ],
    ids=["counter-backwards", "start-backwards", "start-lost"],
)
def test_points_of_different_runs_are_refused(
    prev: MetricsPoint, last: MetricsPoint, message: str
) -> None:
    with pytest.raises(UsageError) as caught:
        compute_usage(last, prev)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("prev", "last"),
    [(at(0, 10, start=None), at(15, 20)), (at(0, 10, start=None), at(15, 20, start=None))],
    ids=["start-appears", "no-start-times"],
)
def test_missing_start_times_count_as_the_earliest(prev: MetricsPoint, last: MetricsPoint) -> None:
    assert compute_usage(last, prev).cpu_nanocores == 0


def test_points_out_of_order_are_refused() -> None:
    with pytest.raises(UsageError):
        compute_usage(at(0, 10), at(0, 10))


@pytest.mark.parametrize(
    ("duration", "seconds"),
    [
        (timedelta(seconds=15), 15.0),
        (timedelta(seconds=14, microseconds=999_999), 14.999999),
        (timedelta(days=1, microseconds=1), 86_400.000001),
    ],
    ids=["whole", "fraction", "days"],
)
def test_go_seconds(duration: timedelta, seconds: float) -> None:
    assert go_seconds(duration) == seconds
