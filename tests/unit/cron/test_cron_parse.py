"""Parsing both dialects: each field form, names, steps, `?`, descriptors, errors."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from podscale.cron import CronError, parse

UTC = ZoneInfo("UTC")
# Thursday 2026-01-15 10:20:30 UTC; every expected time below was worked out by hand.
T = dt.datetime(2026, 1, 15, 10, 20, 30, tzinfo=dt.UTC)


def at(*fields: int) -> dt.datetime:
    return dt.datetime(*fields, tzinfo=dt.UTC)  # type: ignore[misc]


NEXT_CASES = [
    ("every-minute", "standard", "* * * * *", at(2026, 1, 15, 10, 21)),
    ("minute-step", "standard", "*/15 * * * *", at(2026, 1, 15, 10, 30)),
    ("minute-value", "standard", "5 * * * *", at(2026, 1, 15, 11, 5)),
    ("minute-list", "standard", "10,40 * * * *", at(2026, 1, 15, 10, 40)),
    ("minute-empty-items-ignored", "standard", ",40, * * * *", at(2026, 1, 15, 10, 40)),
    ("minute-start-step", "standard", "25/20 * * * *", at(2026, 1, 15, 10, 25)),
    ("hour-range-step", "standard", "0 9-17/4 * * *", at(2026, 1, 15, 13)),
    ("later-today", "standard", "30 10 * * *", at(2026, 1, 15, 10, 30)),
    ("tomorrow", "standard", "0 9 * * *", at(2026, 1, 16, 9)),
    ("day-of-month", "standard", "0 0 1 * *", at(2026, 2, 1)),
    ("dow-name", "standard", "0 0 * * mon", at(2026, 1, 19)),
    ("dow-name-upper", "standard", "0 0 * * SUN", at(2026, 1, 18)),
    ("dow-number-range", "standard", "0 0 * * 6-6", at(2026, 1, 17)),
    ("dom-or-dow", "standard", "0 0 13 * fri", at(2026, 1, 16)),
    ("dom-or-dow-2", "standard", "0 0 1 * mon", at(2026, 1, 19)),
    ("question-mark-is-star", "standard", "0 0 1 * ?", at(2026, 2, 1)),
    ("star-step-1-keeps-star", "standard", "0 0 1 * */1", at(2026, 2, 1)),
    ("star-step-2-drops-star", "standard", "0 0 */2 * mon", at(2026, 1, 17)),
    ("month-names", "standard", "0 12 * feb,Dec *", at(2026, 2, 1, 12)),
    ("month-range-step", "standard", "0 0 * jan-mar/2 *", at(2026, 1, 16)),
    ("leap-day", "standard", "0 0 29 2 *", at(2028, 2, 29)),
    ("never-feb-30", "standard", "0 0 30 2 *", None),
    ("never-apr-31", "standard", "0 0 31 4 *", None),
    ("only-commas-never", "standard", ", * * * *", None),
    ("yearly", "standard", "@yearly", at(2027, 1, 1)),
    ("annually", "standard", "@annually", at(2027, 1, 1)),
    ("monthly", "standard", "@monthly", at(2026, 2, 1)),
    ("weekly", "standard", "@weekly", at(2026, 1, 18)),
    ("daily", "standard", "@daily", at(2026, 1, 16)),
    ("midnight", "standard", "@midnight", at(2026, 1, 16)),
    ("hourly", "standard", "@hourly", at(2026, 1, 15, 11)),
    ("every-go-duration", "standard", "@every 1h30m", at(2026, 1, 15, 11, 50, 30)),
    ("every-below-second", "standard", "@every 500ms", at(2026, 1, 15, 10, 20, 31)),
    ("every-truncated", "standard", "@every 1.5s", at(2026, 1, 15, 10, 20, 31)),
    ("every-seconds", "standard", "@every 90s", at(2026, 1, 15, 10, 22)),
    ("cron-tz-prefix", "standard", "CRON_TZ=Asia/Tokyo 0 9 * * *", at(2026, 1, 16)),
    ("tz-prefix", "standard", "TZ=Asia/Tokyo 0 9 * * *", at(2026, 1, 16)),
    ("tz-descriptor", "standard", "CRON_TZ=Asia/Tokyo @daily", at(2026, 1, 15, 15)),
    ("seconds-step", "cronhpa", "*/10 * * * * *", at(2026, 1, 15, 10, 20, 40)),
    ("seconds-zero-minute-step", "cronhpa", "0 */5 * * * *", at(2026, 1, 15, 10, 25)),
    ("seconds-tomorrow", "cronhpa", "15 20 10 * * *", at(2026, 1, 16, 10, 20, 15)),
    ("five-fields-dow-optional", "cronhpa", "0 0 0 * *", at(2026, 1, 16)),
    ("six-fields-question", "cronhpa", "0 0 0 1 * ?", at(2026, 2, 1)),
    ("fork-star-step-keeps-star", "cronhpa", "0 0 0 */2 * mon", at(2026, 1, 19)),
    ("fork-names", "cronhpa", "0 0 8 * JAN-feb Sat", at(2026, 1, 17, 8)),
    ("fork-hourly", "cronhpa", "@hourly", at(2026, 1, 15, 11)),
    ("fork-every", "cronhpa", "@every 10s", at(2026, 1, 15, 10, 20, 40)),
    ("date", "cronhpa", "@date 2026-01-20 08:00:00", at(2026, 1, 20, 8)),
    ("date-one-digit-hour", "cronhpa", "@date 2026-01-20 8:00:00", at(2026, 1, 20, 8)),
    ("date-year-ignored", "cronhpa", "@date 2020-01-01 00:00:00", at(2027, 1, 1)),
    ("date-leap-day", "cronhpa", "@date 2024-02-29 12:00:00", at(2028, 2, 29, 12)),
]


@pytest.mark.parametrize(
    ("dialect", "spec", "expected"), [c[1:] for c in NEXT_CASES], ids=[c[0] for c in NEXT_CASES]
)
def test_next_after_by_hand(dialect: str, spec: str, expected: dt.datetime | None) -> None:
    schedule = parse(spec, dialect)  # type: ignore[arg-type]
    assert schedule.next_after(T, UTC) == expected


ERROR_CASES = [
    ("empty", "standard", "", "spec", "empty spec string"),
    ("empty-fork", "cronhpa", "", "spec", "Empty spec string"),
    ("four", "standard", "* * * *", "spec", "expected exactly 5 fields, found 4: [* * * *]"),
    (
        "six-standard",
        "standard",
        "0 * * * * *",
        "spec",
        "expected exactly 5 fields, found 6: [0 * * * * *]",
    ),
    ("four-fork", "cronhpa", "* * * *", "spec", "Expected 5 to 6 fields, found 4: * * * *"),
    (
        "tz-not-in-fork",
        "cronhpa",
        "TZ=UTC 0 0 0 * * *",
        "spec",
        "Expected 5 to 6 fields, found 7: TZ=UTC 0 0 0 * * *",
    ),
    ("minute-high", "standard", "60 * * * *", "minute", "end of range (60) above maximum (59): 60"),
    ("hour-high", "standard", "* 24 * * *", "hour", "end of range (24) above maximum (23): 24"),
    (
        "dom-low",
        "standard",
        "* * 0 * *",
        "day-of-month",
        "beginning of range (0) below minimum (1): 0",
    ),
    ("month-high", "standard", "* * * 13 *", "month", "end of range (13) above maximum (12): 13"),
    ("dow-seven", "standard", "* * * * 7", "day-of-week", "end of range (7) above maximum (6): 7"),
    (
        "range-backwards",
        "standard",
        "5-1 * * * *",
        "minute",
        "beginning of range (5) beyond end of range (1): 5-1",
    ),
    (
        "step-zero",
        "standard",
        "*/0 * * * *",
        "minute",
        "step of range should be a positive number: */0",
    ),
    ("hyphens", "standard", "1-2-3 * * * *", "minute", "too many hyphens: 1-2-3"),
    ("slashes", "standard", "*/2/3 * * * *", "minute", "too many slashes: */2/3"),
    (
        "not-a-number",
        "standard",
        "x * * * *",
        "minute",
        'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax',
    ),
    (
        "negative-step",
        "standard",
        "* * * * */-1",
        "day-of-week",
        "negative number (-1) not allowed: -1",
    ),
    (
        "bad-month-name",
        "standard",
        "* * * foo *",
        "month",
        'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax',
    ),
    (
        "dow-name-in-month",
        "standard",
        "* * * mon *",
        "month",
        'failed to parse int from mon: strconv.Atoi: parsing "mon": invalid syntax',
    ),
    ("unknown-descriptor", "standard", "@often", "descriptor", "unrecognized descriptor: @often"),
    ("every-no-space", "standard", "@every", "descriptor", "unrecognized descriptor: @every"),
    (
        "every-unit",
        "standard",
        "@every 1x",
        "@every",
        'failed to parse duration @every 1x: time: unknown unit "x" in duration "1x"',
    ),
    (
        "every-missing-unit",
        "standard",
        "@every 10",
        "@every",
        'failed to parse duration @every 10: time: missing unit in duration "10"',
    ),
    (
        "every-garbage",
        "standard",
        "@every abc",
        "@every",
        'failed to parse duration @every abc: time: invalid duration "abc"',
    ),
    (
        "bad-zone",
        "standard",
        "TZ=Mars/Olympus 0 * * * *",
        "timezone",
        "provided bad location Mars/Olympus: unknown time zone Mars/Olympus",
    ),
    (
        "date-not-standard",
        "standard",
        "@date 2026-01-01 00:00:00",
        "descriptor",
        "unrecognized descriptor: @date 2026-01-01 00:00:00",
    ),
    (
        "fork-second-high",
        "cronhpa",
        "60 * * * * *",
        "second",
        "End of range (60) above maximum (59): 60",
    ),
    (
        "fork-dow-seven",
        "cronhpa",
        "* * * * * 7",
        "day-of-week",
        "End of range (7) above maximum (6): 7",
    ),
    (
        "fork-step-zero",
        "cronhpa",
        "*/0 * * * * *",
        "second",
        "Step of range should be a positive number: */0",
    ),
    (
        "fork-every-bad",
        "cronhpa",
        "@every 5",
        "@every",
        'Failed to parse duration @every 5: time: missing unit in duration "5"',
    ),
    (
        "date-month",
        "cronhpa",
        "@date 2026-13-01 00:00:00",
        "@date",
        'Failed to parse date @date 2026-13-01 00:00:00: parsing time "2026-13-01 00:00:00": '
        "month out of range",
    ),
    (
        "date-feb-30",
        "cronhpa",
        "@date 2026-02-30 00:00:00",
        "@date",
        'Failed to parse date @date 2026-02-30 00:00:00: parsing time "2026-02-30 00:00:00": '
        "day out of range",
    ),
    (
        "date-not-leap",
        "cronhpa",
        "@date 2026-02-29 00:00:00",
        "@date",
        'Failed to parse date @date 2026-02-29 00:00:00: parsing time "2026-02-29 00:00:00": '
        "day out of range",
    ),
    (
        "date-garbage",
        "cronhpa",
        "@date tomorrow",
        "@date",
        'Failed to parse date @date tomorrow: parsing time "tomorrow" as '
        '"2006-01-02 15:04:05": cannot parse',
    ),
    (
        "date-extra",
        "cronhpa",
        "@date 2026-01-01 00:00:00 UTC",
        "@date",
        "Failed to parse date @date 2026-01-01 00:00:00 UTC: "
        'parsing time "2026-01-01 00:00:00 UTC": extra text: " UTC"',
    ),
]


@pytest.mark.parametrize(
    ("dialect", "spec", "field", "message"),
    [c[1:] for c in ERROR_CASES],
    ids=[c[0] for c in ERROR_CASES],
)
def test_errors_name_the_field(dialect: str, spec: str, field: str, message: str) -> None:
    with pytest.raises(CronError) as caught:
        parse(spec, dialect)  # type: ignore[arg-type]
    assert (caught.value.field, caught.value.message) == (field, message)
    assert str(caught.value) == f"{field}: {message}"


def test_unknown_dialect_is_a_cron_error() -> None:
    with pytest.raises(CronError, match="dialect"):
        parse("* * * * *", "quartz")  # type: ignore[arg-type]


def test_schedule_is_a_frozen_value() -> None:
    assert parse("0 9 * * mon-fri", "standard") == parse("0 9 * * mon-fri", "standard")
    with pytest.raises(AttributeError):
        parse("@daily", "standard").minute = 5  # type: ignore[misc]


def test_naive_instant_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        parse("@daily", "standard").next_after(dt.datetime(2026, 1, 1), UTC)
