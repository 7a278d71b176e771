"""The closing summary of a ``podscale demo`` run, computed from its ``Timeline``.

``compute_summary`` returns the numbers as a frozen ``DemoSummary``; ``summarize`` renders
them as a few lines for the terminal, with one line per metric of the HPA (whatever its
type) against its target (the live view, ``podscale.demo.view``, comes
before it; the plot, ``podscale.demo.plot``, shows the same run). Times are offsets of
virtual time from the start of the run, printed ``mm:ss``.

Time-weighted quantities treat each sample as holding until the next one (a step
function, as the plot draws it), so the last sample carries no weight.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from itertools import pairwise
from typing import Final

from podscale.demo.timeline import Timeline, find_rescales, format_offset

__all__ = ["LOAD_STEP_FRACTION", "DemoSummary", "compute_summary", "metric_lines", "summarize"]

# The load step is the first sample whose load has risen by this fraction of the way from
# the initial load to the peak: high enough to ignore noise, low enough that a second,
# larger step (as in the walkthrough, 25 then 50 req/s) does not hide the first.
LOAD_STEP_FRACTION: Final = 0.2


@dataclass(frozen=True, slots=True)
class DemoSummary:
    """The numbers of a run; see ``compute_summary`` for their definitions."""

    duration: timedelta
    peak_load: float
    peak_load_at: timedelta
    max_replicas: int
    max_replicas_at: timedelta
    final_replicas: int
    scale_ups: int
    scale_downs: int
    load_step_at: timedelta | None
    first_scale_up_at: timedelta | None
    mean_utilization: float | None
    target_utilization: int
    above_threshold: float
    above_target_for: timedelta

    @property
    def time_to_scale_up(self) -> timedelta | None:
        """From the load step (or the start, without one) to the first scale-up after it."""
        if self.first_scale_up_at is None:
            return None
        return self.first_scale_up_at - (self.load_step_at or timedelta(0))


def compute_summary(timeline: Timeline) -> DemoSummary:
    """Summarize a timeline with at least one sample (``ValueError`` otherwise).

    Peaks are the first sample reaching the maximum; replicas are ``current_replicas``.
    The first scale-up counts only ``SuccessfulRescale`` events at or after the load step.
    The mean utilization skips intervals without a metric (``None`` if none has one);
    "above target" means above ``target * (1 + tolerance)``, where the engine acts.
    """
    samples = timeline.samples
    if not samples:
        raise ValueError(f"timeline {timeline.namespace}/{timeline.name} has no samples")
    start = samples[0].offset
    peak = max(samples, key=lambda s: s.load)
    busiest = max(samples, key=lambda s: s.current_replicas)
    rise = peak.load - samples[0].load
    load_step_at = None
    if rise > 0:
        threshold = samples[0].load + LOAD_STEP_FRACTION * rise
        load_step_at = next(s.offset for s in samples if s.load >= threshold)
    rescales = find_rescales(timeline)
    after = load_step_at if load_step_at is not None else start
    first_up = next((r.offset for r in rescales if r.is_up and r.offset >= after), None)

    weighted = 0.0
    known = 0.0
    above = 0.0
    for current, following in pairwise(samples):
        seconds = (following.offset - current.offset).total_seconds()
        if current.utilization is None:
            continue
        weighted += current.utilization * seconds
        known += seconds
        if current.utilization > current.target_utilization * (1 + timeline.tolerance):
            above += seconds
    last = samples[-1]
    return DemoSummary(
        duration=last.offset - start,
        peak_load=peak.load,
        peak_load_at=peak.offset,
        max_replicas=busiest.current_replicas,
        max_replicas_at=busiest.offset,
        final_replicas=last.current_replicas,
        scale_ups=sum(1 for r in rescales if r.is_up),
        scale_downs=sum(1 for r in rescales if r.to_replicas < r.from_replicas),
        load_step_at=load_step_at,
        first_scale_up_at=first_up,
        mean_utilization=weighted / known if known > 0 else None,
        target_utilization=last.target_utilization,
        above_threshold=last.target_utilization * (1 + timeline.tolerance),
        above_target_for=timedelta(seconds=above),
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _scale_up_line(summary: DemoSummary) -> str:
    step = summary.load_step_at
    wait = summary.time_to_scale_up
    if step is None:
        if wait is None:
            return "no load step and no scale-up"
        return f"no load step; first scale-up at {format_offset(wait)}"
    if wait is None:
        return f"no scale-up after the load step at {format_offset(step)}"
    return f"first scale-up {format_offset(wait)} after the load step at {format_offset(step)}"


def metric_lines(timeline: Timeline) -> list[str]:
    """One line per metric of the HPA (from the last sample's spec order): its time-weighted
    mean against its target, the highest value and the last TARGETS cell, whatever the type.
    Empty for a timeline recorded without metrics."""
    samples = timeline.samples
    if not samples or not samples[-1].metrics:
        return []
    lines = []
    for index, last in enumerate(samples[-1].metrics):
        weighted = known = 0.0
        highest: float | None = None
        for current, following in pairwise(samples):
            if index >= len(current.metrics) or current.metrics[index].current is None:
                continue
            value = current.metrics[index].current
            assert value is not None
            seconds = (following.offset - current.offset).total_seconds()
            weighted += value * seconds
            known += seconds
            highest = value if highest is None else max(highest, value)
        target = last.format_value(last.target)
        if last.unit != "%":
            target += " (average per pod)" if last.average else " (total)"
        if known <= 0:
            lines.append(f"{last.label}: no value recorded (target {target})")
            continue
        lines.append(
            f"{last.label}: mean {last.format_value(weighted / known)} (time-weighted), max "
            f"{last.format_value(highest)} vs target {target}"
        )
    lines.append(f"TARGETS at the end: {samples[-1].targets}")
    return lines


def summarize(timeline: Timeline) -> list[str]:
    """The summary as terminal lines (one line when nothing was recorded)."""
    name = f"{timeline.namespace}/{timeline.name}"
    if not timeline.samples:
        return [f"{name}: no samples recorded"]
    s = compute_summary(timeline)
    if s.target_utilization <= 0:
        # Not a CPU-utilization HPA: the pods' CPU has no target to be compared with.
        mean = "no metrics" if s.mean_utilization is None else f"mean {s.mean_utilization:.1f}%"
        cpu = f"pods' CPU utilization: {mean} (time-weighted; the HPA has no CPU target)"
    elif s.mean_utilization is None:
        cpu = f"CPU utilization: no metrics (target {s.target_utilization}%)"
    else:
        cpu = (
            f"CPU utilization: mean {s.mean_utilization:.1f}% (time-weighted) vs target "
            f"{s.target_utilization}%; above {s.above_threshold:.0f}% for "
            f"{format_offset(s.above_target_for)}"
        )
    return [
        f"{name}: {format_offset(s.duration)} of virtual time, peak load "
        f"{s.peak_load:.1f} req/s at {format_offset(s.peak_load_at)}",
        f"replicas: max {s.max_replicas} at {format_offset(s.max_replicas_at)}, final "
        f"{s.final_replicas}; {_count(s.scale_ups, 'scale-up')}, "
        f"{_count(s.scale_downs, 'scale-down')}",
        _scale_up_line(s),
        cpu,
        *metric_lines(timeline),
    ]
