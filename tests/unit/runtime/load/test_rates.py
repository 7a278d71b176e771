"""The synthetic rate sources: values at chosen instants, constructor guards, and the
invariants every source keeps (never negative, a function of t only)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.runtime.load import (
    ConstantRate,
    RampRate,
    RateSource,
    RateStep,
    SineRate,
    StepRate,
)

S = timedelta(seconds=1)
M = timedelta(minutes=1)

STEPS = StepRate((RateStep(30 * S, 10.0), RateStep(2 * M, 40.0), RateStep(5 * M, 5.0)))
RAMP = RampRate(10.0, 50.0, over=4 * M, begin=M)
SINE = SineRate(base=20.0, amplitude=10.0, period=4 * M)


@pytest.mark.parametrize(
    ("source", "t", "expected"),
    [
        (ConstantRate(7.5), timedelta(0), 7.5),
        (ConstantRate(7.5), timedelta(hours=10), 7.5),
        (STEPS, timedelta(0), 0.0),
        (STEPS, 29 * S, 0.0),
        (STEPS, 30 * S, 10.0),
        (STEPS, 119 * S, 10.0),
        (STEPS, 2 * M, 40.0),
        (STEPS, 5 * M, 5.0),
        (STEPS, timedelta(hours=3), 5.0),
        (RAMP, timedelta(0), 10.0),
        (RAMP, M, 10.0),
        (RAMP, 2 * M, 20.0),
        (RAMP, 3 * M, 30.0),
        (RAMP, 5 * M, 50.0),
        (RAMP, timedelta(hours=1), 50.0),
        (RampRate(50.0, 0.0, over=100 * S), 25 * S, 37.5),
        (SINE, timedelta(0), 20.0),
        (SINE, M, 30.0),
        (SINE, 2 * M, 20.0),
        (SINE, 3 * M, 10.0),
        (SineRate(20.0, 10.0, 4 * M, phase=M), timedelta(0), 30.0),
        (SineRate(5.0, 10.0, 4 * M), 3 * M, 0.0),
        (ConstantRate(3.0), -5 * S, 3.0),
        (RAMP, -5 * M, 10.0),
    ],
    ids=[
        "constant-start",
        "constant-later",
        "step-before-first",
        "step-just-before-first",
        "step-at-first",
        "step-holds",
        "step-second",
        "step-last",
        "step-last-holds",
        "ramp-before-begin",
        "ramp-at-begin",
        "ramp-quarter",
        "ramp-half",
        "ramp-end",
        "ramp-holds",
        "ramp-down",
        "sine-zero-crossing",
        "sine-peak",
        "sine-half-period",
        "sine-trough",
        "sine-phase-shift",
        "sine-clipped-at-zero",
        "negative-t-reads-as-zero",
        "negative-t-ramp",
    ],
)
def test_rate_at(source: RateSource, t: timedelta, expected: float) -> None:
    assert source.rate_at(t) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: ConstantRate(-1.0), "rate must be a finite rate >= 0"),
        (lambda: ConstantRate(float("nan")), "rate must be a finite rate >= 0"),
        (lambda: StepRate((RateStep(M, 1.0), RateStep(M, 2.0))), "strictly increasing"),
        (lambda: StepRate((RateStep(M, -1.0),)), "steps[0].rate must be"),
        (lambda: RampRate(1.0, 2.0, over=timedelta(0)), "over must be a positive duration"),
        (lambda: RampRate(1.0, float("inf"), over=M), "to must be"),
        (lambda: SineRate(1.0, 1.0, period=-M), "period must be a positive duration"),
        (lambda: SineRate(1.0, -1.0, period=M), "amplitude must be"),
    ],
    ids=[
        "negative",
        "nan",
        "steps-out-of-order",
        "negative-step",
        "zero-ramp",
        "infinite-ramp-end",
        "negative-period",
        "negative-amplitude",
    ],
)
def test_constructors_refuse_bad_values(build: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        build()  # type: ignore[operator]


rates = st.floats(min_value=0, max_value=1e6, allow_nan=False)
durations = st.integers(min_value=1, max_value=10**6).map(lambda s: timedelta(seconds=s))
instants = st.integers(min_value=-(10**6), max_value=10**7).map(lambda s: timedelta(seconds=s))
sources = st.one_of(
    rates.map(ConstantRate),
    st.builds(RampRate, rates, rates, durations, durations),
    st.builds(SineRate, rates, rates, durations, durations),
    st.lists(st.tuples(st.integers(0, 10**6), rates), max_size=8, unique_by=lambda p: p[0]).map(
        lambda pairs: StepRate(tuple(RateStep(timedelta(seconds=a), r) for a, r in sorted(pairs)))
    ),
)


@given(sources, instants)
def test_rates_are_never_negative_and_repeatable(source: RateSource, t: timedelta) -> None:
    first = source.rate_at(t)
    assert first >= 0
    assert source.rate_at(t) == first


@given(st.builds(RampRate, rates, rates, durations, durations), instants)
def test_ramp_stays_between_its_ends(source: RampRate, t: timedelta) -> None:
    low, high = sorted((source.start_rate, source.end_rate))
    assert low - 1e-6 <= source.rate_at(t) <= high + 1e-6
