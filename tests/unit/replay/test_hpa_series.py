"""An HPA's readings over a run, turned into per-minute means of each metric."""

from __future__ import annotations

import math

import pytest

from podscale.replay.hpa_series import HpaTrace, metric_minutes
from podscale.scenario.hpa_metrics import MetricReading


def queue(value: float | None) -> tuple[MetricReading, ...]:
    return (MetricReading("queue", value, 30.0, "", True),)


@pytest.mark.parametrize(
    ("changes", "start", "means"),
    [
        # Unknown for the first 30 s of minute 0: its mean is over the known half only.
        (((0.0, queue(None)), (30.0, queue(60.0))), 0.0, [60.0, 60.0]),
        # A change in the middle of minute 1 weighs each value by its time.
        (((0.0, queue(10.0)), (90.0, queue(40.0))), 0.0, [10.0, 25.0]),
        # Readings before the window start hold into it; the window starts at 60 s.
        (((0.0, queue(5.0)),), 60.0, [5.0, 5.0]),
        # Never a value: NaN, not 0.
        (((0.0, queue(None)),), 0.0, [math.nan, math.nan]),
    ],
    ids=["unknown-then-known", "change-mid-minute", "held-from-before", "never-known"],
)
def test_metric_minutes(
    changes: tuple[tuple[float, tuple[MetricReading, ...]], ...], start: float, means: list[float]
) -> None:
    run = metric_minutes(HpaTrace("q", changes, 300.0), start, 2)
    (metric,) = run.metrics
    assert (metric.label, metric.target, metric.unit) == ("queue", 30.0, "")
    assert len(metric.means) == len(means)
    for got, want in zip(metric.means, means, strict=True):
        assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want)
    assert run.scale_down_window == 300.0


def test_no_readings_give_no_metrics() -> None:
    assert metric_minutes(HpaTrace("q", (), 0.0), 0.0, 3).metrics == ()
