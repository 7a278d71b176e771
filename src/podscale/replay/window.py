"""The evaluation window, and a scenario cut to start where the replay starts.

``podscale replay --from F --duration D --warmup W`` scores the scenario's minutes
``[F, F + D)`` and simulates ``W`` before them, so the run starts at scenario time
``F - W``. ``shift_scenario`` makes that run an ordinary scenario starting at 0: every
workload's load reads ``rate_at(t + F - W)`` (``ShiftedRate``; a start before the scenario's
own 0 plays its first rate, as ``RateSource`` reads a negative time), events before the
start are dropped and later ones moved, and each external metric series keeps the value it
holds at the start. ``podscale.replay.run`` plays the result; scenario time ``F`` is then
``Window.offset`` into the run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from podscale.api.durations import format_go_duration
from podscale.runtime.load import RateSource, rate_history
from podscale.runtime.load.rates import RateHistory, rates_at, rates_at_seconds
from podscale.scenario.model import ExternalMetricSeries, ExternalMetricValue, Scenario

__all__ = ["ShiftedRate", "Window", "choose_window", "shift_scenario"]


@dataclass(frozen=True, slots=True)
class ShiftedRate:
    """``source`` read ``shift`` later: ``rate_at(t) = source.rate_at(t + shift)``."""

    source: RateSource
    shift: timedelta

    def rate_at(self, t: timedelta) -> float:
        return self.source.rate_at(t + self.shift)

    def rates_at(self, ts: Sequence[timedelta]) -> list[float]:
        """``rate_at`` of each (``BatchRates``): the source's, shifted, in one call."""
        shift = self.shift
        return rates_at(self.source, [t + shift for t in ts])

    def rates_at_seconds(self, seconds: Sequence[float]) -> list[float]:
        """``rates_at`` of whole seconds (``SecondsRates``). A shift of whole seconds keeps
        them whole: ``s + shift`` in floats is exact, as ``t + shift`` is in timedeltas."""
        shift = self.shift
        if shift.microseconds:
            return self.rates_at([timedelta(seconds=s) for s in seconds])
        by = shift.total_seconds()
        return rates_at_seconds(self.source, [s + by for s in seconds])

    def past_rates(self) -> RateHistory:
        """Before the run's start, the source's own past (or its scenario time before
        the shift): a scenario's ``spec.history`` ends where the run starts."""
        inner, shift = rate_history(self.source), self.shift.total_seconds()
        return lambda seconds: inner(seconds + shift)


@dataclass(frozen=True, slots=True)
class Window:
    """Scenario time ``start`` to ``start + duration`` is scored, after ``warmup``."""

    start: timedelta
    duration: timedelta
    warmup: timedelta

    @property
    def run_start(self) -> timedelta:
        """Where in scenario time the run starts (negative: before the scenario's 0)."""
        return self.start - self.warmup

    @property
    def offset(self) -> timedelta:
        """Where in the run the scored window starts."""
        return self.warmup

    @property
    def minutes(self) -> int:
        return int(self.duration.total_seconds() // 60)


def choose_window(
    scenario_duration: timedelta,
    start: timedelta,
    duration: timedelta | None,
    warmup: timedelta,
) -> Window:
    """The window the options ask for; ``duration`` None means to the scenario's end.
    Raises ``ValueError`` for a window that is not whole minutes inside the scenario."""
    if start < timedelta(0) or warmup < timedelta(0):
        raise ValueError("--from and --warmup must not be negative")
    span = scenario_duration - start if duration is None else duration
    if start + max(span, timedelta(0)) > scenario_duration or span <= timedelta(0):
        raise ValueError(
            f"the evaluation window ends at {format_go_duration(start + span)}, after the "
            f"scenario's {format_go_duration(scenario_duration)}"
            if span > timedelta(0)
            else f"the evaluation window starts at {format_go_duration(start)}, at or after "
            f"the scenario's end ({format_go_duration(scenario_duration)})"
        )
    if span.total_seconds() < 60 or span.total_seconds() % 60:
        raise ValueError(
            f"the evaluation window must be whole minutes, at least one: {format_go_duration(span)}"
        )
    return Window(start, span, warmup)


def _shift_series(series: ExternalMetricSeries, shift: timedelta) -> ExternalMetricSeries:
    held = series.value_at(shift)
    later = [
        ExternalMetricValue(v.at - shift, v.value)
        for v in sorted(series.values, key=lambda v: v.at)
        if v.at > shift
    ]
    first = [ExternalMetricValue(timedelta(0), held)] if held is not None else []
    return dataclasses.replace(series, values=tuple(first + later))


def shift_scenario(scenario: Scenario, window: Window) -> Scenario:
    """The scenario as a run from ``window.run_start`` to the window's end."""
    shift = window.run_start
    return dataclasses.replace(
        scenario,
        duration=window.warmup + window.duration,
        workloads=tuple(
            dataclasses.replace(w, load=ShiftedRate(w.load, shift)) for w in scenario.workloads
        ),
        events=tuple(
            dataclasses.replace(e, at=e.at - shift) for e in scenario.events if e.at >= shift
        ),
        external_metrics=tuple(_shift_series(s, shift) for s in scenario.external_metrics),
    )
