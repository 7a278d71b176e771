"""Invariants of `Schedule.next_after` and `fires_at` over generated specs, instants, zones."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.cron import Schedule, fires_at, parse

# Zones whose transitions are away from midnight, plus UTC and a +05:45 zone. (Where DST
# moves midnight, the fork's older search can skip a week, so there the fire times are not
# monotone in the instant asked from, as in Go; test_cron_dst shows it.)
ZONE_LIST = [
    ZoneInfo(name) for name in ("UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu")
]
ZONES = st.sampled_from(ZONE_LIST)
INSTANTS = st.datetimes(
    min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2040, 1, 1), timezones=st.just(dt.UTC)
)


def _field(values: list[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(["*", "?", *values])


STANDARD = st.tuples(
    _field(["0", "*/15", "5-20/5", "30", "0,45"]),
    _field(["0", "2", "1-3", "*/6", "9-17"]),
    _field(["1", "15", "*/2", "29", "31", "1-7"]),
    _field(["1", "feb", "mar-oct/3", "11,12"]),
    _field(["0", "mon-fri", "sat", "*/2"]),
).map(" ".join)
CRONHPA = st.tuples(st.sampled_from(["0", "*/20", "59"]), STANDARD).map(" ".join)


@st.composite
def schedules(draw: st.DrawFn) -> Schedule:
    if draw(st.booleans()):
        return parse(draw(STANDARD), "standard")
    return parse(draw(CRONHPA), "cronhpa")


@settings(max_examples=150, deadline=None)
@given(schedule=schedules(), instant=INSTANTS, zone=ZONES)
def test_next_is_strictly_after_and_fires(
    schedule: Schedule, instant: dt.datetime, zone: ZoneInfo
) -> None:
    found = schedule.next_after(instant, zone)
    if found is not None:
        assert found > instant
        assert found.microsecond == 0
        assert fires_at(schedule, found, zone)


@settings(max_examples=100, deadline=None)
@given(
    schedule=schedules(),
    instant=INSTANTS,
    later=st.integers(min_value=0, max_value=3 * 86400),
    zone=ZONES,
)
def test_next_is_monotone(
    schedule: Schedule, instant: dt.datetime, later: int, zone: ZoneInfo
) -> None:
    first = schedule.next_after(instant, zone)
    second = schedule.next_after(instant + dt.timedelta(seconds=later), zone)
    if first is not None and second is not None:
        assert first <= second


@settings(max_examples=100, deadline=None)
@given(schedule=schedules(), instant=INSTANTS, zone=ZONES)
def test_nothing_fires_between_instant_and_next(
    schedule: Schedule, instant: dt.datetime, zone: ZoneInfo
) -> None:
    found = schedule.next_after(instant, zone)
    if found is not None and found - instant < dt.timedelta(hours=2):
        second = instant.replace(microsecond=0) + dt.timedelta(seconds=1)
        while second < found:
            assert not fires_at(schedule, second, zone)
            second += dt.timedelta(seconds=1)


@given(instant=INSTANTS, zone=st.sampled_from([ZoneInfo("Australia/Lord_Howe"), *ZONE_LIST]))
def test_every_second_fires_one_second_later(instant: dt.datetime, zone: ZoneInfo) -> None:
    expected = instant.replace(microsecond=0) + dt.timedelta(seconds=1)
    assert parse("* * * * * *", "cronhpa").next_after(instant, zone) == expected
    assert parse("@every 1s", "standard").next_after(instant, zone) == expected
