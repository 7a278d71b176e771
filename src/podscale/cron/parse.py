"""Read a cron spec in one of the two dialects the Kubernetes scaling ecosystem uses.

- "cronhpa": the go-cron fork (github.com/ringtail/go-cron) inside Alibaba's
  kubernetes-cronhpa-controller, whose `Parse` takes `sec min hour dom month [dow]`
  (day-of-week optional, default `*`), the descriptors `@yearly`/`@annually`,
  `@monthly`, `@weekly`, `@daily`/`@midnight`, `@hourly`, `@every <Go duration>`, and
  `@date YYYY-MM-DD hh:mm:ss`. As in the fork, `@date` keeps month, day and time of day
  and drops the year: it fires on that date every year (only within the five-year
  search), so a past date fires again next year.
- "standard": robfig/cron v3's `ParseStandard` (KEDA's cron trigger, Crane, Kapacity):
  exactly five fields `min hour dom month dow` (seconds are 0), an optional
  `CRON_TZ=<zone> ` or `TZ=<zone> ` prefix, and the same descriptors except `@date`.

Errors are `CronError`s naming the field, worded as the library words them. One
deliberate difference: where the Go code panics (a `TZ=` prefix with nothing after it)
podscale reports an error. Builds `podscale.cron.schedule.Schedule`s with
`podscale.cron.fields`; durations come from `podscale.cron.gotime`.
"""

from __future__ import annotations

import re
from typing import NoReturn
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from podscale.cron import gotime
from podscale.cron.errors import CronError
from podscale.cron.fields import (
    DAYS_OF_MONTH,
    DAYS_OF_WEEK,
    FIELDS,
    HOURS,
    MONTHS,
    Dialect,
    bits,
    every,
    parse_field,
)
from podscale.cron.schedule import Schedule

# Go's strings.Fields splits on unicode.IsSpace, a narrower set than str.split().
_GO_SPACE = re.compile("[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_SECOND_NS = 1_000_000_000


def parse(spec: str, dialect: Dialect) -> Schedule:
    """Parse `spec`; raise `CronError` (its `field` names the part at fault)."""
    if dialect not in ("cronhpa", "standard"):
        raise CronError("dialect", f"unknown cron dialect {dialect!r}")
    if not spec:
        return _fail("spec", dialect, "empty spec string")
    zone_name = None
    text = spec
    if dialect == "standard" and text.startswith(("TZ=", "CRON_TZ=")):
        zone_name, text = _split_zone(text)
    if text.startswith("@"):
        return _parse_descriptor(spec, text, dialect, zone_name)
    parts = [part for part in _GO_SPACE.split(text) if part]
    if dialect == "standard":
        if len(parts) != 5:
            shown = "[" + " ".join(parts) + "]"
            return _fail("spec", dialect, f"expected exactly 5 fields, found {len(parts)}: {shown}")
        parts = ["0", *parts]
    else:
        if len(parts) not in (5, 6):
            return _fail("spec", dialect, f"expected 5 to 6 fields, found {len(parts)}: {spec}")
        if len(parts) == 5:
            parts.append("*")
    values = [
        parse_field(part, bounds, dialect) for part, bounds in zip(parts, FIELDS, strict=True)
    ]
    return _fields(spec, dialect, values, zone_name)


def _fields(spec: str, dialect: Dialect, values: list[int], zone_name: str | None) -> Schedule:
    second, minute, hour, day_of_month, month, day_of_week = values
    return Schedule(
        spec,
        dialect,
        "fields",
        second=second,
        minute=minute,
        hour=hour,
        day_of_month=day_of_month,
        month=month,
        day_of_week=day_of_week,
        zone_name=zone_name,
    )


def _fail(field: str, dialect: Dialect, text: str) -> NoReturn:
    raise CronError(field, text[0].upper() + text[1:] if dialect == "cronhpa" else text)


def _split_zone(text: str) -> tuple[str, str]:
    space = text.find(" ")
    name = text[text.find("=") + 1 : space] if space >= 0 else ""
    if space < 0 or not name:
        raise CronError("timezone", f"provided bad location {name}: unknown time zone {name}")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise CronError(
            "timezone", f"provided bad location {name}: unknown time zone {name}"
        ) from None
    return name, text[space:].strip()


def _parse_descriptor(spec: str, text: str, dialect: Dialect, zone_name: str | None) -> Schedule:
    one = {b.name: bits(b.low, b.low) for b in FIELDS}
    star = {b.name: every(b) for b in FIELDS}

    def fields(*starred: str) -> Schedule:
        chosen = [star[b.name] if b.name in starred else one[b.name] for b in FIELDS]
        return _fields(spec, dialect, chosen, zone_name)

    if text in ("@yearly", "@annually"):
        return fields(DAYS_OF_WEEK.name)
    if text == "@monthly":
        return fields(MONTHS.name, DAYS_OF_WEEK.name)
    if text == "@weekly":
        return fields(DAYS_OF_MONTH.name, MONTHS.name)
    if text in ("@daily", "@midnight"):
        return fields(DAYS_OF_MONTH.name, MONTHS.name, DAYS_OF_WEEK.name)
    if text == "@hourly":
        return fields(HOURS.name, DAYS_OF_MONTH.name, MONTHS.name, DAYS_OF_WEEK.name)
    if text.startswith("@every "):
        try:
            nanos = gotime.parse_duration(text[len("@every ") :], "@every")
        except CronError as err:
            _fail("@every", dialect, f"failed to parse duration {text}: {err.message}")
        # robfig's Every: below a second counts as a second; the rest truncates to seconds.
        delay = max(nanos, _SECOND_NS) // _SECOND_NS
        return Schedule(spec, dialect, "every", delay_seconds=delay, zone_name=zone_name)
    if dialect == "cronhpa" and text.startswith("@date "):
        month, day, hour, minute, second = _parse_date(text[len("@date ") :], text)
        exact = [bits(v, v) for v in (second, minute, hour, day, month)]
        return _fields(spec, dialect, [*exact, every(DAYS_OF_WEEK)], None)
    return _fail("descriptor", dialect, f"unrecognized descriptor: {text}")


_LAYOUT = "2006-01-02 15:04:05"
# Go's time.Parse with that layout: four-digit year, two-digit month, day, minute and
# second, a one- or two-digit hour, runs of spaces for the one space, and an optional
# fraction after the seconds.
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2}) +(\d{1,2}):(\d{2}):(\d{2})(?:[.,]\d+)?")
_DAYS_IN = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _parse_date(value: str, descriptor: str) -> tuple[int, int, int, int, int]:
    def fail(reason: str) -> CronError:
        return CronError("@date", f"Failed to parse date {descriptor}: {reason}")

    quoted = gotime.go_quote(value)
    found = _DATE.match(value)
    if found is None:
        raise fail(f"parsing time {quoted} as {gotime.go_quote(_LAYOUT)}: cannot parse")
    if found.end() != len(value):
        rest = gotime.go_quote(value[found.end() :])
        raise fail(f"parsing time {quoted}: extra text: {rest}")
    year, month, day, hour, minute, second = (int(g) for g in found.groups()[:6])
    for name, number, low, high in (
        ("month", month, 1, 12),
        ("day", day, 1, 31),
        ("hour", hour, 0, 23),
        ("minute", minute, 0, 59),
        ("second", second, 0, 59),
    ):
        if not low <= number <= high:
            raise fail(f"parsing time {quoted}: {name} out of range")
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if day > _DAYS_IN[month - 1] or (month == 2 and day == 29 and not leap):
        raise fail(f"parsing time {quoted}: day out of range")
    return month, day, hour, minute, second
