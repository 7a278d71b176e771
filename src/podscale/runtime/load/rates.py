"""Request-rate sources: how many requests per second a workload receives at a moment.

A scenario (``podscale.scenario.loader``) declares one source per workload; the usage model
(``podscale.runtime.load.usage``) spreads its rate over the workload's ready pods. The
file-backed source lives in ``podscale.runtime.load.traces``; the shapes here are pure.

Contract shared by every source (the ``RateSource`` protocol): ``rate_at(t)`` takes the time
since the scenario started, returns requests per second, is never negative, and depends on
nothing but ``t`` and the source's own fields (no clock, no randomness), so the same
scenario always sees the same load. A negative ``t`` reads as ``t = 0``.

The past (``rate_history``): what a source offered before the start, for a scenario's
``spec.history`` (``podscale.scenario.history_prefill``). Each source here answers it with
``past_rates()``, a function of the (possibly negative) seconds since the start: the
periodic sine continues backwards, the others hold their rate at 0 (a run starts from the
steady state it was in), and a trace (``podscale.runtime.load.traces``) reads the rows before
its offset, None (missing) before its beginning. A source without ``past_rates`` holds its
rate at 0 as well.

Many instants at once (``rates_at``): the usage model reads a source once per integration
step (``podscale.runtime.simulated.usage_loads.mean_rate``). A source may answer a whole
list in one call (the ``BatchRates`` protocol: ``rates_at(ts)`` equals ``[rate_at(t) for t
in ts]``, the same arithmetic per element, only without a call per element); the others are
asked one instant at a time.

Whole seconds as floats (``rates_at_seconds``): ``mean_rate``'s grid on a step of whole
seconds has whole-second instants, and a source may read those as floats (the
``SecondsRates`` protocol: ``rates_at_seconds(ss)`` equals ``rates_at([timedelta(seconds=s)
for s in ss])`` for integral ``s``), sparing a timedelta per instant. An integral float
within a timedelta's range is held exactly by ``timedelta(seconds=s)`` (no microseconds to
round) and ``total_seconds()`` gives ``s`` back (microseconds over 10**6, exact), so a source
whose ``rate_at`` reads ``t.total_seconds()`` answers the same from ``s`` itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol, runtime_checkable

__all__ = [
    "BatchRates",
    "ConstantRate",
    "PastRates",
    "RampRate",
    "RateHistory",
    "RateSource",
    "RateStep",
    "SecondsRates",
    "SineRate",
    "StepRate",
    "rate_history",
    "rates_at",
    "rates_at_seconds",
]

# Seconds since the start (negative before it) -> requests/s, None where nothing is known.
RateHistory = Callable[[float], float | None]


@runtime_checkable
class RateSource(Protocol):
    """Anything that answers "requests per second at ``t`` after the start"."""

    def rate_at(self, t: timedelta) -> float: ...


@runtime_checkable
class BatchRates(Protocol):
    """A source answering many instants in one call: ``[rate_at(t) for t in ts]``."""

    def rates_at(self, ts: Sequence[timedelta]) -> list[float]: ...


def rates_at(source: RateSource, ts: Sequence[timedelta]) -> list[float]:
    """``[source.rate_at(t) for t in ts]``, in one call where ``source`` can (``BatchRates``;
    looked up as an attribute: the protocol check costs more than the calls it saves)."""
    batch = getattr(source, "rates_at", None)
    if batch is not None:
        result: list[float] = batch(ts)
        return result
    rate_at = source.rate_at
    return [rate_at(t) for t in ts]


@runtime_checkable
class SecondsRates(Protocol):
    """A source reading whole seconds as floats: ``rates_at_seconds(ss)`` equals
    ``rates_at([timedelta(seconds=s) for s in ss])`` for integral ``s`` (module docstring)."""

    def rates_at_seconds(self, seconds: Sequence[float]) -> list[float]: ...


def rates_at_seconds(source: RateSource, seconds: Sequence[float]) -> list[float]:
    """``rates_at(source, [timedelta(seconds=s) for s in seconds])`` for integral
    ``seconds``, without the timedeltas where ``source`` can (``SecondsRates``)."""
    batch = getattr(source, "rates_at_seconds", None)
    if batch is not None:
        result: list[float] = batch(seconds)
        return result
    return rates_at(source, [timedelta(seconds=s) for s in seconds])


@runtime_checkable
class PastRates(Protocol):
    """A source that can say what it offered before the start as well."""

    def past_rates(self) -> RateHistory: ...


def _held(source: RateSource) -> RateHistory:
    """Before the start, the rate at the start: for shapes with no period to continue."""
    return lambda seconds: source.rate_at(timedelta(seconds=max(seconds, 0.0)))


def rate_history(source: RateSource) -> RateHistory:
    """``source``'s rate at any second since the start, negative ones included."""
    if isinstance(source, PastRates):
        return source.past_rates()
    return _held(source)


def _seconds(t: timedelta) -> float:
    return max(t.total_seconds(), 0.0)


def _require_rate(name: str, value: float) -> None:
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite rate >= 0, got {value!r}")


@dataclass(frozen=True, slots=True)
class ConstantRate:
    """The same rate for the whole run."""

    rate: float

    def __post_init__(self) -> None:
        _require_rate("rate", self.rate)

    def rate_at(self, t: timedelta) -> float:
        return self.rate

    def rates_at(self, ts: Sequence[timedelta]) -> list[float]:
        return [self.rate] * len(ts)

    def rates_at_seconds(self, seconds: Sequence[float]) -> list[float]:
        return [self.rate] * len(seconds)

    def past_rates(self) -> RateHistory:
        return lambda _: self.rate


@dataclass(frozen=True, slots=True)
class RateStep:
    """From ``at`` on (until the next step) the rate is ``rate``."""

    at: timedelta
    rate: float


@dataclass(frozen=True, slots=True)
class StepRate:
    """A piecewise-constant rate: each step holds until the next one.

    Before the first step the rate is 0, so a step at ``0s`` sets the starting rate. Steps
    must be in strictly increasing ``at`` order (the scenario validator reports violations
    with their field path; the constructor only refuses them).
    """

    steps: tuple[RateStep, ...]

    def __post_init__(self) -> None:
        for i, step in enumerate(self.steps):
            _require_rate(f"steps[{i}].rate", step.rate)
            if i and step.at <= self.steps[i - 1].at:
                raise ValueError("steps must be in strictly increasing order of 'at'")

    def rate_at(self, t: timedelta) -> float:
        current = 0.0
        # A scenario has a handful of steps: a scan is simpler than bisecting timedeltas.
        for step in self.steps:
            if step.at > t:
                break
            current = step.rate
        return current

    def past_rates(self) -> RateHistory:
        return _held(self)


@dataclass(frozen=True, slots=True)
class RampRate:
    """``start_rate`` until ``begin``, then a straight line to ``end_rate`` over ``over``,
    then ``end_rate`` held for the rest of the run."""

    start_rate: float
    end_rate: float
    over: timedelta
    begin: timedelta = timedelta(0)

    def __post_init__(self) -> None:
        _require_rate("from", self.start_rate)
        _require_rate("to", self.end_rate)
        if self.over <= timedelta(0):
            raise ValueError("over must be a positive duration")

    def rate_at(self, t: timedelta) -> float:
        elapsed = _seconds(t) - self.begin.total_seconds()
        if elapsed <= 0:
            return self.start_rate
        fraction = min(elapsed / self.over.total_seconds(), 1.0)
        return self.start_rate + (self.end_rate - self.start_rate) * fraction

    def past_rates(self) -> RateHistory:
        return _held(self)


@dataclass(frozen=True, slots=True)
class SineRate:
    """``base + amplitude * sin(2π (t + phase) / period)``, clipped at 0.

    ``phase`` is a time shift (a quarter period starts at the peak), which reads better in
    a scenario file than radians. An amplitude above ``base`` gives quiet stretches of 0.
    """

    base: float
    amplitude: float
    period: timedelta
    phase: timedelta = timedelta(0)

    def __post_init__(self) -> None:
        _require_rate("base", self.base)
        _require_rate("amplitude", self.amplitude)
        if self.period <= timedelta(0):
            raise ValueError("period must be a positive duration")

    def rate_at(self, t: timedelta) -> float:
        return self._at(_seconds(t))

    def rates_at(self, ts: Sequence[timedelta]) -> list[float]:
        """``rate_at`` of each: ``rates_at_seconds`` of their seconds."""
        return self.rates_at_seconds([t.total_seconds() for t in ts])

    def rates_at_seconds(self, seconds: Sequence[float]) -> list[float]:
        """``rate_at`` of each second, with ``_at``'s arithmetic inlined (the same
        operations); ``SecondsRates`` for whole seconds, which a timedelta reads back as
        the same float. Each ``max(x, 0.0)`` is spelled as the test it makes (``0.0`` when
        ``0.0 > x``, else ``x``: the same answer for every float, NaN and -0.0 included),
        without the call (two per second, every usage advance)."""
        base, amplitude, sin, two_pi = self.base, self.amplitude, math.sin, 2 * math.pi
        phase, period = self.phase.total_seconds(), self.period.total_seconds()
        rates = []
        for s in seconds:
            angle = two_pi * ((0.0 if s < 0.0 else s) + phase)
            value = base + amplitude * sin(angle / period)
            rates.append(0.0 if value < 0.0 else value)
        return rates

    def _at(self, seconds: float) -> float:
        angle = 2 * math.pi * (seconds + self.phase.total_seconds())
        value = self.base + self.amplitude * math.sin(angle / self.period.total_seconds())
        return max(value, 0.0)

    def past_rates(self) -> RateHistory:
        # Periodic: the cycle went on before the start as after it.
        return self._at
