"""Go's `time` package arithmetic, reproduced on whole Unix seconds in an IANA zone.

The go cron libraries (robfig/cron v3, and the older robfig/cron that the CronHPA
controller's go-cron fork carries) step through wall time with `time.Date`,
`Time.AddDate`, `Time.Add` and `Time.Truncate`. Their daylight-saving behaviour comes
from how `time.Date` resolves a wall time that a transition skips or repeats, so
`podscale.cron.schedule` walks its search with these functions instead of Python's
`datetime` arithmetic (which folds and normalises differently). `podscale.cron.parse`
uses `parse_duration` for `@every`. Pure: zone data is read through `zoneinfo` only.
"""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple
from zoneinfo import ZoneInfo

from podscale.cron.errors import CronError

_UTC = dt.UTC
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=_UTC)
_SECOND = dt.timedelta(seconds=1)
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()


class Wall(NamedTuple):
    """The wall clock of an instant in a zone; `weekday` counts from Sunday = 0 as Go does."""

    year: int
    month: int
    day: int
    hour: int
    minute: int
    second: int
    weekday: int


def unix_floor(instant: dt.datetime) -> int:
    """Whole seconds since the epoch, dropping the fraction (an aware `instant` only)."""
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise ValueError("instant must be timezone-aware")
    return (instant - _EPOCH) // _SECOND


def to_utc(unix: int) -> dt.datetime:
    return _EPOCH + dt.timedelta(seconds=unix)


def wall(unix: int, zone: ZoneInfo) -> Wall:
    local = to_utc(unix).astimezone(zone)
    return Wall(
        local.year,
        local.month,
        local.day,
        local.hour,
        local.minute,
        local.second,
        (local.weekday() + 1) % 7,
    )


def _offset_at(unix: int, zone: ZoneInfo) -> int:
    offset = to_utc(unix).astimezone(zone).utcoffset()
    assert offset is not None  # a ZoneInfo always answers for an aware datetime
    return int(offset.total_seconds())


def date(
    year: int, month: int, day: int, hour: int, minute: int, second: int, zone: ZoneInfo
) -> int:
    """`time.Date`: out-of-range fields carry over, then the wall time gets an offset.

    Go looks up the offset in force at the wall time read as UTC, then re-reads the
    offset at the instant that gives. In a gap or an overlap the answer depends on the
    sign of the zone's offset (east of UTC an overlap resolves to the later instant, west
    of UTC to the earlier), which is what the cron libraries inherit; the composition
    below equals Go's period check because equal offsets give equal instants.
    """
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    days = dt.date(year, month, 1).toordinal() - _EPOCH_ORDINAL + day - 1
    as_utc = days * 86400 + hour * 3600 + minute * 60 + second
    return as_utc - _offset_at(as_utc - _offset_at(as_utc, zone), zone)


def add_date(unix: int, zone: ZoneInfo, months: int = 0, days: int = 0) -> int:
    """`Time.AddDate`: shift the wall date, keep the wall clock, resolve like `date`."""
    w = wall(unix, zone)
    return date(w.year, w.month + months, w.day + days, w.hour, w.minute, w.second, zone)


def truncate(unix: int, step: int) -> int:
    """`Time.Truncate` to a whole number of seconds (absolute, not wall, time)."""
    return unix - unix % step


_UNITS: dict[str, int] = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,  # U+00B5 micro sign
    "μs": 1_000,  # U+03BC Greek small letter mu
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_MAX_INT64 = (1 << 63) - 1


def go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_duration(text: str, field: str) -> int:
    """`time.ParseDuration` in nanoseconds, with Go's error texts (field names the spec part)."""
    original = text
    invalid = CronError(field, f"time: invalid duration {go_quote(original)}")
    negative = False
    if text[:1] in ("-", "+"):
        negative = text[0] == "-"
        text = text[1:]
    if text == "0":
        return 0
    if text == "":
        raise invalid
    total = 0
    while text:
        if not (text[0] == "." or _is_digit(text[0])):
            raise invalid
        digits = _leading_digits(text)
        whole = int(digits) if digits else 0
        if whole > 1 << 63:
            raise invalid
        text = text[len(digits) :]
        fraction, scale, has_fraction = 0, 1.0, False
        if text.startswith("."):
            text = text[1:]
            frac_digits = _leading_digits(text)
            text = text[len(frac_digits) :]
            has_fraction = bool(frac_digits)
            for ch in frac_digits:
                # Go stops accumulating once more digits could overflow; the rest are dropped.
                if fraction > _MAX_INT64 // 10:
                    break
                fraction = fraction * 10 + int(ch)
                scale *= 10
        if not digits and not has_fraction:
            raise invalid
        unit_end = 0
        while unit_end < len(text) and not (text[unit_end] == "." or _is_digit(text[unit_end])):
            unit_end += 1
        unit_text, text = text[:unit_end], text[unit_end:]
        if unit_text == "":
            raise CronError(field, f"time: missing unit in duration {go_quote(original)}")
        unit = _UNITS.get(unit_text)
        if unit is None:
            raise CronError(
                field,
                f"time: unknown unit {go_quote(unit_text)} in duration {go_quote(original)}",
            )
        if whole > (1 << 63) // unit:
            raise invalid
        value = whole * unit
        if fraction:
            value += int(float(fraction) * (float(unit) / scale))
        total += value
        if total > (1 << 63):
            raise invalid
    if negative:
        return -total
    if total > _MAX_INT64:
        raise invalid
    return total


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def _leading_digits(text: str) -> str:
    end = 0
    while end < len(text) and _is_digit(text[end]):
        end += 1
    return text[:end]
