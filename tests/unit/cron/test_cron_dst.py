"""Daylight saving time as the go cron libraries step it: skipped wall times do not fire,
repeated ones fire twice; midnight moved by DST differs between the two dialects."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from podscale.cron import parse
from podscale.cron.gotime import date, wall

BERLIN = ZoneInfo("Europe/Berlin")  # 2026: CET->CEST 03-29 01:00Z, CEST->CET 10-25 01:00Z
NEW_YORK = ZoneInfo("America/New_York")  # 2026: EST->EDT 03-08 07:00Z, EDT->EST 11-01 06:00Z
BEIRUT = ZoneInfo("Asia/Beirut")  # 2026-03-29: midnight (+02) becomes 01:00 (+03)


def utc(*fields: int) -> dt.datetime:
    return dt.datetime(*fields, tzinfo=dt.UTC)  # type: ignore[misc]


def fire_times(
    spec: str, dialect: str, zone: ZoneInfo, after: dt.datetime, count: int
) -> list[dt.datetime]:
    schedule = parse(spec, dialect)  # type: ignore[arg-type]
    times: list[dt.datetime] = []
    for _ in range(count):
        found = schedule.next_after(after, zone)
        assert found is not None
        times.append(found)
        after = found
    return times


# (id, zone, standard spec, after, expected UTC fire times); each is also checked in the
# cronhpa dialect with a seconds field of 0 (the two agree away from midnight).
CASES = [
    (
        "berlin-spring-skips-0230",
        BERLIN,
        "30 2 * * *",
        utc(2026, 3, 28, 12),
        [utc(2026, 3, 30, 0, 30), utc(2026, 3, 31, 0, 30)],
    ),
    (
        "berlin-spring-0300-exists",
        BERLIN,
        "0 3 * * *",
        utc(2026, 3, 28, 12),
        [utc(2026, 3, 29, 1), utc(2026, 3, 30, 1)],
    ),
    (
        "berlin-spring-hourly",
        BERLIN,
        "0 * * * *",
        utc(2026, 3, 29, 0, 30),
        [utc(2026, 3, 29, 1), utc(2026, 3, 29, 2)],
    ),
    (
        "berlin-fall-0230-twice",
        BERLIN,
        "30 2 * * *",
        utc(2026, 10, 24, 12),
        [utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 1, 30), utc(2026, 10, 26, 1, 30)],
    ),
    (
        "berlin-fall-hourly",
        BERLIN,
        "0 * * * *",
        utc(2026, 10, 25, 0, 30),
        [utc(2026, 10, 25, 1), utc(2026, 10, 25, 2)],
    ),
    (
        "new-york-spring-skips-0230",
        NEW_YORK,
        "30 2 * * *",
        utc(2026, 3, 7, 12),
        [utc(2026, 3, 9, 6, 30)],
    ),
    (
        "new-york-fall-0130-twice",
        NEW_YORK,
        "30 1 * * *",
        utc(2026, 10, 31, 12),
        [utc(2026, 11, 1, 5, 30), utc(2026, 11, 1, 6, 30), utc(2026, 11, 2, 6, 30)],
    ),
    (
        "new-york-fall-half-hours",
        NEW_YORK,
        "*/30 * * * *",
        utc(2026, 11, 1, 5),
        [utc(2026, 11, 1, 5, 30), utc(2026, 11, 1, 6), utc(2026, 11, 1, 6, 30)],
    ),
]


@pytest.mark.parametrize(
    ("zone", "spec", "after", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
@pytest.mark.parametrize("dialect", ["standard", "cronhpa"])
def test_dst_fire_times(
    dialect: str, zone: ZoneInfo, spec: str, after: dt.datetime, expected: list[dt.datetime]
) -> None:
    text = spec if dialect == "standard" else f"0 {spec}"
    assert fire_times(text, dialect, zone, after, len(expected)) == expected


def test_midnight_moved_by_dst_differs_between_dialects() -> None:
    # Beirut skips midnight on Sunday 2026-03-29. Searching day by day from Saturday
    # lands on 01:00; robfig/cron v3 pulls that back an hour and then forward to Monday
    # 00:00, the fork's older code keeps 01:00, so it misses Monday 00:00 and fires a
    # week later.
    after = utc(2026, 3, 22, 22)  # Monday 2026-03-23 00:00 +02
    standard = fire_times("0 0 * * mon", "standard", BEIRUT, after, 1)
    cronhpa = fire_times("0 0 0 * * mon", "cronhpa", BEIRUT, after, 1)
    assert standard == [utc(2026, 3, 29, 21)]  # Monday 2026-03-30 00:00 +03
    assert cronhpa == [utc(2026, 4, 5, 21)]  # Monday 2026-04-06 00:00 +03


@pytest.mark.parametrize(
    ("zone", "wall_time", "expected"),
    [
        # Go's time.Date: east of UTC an overlap takes the later instant, west the earlier;
        # a gap moves forward east of UTC and backward west of it.
        (BERLIN, (2026, 10, 25, 2, 30, 0), utc(2026, 10, 25, 1, 30)),
        (NEW_YORK, (2026, 11, 1, 1, 30, 0), utc(2026, 11, 1, 5, 30)),
        (BERLIN, (2026, 3, 29, 2, 30, 0), utc(2026, 3, 29, 1, 30)),
        (NEW_YORK, (2026, 3, 8, 2, 30, 0), utc(2026, 3, 8, 6, 30)),
        (BERLIN, (2026, 13, 32, 25, 0, 0), utc(2027, 2, 2, 0)),  # fields carry over
    ],
    ids=["overlap-east", "overlap-west", "gap-east", "gap-west", "carry"],
)
def test_go_date_resolution(
    zone: ZoneInfo, wall_time: tuple[int, int, int, int, int, int], expected: dt.datetime
) -> None:
    unix = date(*wall_time, zone)
    assert dt.datetime.fromtimestamp(unix, dt.UTC) == expected
    assert wall(unix, zone).year == expected.astimezone(zone).year
