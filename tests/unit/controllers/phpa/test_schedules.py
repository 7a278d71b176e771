"""The active ``spec.schedules[]`` window: the minutes a cron expression matches, in its time
zone (daylight saving time as ``podscale.cron`` walks it, docs/cron.md), first window wins."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.phpa.schedules import active_bounds, cron_dialect
from podscale.controllers.phpa.types import Schedule

BUSINESS = Schedule("business", "* 8-19 * * 1-5", "Asia/Shanghai", 5, 30)
BERLIN_DAY = Schedule("day", "* 9-16 * * *", "Europe/Berlin", 3, None)
BERLIN_TWO = Schedule("two", "* 2 * * *", "Europe/Berlin", None, 4)
HOUR_START = Schedule("hour-start", "30 0 * * * *", "UTC", 2, 2)  # cronhpa: second 30, minute 0
PINNED = Schedule("pinned", "CRON_TZ=America/New_York * 9 * * *", "Asia/Tokyo", 1, 1)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("schedules", "now", "expected"),
    [
        # 2026-11-26 is a Thursday; Shanghai is UTC+8 all year.
        ([BUSINESS], at("2026-11-26T00:00"), ("business", 5, 30)),
        ([BUSINESS], at("2026-11-25T23:59:59"), None),
        ([BUSINESS], at("2026-11-26T11:59:30"), ("business", 5, 30)),
        ([BUSINESS], at("2026-11-26T12:00"), None),
        ([BUSINESS], at("2026-11-28T03:00"), None),  # Saturday
        # Berlin: CET (UTC+1) in winter, CEST (UTC+2) in summer.
        ([BERLIN_DAY], at("2026-01-15T15:30"), ("day", 3, None)),  # 16:30 CET
        ([BERLIN_DAY], at("2026-07-15T15:30"), None),  # 17:30 CEST
        ([BERLIN_DAY], at("2026-07-15T07:00"), ("day", 3, None)),  # 09:00 CEST
        ([BERLIN_DAY], at("2026-01-15T07:59"), None),  # 08:59 CET
        # Spring forward (29 March 2026, 02:00 CET -> 03:00 CEST): no 02:xx that day.
        ([BERLIN_TWO], at("2026-03-29T00:59"), None),  # 01:59 CET
        ([BERLIN_TWO], at("2026-03-29T01:00"), None),  # 03:00 CEST
        ([BERLIN_TWO], at("2026-03-28T01:30"), ("two", None, 4)),  # 02:30 CET the day before
        # Fall back (25 October 2026, 03:00 CEST -> 02:00 CET): 02:xx twice, both in.
        ([BERLIN_TWO], at("2026-10-25T00:30"), ("two", None, 4)),  # 02:30 CEST
        ([BERLIN_TWO], at("2026-10-25T01:30"), ("two", None, 4)),  # 02:30 CET
        ([BERLIN_TWO], at("2026-10-25T02:00"), None),  # 03:00 CET
        # Six fields: the minute holding the fire second belongs to the window, whole.
        ([HOUR_START], at("2026-05-01T10:00"), ("hour-start", 2, 2)),
        ([HOUR_START], at("2026-05-01T10:00:59"), ("hour-start", 2, 2)),
        ([HOUR_START], at("2026-05-01T10:01"), None),
        ([HOUR_START], at("2026-05-01T09:59:59"), None),
        # A CRON_TZ prefix names the zone, whatever timeZone says (New York is UTC-5 in Jan).
        ([PINNED], at("2026-01-15T14:30"), ("pinned", 1, 1)),
        ([PINNED], at("2026-01-15T00:30"), None),  # 09:30 in Tokyo
        # Overlapping windows: the first in list order wins.
        ([BERLIN_DAY, BUSINESS], at("2026-11-26T08:00"), ("day", 3, None)),
        ([BUSINESS, BERLIN_DAY], at("2026-11-26T08:00"), ("business", 5, 30)),
        ([BUSINESS, BERLIN_DAY], at("2026-11-26T14:00"), ("day", 3, None)),
        ([], at("2026-11-26T08:00"), None),
        # Windows validation refuses never match: a bad cron, an unknown zone.
        ([Schedule("bad", "61 * * * *"), BUSINESS], at("2026-11-26T00:00"), ("business", 5, 30)),
        ([Schedule("zone", "* * * * *", "Mars/Olympus")], at("2026-11-26T00:00"), None),
        ([Schedule("dir", "* * * * *", "America")], at("2026-11-26T00:00"), None),
        ([Schedule("long", "* * * * *", "a" * 300)], at("2026-11-26T00:00"), None),
    ],
    ids=[
        "shanghai-opens-at-eight",
        "shanghai-before-eight",
        "shanghai-last-minute",
        "shanghai-closed-at-twenty",
        "shanghai-saturday",
        "berlin-winter-in",
        "berlin-summer-same-utc-out",
        "berlin-summer-in",
        "berlin-winter-before",
        "spring-forward-before-gap",
        "spring-forward-after-gap",
        "spring-forward-day-before",
        "fall-back-first-two",
        "fall-back-second-two",
        "fall-back-after",
        "seconds-fire-minute",
        "seconds-same-minute-late",
        "seconds-next-minute",
        "seconds-minute-before",
        "cron-tz-in",
        "cron-tz-beats-time-zone",
        "first-wins",
        "first-wins-reversed",
        "second-when-first-closed",
        "no-windows",
        "bad-cron-skipped",
        "unknown-zone-skipped",
        "zone-directory-skipped",
        "zone-name-too-long-skipped",
    ],
)
def test_active_bounds(
    schedules: list[Schedule],
    now: datetime,
    expected: tuple[str, int | None, int | None] | None,
) -> None:
    assert active_bounds(schedules, now) == expected


def test_an_aware_now_in_any_zone_reads_the_same() -> None:
    from zoneinfo import ZoneInfo

    now = at("2026-11-26T00:00")
    assert active_bounds([BUSINESS], now.astimezone(ZoneInfo("America/Los_Angeles"))) == (
        "business",
        5,
        30,
    )


@pytest.mark.parametrize(
    ("cron", "dialect"),
    [
        ("* 8-19 * * 1-5", "standard"),
        ("0 * 8-19 * * 1-5", "cronhpa"),
        ("CRON_TZ=UTC * 8 * * *", "standard"),
        ("TZ=UTC * 8 * * *", "standard"),
        ("@daily", "standard"),
        ("* * *", "standard"),
    ],
    ids=["five-fields", "six-fields", "cron-tz", "tz", "descriptor", "too-few"],
)
def test_the_dialect_follows_the_field_count(cron: str, dialect: str) -> None:
    assert cron_dialect(cron) == dialect


@given(
    instant=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2060, 1, 1), timezones=st.just(UTC)
    ),
    zone=st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"]),
)
def test_an_every_minute_window_is_always_active_and_wins_over_later_ones(
    instant: datetime, zone: str
) -> None:
    always = Schedule("always", "* * * * *", zone, 1, 2)
    assert active_bounds([always, BUSINESS], instant) == ("always", 1, 2)
