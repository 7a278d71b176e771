"""`fires_at` and the KEDA and Kapacity window rules at the exact boundary seconds."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from podscale.cron import fires_at, parse, window_active_kapacity, window_active_keda

UTC = ZoneInfo("UTC")
BERLIN = ZoneInfo("Europe/Berlin")


def utc(*fields: int) -> dt.datetime:
    return dt.datetime(*fields, tzinfo=dt.UTC)  # type: ignore[misc]


DAY_START = parse("0 6 * * *", "standard")
DAY_END = parse("0 20 * * *", "standard")
NIGHT_START = parse("0 22 * * *", "standard")
NEVER = parse("0 0 30 2 *", "standard")

WINDOW_CASES = [
    # (id, start, end, now, keda, kapacity)
    ("before-start", DAY_START, DAY_END, utc(2026, 5, 4, 5, 59, 59), False, False),
    ("at-start", DAY_START, DAY_END, utc(2026, 5, 4, 6), True, True),
    ("just-after-start", DAY_START, DAY_END, utc(2026, 5, 4, 6, 0, 0, 500000), True, True),
    ("last-second", DAY_START, DAY_END, utc(2026, 5, 4, 19, 59, 59), True, True),
    ("at-end", DAY_START, DAY_END, utc(2026, 5, 4, 20), False, False),
    ("after-end", DAY_START, DAY_END, utc(2026, 5, 4, 23), False, False),
    ("overnight-inside", NIGHT_START, DAY_START, utc(2026, 5, 4, 23), True, True),
    ("overnight-at-start", NIGHT_START, DAY_START, utc(2026, 5, 4, 22), True, True),
    ("overnight-at-end", NIGHT_START, DAY_START, utc(2026, 5, 5, 6), False, False),
    # Start and end fire together: the next start equals the next end.
    ("equal-instants", DAY_START, DAY_START, utc(2026, 5, 4, 12), True, False),
    # A schedule that never fires is Go's zero time, before every real time.
    ("start-never", NEVER, DAY_END, utc(2026, 5, 4, 12), True, False),
    ("end-never", DAY_START, NEVER, utc(2026, 5, 4, 12), False, True),
    ("both-never", NEVER, NEVER, utc(2026, 5, 4, 12), False, False),
]


@pytest.mark.parametrize(
    ("start", "end", "now", "keda", "kapacity"),
    [c[1:] for c in WINDOW_CASES],
    ids=[c[0] for c in WINDOW_CASES],
)
def test_window_rules(
    start: object, end: object, now: dt.datetime, keda: bool, kapacity: bool
) -> None:
    assert window_active_keda(start, end, now, UTC) is keda  # type: ignore[arg-type]
    assert window_active_kapacity(start, end, now, UTC) is kapacity  # type: ignore[arg-type]


def test_window_reads_the_zone() -> None:
    # 06:00 in Berlin (CEST, +02) is 04:00 UTC.
    assert not window_active_keda(DAY_START, DAY_END, utc(2026, 5, 4, 3, 59, 59), BERLIN)
    assert window_active_keda(DAY_START, DAY_END, utc(2026, 5, 4, 4), BERLIN)
    assert not window_active_kapacity(DAY_START, DAY_END, utc(2026, 5, 4, 18), BERLIN)


FIRES_CASES = [
    ("on-time", "0 6 * * *", "standard", UTC, utc(2026, 5, 4, 6), True),
    ("second-late", "0 6 * * *", "standard", UTC, utc(2026, 5, 4, 6, 0, 1), False),
    ("second-early", "0 6 * * *", "standard", UTC, utc(2026, 5, 4, 5, 59, 59), False),
    ("fraction", "0 6 * * *", "standard", UTC, utc(2026, 5, 4, 6, 0, 0, 1), False),
    ("seconds-field", "30 0 6 * * *", "cronhpa", UTC, utc(2026, 5, 4, 6, 0, 30), True),
    ("fall-first", "30 2 * * *", "standard", BERLIN, utc(2026, 10, 25, 0, 30), True),
    ("fall-second", "30 2 * * *", "standard", BERLIN, utc(2026, 10, 25, 1, 30), True),
    ("spring-before", "30 2 * * *", "standard", BERLIN, utc(2026, 3, 29, 0, 30), False),
    ("spring-after", "30 2 * * *", "standard", BERLIN, utc(2026, 3, 29, 1, 30), False),
    ("every-second", "@every 1s", "cronhpa", UTC, utc(2026, 5, 4, 6, 7, 8), True),
    ("every-ten-seconds", "@every 10s", "cronhpa", UTC, utc(2026, 5, 4, 6, 7, 10), False),
    ("date", "@date 2026-05-04 06:00:00", "cronhpa", UTC, utc(2026, 5, 4, 6), True),
]


@pytest.mark.parametrize(
    ("spec", "dialect", "zone", "instant", "expected"),
    [c[1:] for c in FIRES_CASES],
    ids=[c[0] for c in FIRES_CASES],
)
def test_fires_at(
    spec: str, dialect: str, zone: ZoneInfo, instant: dt.datetime, expected: bool
) -> None:
    assert fires_at(parse(spec, dialect), instant, zone) is expected  # type: ignore[arg-type]
