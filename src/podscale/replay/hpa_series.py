"""What each replayed autoscaler saw: its metrics against its targets, minute by minute.

``HpaTrace`` is what ``podscale.replay.run.Recorder`` keeps of the HPA scaling the target:
every change of its metric readings (``podscale.scenario.hpa_metrics``, taken from
``status.currentMetrics`` and ``spec.metrics``, whatever the metric types) with its time,
and its scale-down stabilization window. ``metric_minutes`` turns it into ``RunMetrics``:
per metric, the time-weighted mean per evaluation minute of the known values (NaN for a
minute without any). ``podscale.replay.report`` summarises them under the table and in the
JSON; ``podscale.replay.plot`` draws them next to the scale events.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from podscale.replay.sampling import MINUTE
from podscale.scenario.hpa_metrics import MetricReading

__all__ = ["HpaTrace", "MetricMinutes", "RunMetrics", "metric_minutes"]

ReadingChange = tuple[float, tuple[MetricReading, ...]]


@dataclass(frozen=True, slots=True)
class HpaTrace:
    """The HPA's readings over a run: ``(seconds since the start, readings)`` in time
    order, each holding until the next; ``scale_down_window`` in seconds."""

    name: str
    changes: tuple[ReadingChange, ...]
    scale_down_window: float


@dataclass(frozen=True, slots=True)
class MetricMinutes:
    """One metric over the window: its label, unit and target (the last seen) and the
    mean value of each minute (NaN when the HPA had no value in it)."""

    label: str
    unit: str
    average: bool
    target: float
    means: tuple[float, ...]

    @property
    def reading(self) -> MetricReading:
        """A reading carrying the label, unit and target (for formatting values)."""
        return MetricReading(self.label, None, self.target, self.unit, self.average)

    def known(self) -> list[float]:
        return [m for m in self.means if not math.isnan(m)]


@dataclass(frozen=True, slots=True)
class RunMetrics:
    hpa: str
    metrics: tuple[MetricMinutes, ...]
    scale_down_window: float


def _means(
    changes: Sequence[ReadingChange], index: int, start: float, minutes: int
) -> tuple[float, ...]:
    """Time-weighted mean of metric ``index`` per minute over its known stretches."""
    sums = [0.0] * minutes
    spans = [0.0] * minutes
    end = start + minutes * MINUTE
    for position, (at, readings) in enumerate(changes):
        stop = changes[position + 1][0] if position + 1 < len(changes) else end
        value = readings[index].current if index < len(readings) else None
        lo, hi = max(at, start), min(stop, end)
        if value is None or hi <= lo:
            continue
        for minute in range(int((lo - start) // MINUTE), minutes):
            a = max(lo, start + minute * MINUTE)
            b = min(hi, start + (minute + 1) * MINUTE)
            if b <= a:
                break
            sums[minute] += value * (b - a)
            spans[minute] += b - a
    return tuple(s / w if w > 0 else math.nan for s, w in zip(sums, spans, strict=True))


def metric_minutes(trace: HpaTrace, start: float, minutes: int) -> RunMetrics:
    """The trace's metrics over ``minutes`` minutes from ``start`` seconds into the run
    (in the order of the last readings: the HPA's ``spec.metrics``)."""
    last = trace.changes[-1][1] if trace.changes else ()
    metrics = tuple(
        MetricMinutes(
            reading.label,
            reading.unit,
            reading.average,
            reading.target,
            _means(trace.changes, index, start, minutes),
        )
        for index, reading in enumerate(last)
    )
    return RunMetrics(trace.name, metrics, trace.scale_down_window)
