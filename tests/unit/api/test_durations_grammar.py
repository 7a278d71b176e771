"""Go duration strings: the accepted grammar and Go's exact error messages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.durations import DurationError, parse_go_duration


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", timedelta(0)),
        ("0s", timedelta(0)),
        ("30s", timedelta(seconds=30)),
        ("5m", timedelta(minutes=5)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("1h30m15s", timedelta(hours=1, minutes=30, seconds=15)),
        ("1.5h", timedelta(minutes=90)),
        (".5s", timedelta(milliseconds=500)),
        ("2.s", timedelta(seconds=2)),
        ("250ms", timedelta(milliseconds=250)),
        ("3us", timedelta(microseconds=3)),
        ("3µs", timedelta(microseconds=3)),
        ("3μs", timedelta(microseconds=3)),
        ("1500ns", timedelta(microseconds=2)),
        ("-1m", timedelta(minutes=-1)),
        ("+10s", timedelta(seconds=10)),
        ("1m1m", timedelta(minutes=2)),
        ("24h", timedelta(days=1)),
    ],
    ids=[
        "bare-zero",
        "zero-seconds",
        "seconds",
        "minutes",
        "hours-minutes",
        "three-units",
        "fraction",
        "leading-dot",
        "trailing-dot",
        "millis",
        "micros-us",
        "micros-micro-sign",
        "micros-greek-mu",
        "nanos-rounded",
        "negative",
        "plus-sign",
        "repeated-unit",
        "a-day",
    ],
)
def test_parses(text: str, expected: timedelta) -> None:
    assert parse_go_duration(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'time: invalid duration ""'),
        ("-", 'time: invalid duration "-"'),
        ("s", 'time: invalid duration "s"'),
        (".s", 'time: invalid duration ".s"'),
        ("5", 'time: missing unit in duration "5"'),
        ("1h5", 'time: missing unit in duration "1h5"'),
        ("5x", 'time: unknown unit "x" in duration "5x"'),
        ("5 m", 'time: unknown unit " m" in duration "5 m"'),
        ("10d", 'time: unknown unit "d" in duration "10d"'),
        ("3000000h", 'time: invalid duration "3000000h"'),
    ],
    ids=[
        "empty",
        "sign-only",
        "unit-only",
        "dot-only",
        "no-unit",
        "no-unit-at-end",
        "unknown-unit",
        "space",
        "days",
        "overflow",
    ],
)
def test_errors_read_like_go(text: str, message: str) -> None:
    with pytest.raises(DurationError) as caught:
        parse_go_duration(text)
    assert str(caught.value) == message


@given(st.integers(0, 1000), st.integers(0, 59), st.integers(0, 59), st.integers(0, 999))
def test_composed_durations_add_up(hours: int, minutes: int, seconds: int, millis: int) -> None:
    text = f"{hours}h{minutes}m{seconds}s{millis}ms"
    assert parse_go_duration(text) == timedelta(
        hours=hours, minutes=minutes, seconds=seconds, milliseconds=millis
    )
