"""SqliteHistory: the memory store's answers, kept across reopen, downsampled and expired on
the injected clock, and left whole by a write that fails half way."""

from __future__ import annotations

import math
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from podscale.history import Point, SeriesKey
from podscale.history.sqlite import SqliteHistory
from podscale.testing.clock import FakeClock

T0 = datetime(2026, 3, 1, tzinfo=UTC)
KEY = SeriesKey("default", "Deployment", "web", "cpu_usage")
MIN = timedelta(minutes=1)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def _at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def _open(path: Path, clock: FakeClock, **retention: timedelta) -> SqliteHistory:
    return SqliteHistory(path / "history.db", clock, **retention)


@pytest.mark.parametrize(
    ("written", "step", "expected"),
    [
        ([(0, 1.0), (1, 3.0)], MIN, [(0, 1.0), (1, 3.0)]),
        ([(0, 1.0), (0.5, 7.0)], MIN, [(0, 7.0)]),
        ([(0, 1.0), (1, 3.0), (2, 5.0)], 2 * MIN, [(0, 2.0), (2, 5.0)]),
        ([(0, 1.0), (9, 2.0)], 3 * MIN, [(0, 1.0), (9, 2.0)]),
        ([(-1, 9.0), (0, 1.0), (10, 2.0)], MIN, [(0, 1.0)]),
        ([(0, 1.0), (1, math.nan)], MIN, [(0, 1.0)]),
    ],
    ids=[
        "one-per-minute",
        "same-minute-last-wins",
        "step-means",
        "empty-steps-absent",
        "start-inclusive-end-exclusive",
        "nan-is-missing",
    ],
)
def test_read(
    tmp_path: Path,
    written: list[tuple[float, float]],
    step: timedelta,
    expected: list[tuple[float, float]],
) -> None:
    store = _open(tmp_path, FakeClock(T0))
    store.write(KEY, [Point(_at(m), v) for m, v in written])
    assert store.read(KEY, T0, _at(10), step) == [Point(_at(m), v) for m, v in expected]


def test_everything_survives_reopen(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    store = _open(tmp_path, clock)
    store.write(KEY, [Point(_at(0), 1.5), Point(_at(1), 2.5)])
    store.put_state("uid-1", "hpa/history", {"recommendations": [1, 2]})
    store.close()
    again = _open(tmp_path, clock)
    assert again.read(KEY, T0, _at(2), MIN) == [Point(_at(0), 1.5), Point(_at(1), 2.5)]
    assert again.keys() == [KEY]
    assert again.get_state("uid-1", "hpa/history") == {"recommendations": [1, 2]}
    assert sqlite3.connect(tmp_path / "history.db").execute("PRAGMA journal_mode").fetchone() == (
        "wal",
    )


def test_downsampling_keeps_hour_means_and_expires_them(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    store = _open(tmp_path, clock, raw_retention=DAY, rollup_retention=3 * DAY)
    # Two hours of minutes: the first hour 0..59 (mean 29.5), the second all 100.
    store.write(KEY, [Point(_at(m), float(m)) for m in range(60)])
    store.write(KEY, [Point(_at(m), 100.0) for m in range(60, 120)])
    clock.advance(DAY + 3 * HOUR)
    store.write(KEY, [Point(clock.now(), 7.0)])  # the write runs the retention pass
    window = (T0, T0 + 2 * HOUR)
    assert store.read(KEY, *window, HOUR) == [Point(T0, 29.5), Point(T0 + HOUR, 100.0)]
    # Finer steps see each hour's mean in every step the hour covers.
    assert store.read(KEY, *window, 30 * MIN)[:2] == [Point(T0, 29.5), Point(_at(30), 29.5)]
    # A step spanning both hours: the mean of every minute, as before downsampling.
    assert store.read(KEY, *window, 2 * HOUR) == [Point(T0, (29.5 + 100) / 2)]
    raw = sqlite3.connect(tmp_path / "history.db").execute("SELECT COUNT(*) FROM points")
    assert raw.fetchone() == (1,)
    clock.advance(3 * DAY)
    store.write(KEY, [])
    assert store.read(KEY, *window, HOUR) == []
    assert store.keys() == [KEY]  # the newest point is still within the rollup retention


def test_retention_runs_at_most_hourly_on_the_clock(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    store = _open(tmp_path, clock, raw_retention=HOUR, rollup_retention=2 * HOUR)
    store.write(KEY, [Point(_at(0), 1.0)])  # the first write runs a pass
    clock.advance(30 * MIN)
    old = SeriesKey("default", "Deployment", "web", "memory_usage")
    store.write(old, [Point(T0 - 5 * HOUR, 1.0)])  # beyond retention, but no pass is due
    assert store.keys() == [KEY, old]
    clock.advance(30 * MIN)
    store.write(KEY, [])
    assert store.keys() == [KEY]
    assert store.read(KEY, T0, _at(1), MIN) == [Point(T0, 1.0)]
    clock.advance(3 * HOUR)
    store.write(KEY, [])
    assert store.keys() == []


def test_a_failed_write_leaves_the_previous_state(tmp_path: Path) -> None:
    store = _open(tmp_path, FakeClock(T0))
    store.write(KEY, [Point(_at(0), 1.0)])

    def points() -> object:
        yield Point(_at(1), 2.0)
        raise RuntimeError("writer died")

    with pytest.raises(RuntimeError):
        store.write(KEY, points())  # type: ignore[arg-type]
    failing = SeriesKey("default", "Deployment", "other", "cpu_usage")
    with pytest.raises(TypeError):
        store.write(failing, [Point(_at(0), 1.0), Point(_at(1), "x")])  # type: ignore[arg-type]
    assert store.keys() == [KEY]
    assert store.read(KEY, T0, _at(5), MIN) == [Point(_at(0), 1.0)]


def test_state_documents(tmp_path: Path) -> None:
    store = _open(tmp_path, FakeClock(T0))
    store.put_state("u1", "hpa/history", {"a": 1})
    store.put_state("u1", "hpa/last-decision", {"b": "é"})
    store.put_state("u1", "hpa/history", {"a": 2})
    store.put_state("u2", "hpa/history", {"c": 3})
    assert store.state_of("u1") == {"hpa/history": {"a": 2}, "hpa/last-decision": {"b": "é"}}
    store.delete_state("u1")
    assert store.get_state("u1", "hpa/history") is None
    assert store.state_of("u1") == {}
    assert store.get_state("u2", "hpa/history") == {"c": 3}


@pytest.mark.parametrize(
    "retention",
    [{"raw_retention": MIN}, {"raw_retention": DAY, "rollup_retention": HOUR}],
    ids=["raw-under-an-hour", "rollups-shorter-than-raw"],
)
def test_refuses_retention_it_cannot_keep(tmp_path: Path, retention: dict[str, timedelta]) -> None:
    with pytest.raises(ValueError, match="retention"):
        _open(tmp_path, FakeClock(T0), **retention)
