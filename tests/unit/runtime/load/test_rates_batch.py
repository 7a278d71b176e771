"""Rates read many instants at once (``rates_at``) equal reading them one by one, whole
seconds read as floats (``rates_at_seconds``) equal reading them as timedeltas, and the
usage model's ``mean_rate``, which reads them so, equals its step-by-step definition."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.replay.window import ShiftedRate
from podscale.runtime.load import (
    ConstantRate,
    RampRate,
    RateSource,
    RateStep,
    SineRate,
    StepRate,
    TraceRate,
    TraceSeries,
)
from podscale.runtime.load.rates import BatchRates, SecondsRates, rates_at, rates_at_seconds
from podscale.runtime.simulated.load_annotations import DelayedRate
from podscale.runtime.simulated.usage_loads import mean_rate

T0 = datetime(2026, 1, 1, tzinfo=UTC)

_rates = st.floats(0, 500, allow_nan=False)
_durations = st.integers(-(10**9), 10**11).map(lambda us: timedelta(microseconds=us))
_positive = st.integers(1, 10**10).map(lambda us: timedelta(microseconds=us))
# Whole seconds as timedeltas: a shift or delay of these keeps ``rates_at_seconds`` on floats.
_whole = st.integers(-(10**6), 10**8).map(lambda s: timedelta(seconds=s))


def _trace(series: TraceSeries, **options: object) -> TraceRate:
    """A ``TraceRate`` holding ``series`` already parsed (its path is never read)."""
    rate = TraceRate(Path("unused.csv"), **options)  # type: ignore[arg-type]
    rate._parsed.append(series)
    return rate


@st.composite
def _traces(draw: st.DrawFn) -> TraceRate:
    values = draw(st.lists(_rates, min_size=1, max_size=12))
    if draw(st.booleans()):
        interval = draw(st.sampled_from([1.0, 60.0, 0.5, 7.3]))
        series = TraceSeries("t", values, interval * len(values), interval=interval)
    else:
        gaps = draw(st.lists(st.floats(0.1, 90), min_size=len(values), max_size=len(values)))
        starts = [sum(gaps[:i]) for i in range(len(values))]
        series = TraceSeries("t", values, sum(gaps), starts=starts)
    return _trace(
        series,
        time_scale=draw(st.sampled_from([1.0, 2.0, 0.25, 60.0])),
        offset=draw(st.integers(0, 10**9).map(lambda us: timedelta(microseconds=us))),
        loop=draw(st.booleans()),
        rate_scale=draw(st.sampled_from([1.0, 0.5, 3.0])),
    )


_plain: st.SearchStrategy[RateSource] = st.one_of(
    st.builds(ConstantRate, _rates),
    st.builds(SineRate, _rates, _rates, _positive, _durations),
    _traces(),
    st.builds(RampRate, _rates, _rates, _positive, st.just(timedelta(0))),
    st.builds(StepRate, st.tuples(st.builds(RateStep, _positive, _rates))),
)
_sources: st.SearchStrategy[RateSource] = st.one_of(
    _plain,
    st.builds(ShiftedRate, _plain, _durations),
    st.builds(DelayedRate, _plain, _durations),
    st.builds(ShiftedRate, st.builds(DelayedRate, _traces(), _durations), _durations),
    st.builds(ShiftedRate, _plain, _whole),
    st.builds(DelayedRate, _plain, _whole),
    st.builds(ShiftedRate, st.builds(DelayedRate, _traces(), _whole), _whole),
)


@settings(max_examples=400, deadline=None)
@given(source=_sources, ts=st.lists(_durations, max_size=30))
def test_rates_at_equals_each_rate_at(source: RateSource, ts: list[timedelta]) -> None:
    assert rates_at(source, ts) == [source.rate_at(t) for t in ts]


@settings(max_examples=400, deadline=None)
@given(source=_sources, seconds=st.lists(st.integers(-(10**9), 10**11), max_size=30))
def test_rates_at_seconds_equals_rates_at_of_timedeltas(
    source: RateSource, seconds: list[int]
) -> None:
    """Whole seconds as floats read exactly as the timedeltas holding them (the float path
    of the sources that have one, the timedelta path of those that do not)."""
    floats = [float(s) for s in seconds]
    expected = rates_at(source, [timedelta(seconds=s) for s in floats])
    assert rates_at_seconds(source, floats) == expected


@pytest.mark.parametrize(
    ("source", "floats"),
    [
        (SineRate(1.0, 1.0, timedelta(hours=1)), True),
        (ConstantRate(1.0), True),
        (ShiftedRate(SineRate(1.0, 1.0, timedelta(hours=1)), timedelta(seconds=5)), True),
        (DelayedRate(ConstantRate(2.0), timedelta(seconds=-3)), True),
        (RampRate(0.0, 1.0, timedelta(hours=1)), False),
        (StepRate(()), False),
    ],
    ids=["sine", "constant", "shifted", "delayed", "ramp", "step"],
)
def test_which_sources_read_seconds_as_floats(source: RateSource, floats: bool) -> None:
    assert isinstance(source, SecondsRates) is floats


def test_the_batched_sources_are_batch_rates() -> None:
    sine = SineRate(1.0, 1.0, timedelta(hours=1))
    batched = [
        ConstantRate(1.0),
        sine,
        ShiftedRate(sine, timedelta(1)),
        DelayedRate(sine, timedelta(1)),
    ]
    assert all(isinstance(source, BatchRates) for source in batched)
    assert not isinstance(StepRate(()), BatchRates)  # read one instant at a time


def step_by_step_mean(
    rate: RateSource, start: datetime, end: datetime, origin: datetime, step: timedelta
) -> float:
    """``mean_rate`` as it was written before ``rates_at``: one ``rate_at`` per step."""
    span = (end - start).total_seconds()
    if span <= 0:
        return rate.rate_at(start - origin)
    step_s = step.total_seconds()
    t = (start - origin).total_seconds()
    stop = (end - origin).total_seconds()
    cut = (t // step_s + 1) * step_s
    total = 0.0
    while cut < stop:
        total += rate.rate_at(timedelta(seconds=t)) * (cut - t)
        t, cut = cut, cut + step_s
    total += rate.rate_at(timedelta(seconds=t)) * (stop - t)
    return total / span


@settings(max_examples=300, deadline=None)
@given(
    source=_sources,
    # Microseconds, or whole seconds (where every step start is whole: one float batch).
    start=st.one_of(st.integers(0, 10**11), st.integers(0, 10**5).map(lambda s: s * 10**6)),
    length=st.one_of(st.integers(0, 120 * 10**6), st.integers(0, 120).map(lambda s: s * 10**6)),
    shift=st.one_of(
        st.integers(-(10**9), 10**9), st.integers(-(10**3), 10**3).map(lambda s: s * 10**6)
    ),
    step=st.sampled_from([10**6, 250_000, 15 * 10**6, 333_333, 2 * 10**6, 1_000_001]),
)
def test_mean_rate_equals_reading_each_step(
    source: RateSource, start: int, length: int, shift: int, step: int
) -> None:
    begin = T0 + timedelta(microseconds=start)
    end = begin + timedelta(microseconds=length)
    origin = T0 + timedelta(microseconds=shift)
    grid = timedelta(microseconds=step)
    assert mean_rate(source, begin, end, origin, grid) == step_by_step_mean(
        source, begin, end, origin, grid
    )
