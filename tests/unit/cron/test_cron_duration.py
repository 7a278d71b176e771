"""Go's time.ParseDuration as `@every` reads it (podscale.cron.gotime.parse_duration)."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from podscale.cron import CronError, parse
from podscale.cron.gotime import parse_duration

S = 1_000_000_000


@pytest.mark.parametrize(
    ("text", "nanos"),
    [
        ("0", 0),
        ("1h30m", 5400 * S),
        ("1.5h", 5400 * S),
        ("2h45m30.5s", 9930 * S + S // 2),
        ("300ms", 300_000_000),
        ("1µs", 1_000),
        ("1μs", 1_000),
        ("1us", 1_000),
        ("7ns", 7),
        (".5s", S // 2),
        ("1.s", S),
        ("+5s", 5 * S),
        ("-1h", -3600 * S),
        ("1m1m", 120 * S),
    ],
    ids=lambda v: str(v),
)
def test_parse_duration(text: str, nanos: int) -> None:
    assert parse_duration(text, "@every") == nanos


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'time: invalid duration ""'),
        ("-", 'time: invalid duration "-"'),
        (".s", 'time: invalid duration ".s"'),
        ("h", 'time: invalid duration "h"'),
        ("5", 'time: missing unit in duration "5"'),
        ("1hh", 'time: unknown unit "hh" in duration "1hh"'),
        ("1d", 'time: unknown unit "d" in duration "1d"'),
        ("9999999999999999999h", 'time: invalid duration "9999999999999999999h"'),
    ],
    ids=["empty", "sign-only", "dot-only", "unit-only", "no-unit", "double-unit", "days", "big"],
)
def test_parse_duration_errors(text: str, message: str) -> None:
    with pytest.raises(CronError) as caught:
        parse_duration(text, "@every")
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("spec", "delay"),
    [("@every -1h", 1), ("@every 0s", 1), ("@every 1m59.9s", 119), ("@every 24h", 86400)],
    ids=["negative", "zero", "truncated", "day"],
)
def test_every_delay_in_whole_seconds(spec: str, delay: int) -> None:
    instant = dt.datetime(2026, 1, 1, 0, 0, 0, 700000, tzinfo=dt.UTC)
    found = parse(spec, "cronhpa").next_after(instant, ZoneInfo("UTC"))
    assert found == instant.replace(microsecond=0) + dt.timedelta(seconds=delay)
