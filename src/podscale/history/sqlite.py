"""``SqliteHistory``: both history protocols in one SQLite file (``podscale up``'s ``history.db``).

Three tables: ``series`` (a ``SeriesKey`` per row, its integer id used elsewhere),
``points`` (one value per series per minute; a later write to the same minute replaces
it) and ``rollups`` (per series per hour the sum and count of the minutes downsampled into
it, so a mean over several hours stays exact), plus ``state`` (``StateStore``'s JSON
documents by uid and name).

Retention runs on the injected clock, never the wall clock: at most once per clock hour, a
write first moves every whole hour of points older than ``raw_retention`` into
``rollups`` and drops rollups older than ``rollup_retention`` (and series left empty).
A point written after its hour was rolled up is added to that hour's rollup at the next
pass (rather than replacing a minute it may repeat): writers do not go back that far.

Reads bucket like ``podscale.history.memory`` (same arithmetic, so both answer a read of
raw points identically, a property ``tests/unit/history`` checks); where the minutes are
gone, a rollup hour counts in every step it overlaps, weighted by its count and the share
of the hour the step covers, so a read at any step sees hour means there.

Durable: WAL journal, every write one transaction (a crash mid-write leaves the previous
state). NaN values are skipped (missing is absent, as a read reports it). One connection
behind a lock, so a server thread may read while the event loop writes.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final

import orjson

from podscale.history.memory import RESOLUTION, _minute
from podscale.history.types import Point, SeriesKey
from podscale.store.interface import Clock

__all__ = ["DEFAULT_RAW_RETENTION", "DEFAULT_ROLLUP_RETENTION", "SqliteHistory"]

JSON = dict[str, Any]
DEFAULT_RAW_RETENTION: Final = timedelta(days=15)
DEFAULT_ROLLUP_RETENTION: Final = timedelta(days=90)
_HOUR: Final = 60  # minutes
# How often (clock time) a write runs the retention pass.
_MAINTENANCE_EVERY: Final = timedelta(hours=1)

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS series (
    id INTEGER PRIMARY KEY,
    namespace TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, series TEXT NOT NULL,
    UNIQUE (namespace, kind, name, series)
);
CREATE TABLE IF NOT EXISTS points (
    series INTEGER NOT NULL, minute INTEGER NOT NULL, value REAL NOT NULL,
    PRIMARY KEY (series, minute)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rollups (
    series INTEGER NOT NULL, hour INTEGER NOT NULL, total REAL NOT NULL, count INTEGER NOT NULL,
    PRIMARY KEY (series, hour)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS state (
    uid TEXT NOT NULL, name TEXT NOT NULL, document TEXT NOT NULL,
    PRIMARY KEY (uid, name)
) WITHOUT ROWID;
"""


class SqliteHistory:
    """A durable ``HistoryStore``; see the module docstring."""

    def __init__(
        self,
        path: str | Path,
        clock: Clock,
        *,
        raw_retention: timedelta = DEFAULT_RAW_RETENTION,
        rollup_retention: timedelta = DEFAULT_ROLLUP_RETENTION,
    ) -> None:
        if raw_retention < timedelta(hours=1) or rollup_retention < raw_retention:
            raise ValueError(
                "raw retention must be at least an hour and rollup retention at least as long"
            )
        self._clock = clock
        self.raw_retention = raw_retention
        self.rollup_retention = rollup_retention
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a crash of the process loses nothing committed; only a power loss
        # may lose the last transactions, never corrupt the file.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._ids: dict[SeriesKey, int] = {}
        self._maintained: datetime | None = None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # -- series -----------------------------------------------------------------------

    def _series_id(self, db: sqlite3.Connection, key: SeriesKey, *, create: bool) -> int | None:
        known = self._ids.get(key)
        if known is not None:
            return known
        fields = (key.namespace, key.kind, key.name, key.series)
        row = db.execute(
            "SELECT id FROM series WHERE namespace=? AND kind=? AND name=? AND series=?", fields
        ).fetchone()
        if row is None:
            if not create:
                return None
            row = db.execute(
                "INSERT INTO series (namespace, kind, name, series) VALUES (?, ?, ?, ?) "
                "RETURNING id",
                fields,
            ).fetchone()
        self._ids[key] = int(row[0])
        return self._ids[key]

    def write(self, key: SeriesKey, points: Iterable[Point]) -> None:
        rows = [(_minute(at), float(value)) for at, value in points if not math.isnan(value)]
        now = self._clock.now()
        due = self._maintained is None or now - self._maintained >= _MAINTENANCE_EVERY
        if not rows and not due:
            return
        try:
            with self._transaction() as db:
                if rows:
                    series = self._series_id(db, key, create=True)
                    db.executemany(
                        "INSERT INTO points (series, minute, value) VALUES (?, ?, ?) "
                        "ON CONFLICT (series, minute) DO UPDATE SET value = excluded.value",
                        [(series, minute, value) for minute, value in rows],
                    )
                if due:
                    self._maintain(db, now)
        except BaseException:
            self._ids.clear()  # an id created in the rolled-back transaction is gone
            raise
        if due:
            self._maintained = now

    def maintain(self) -> None:
        """Run the retention pass now (writes run it themselves, at most hourly)."""
        now = self._clock.now()
        try:
            with self._transaction() as db:
                self._maintain(db, now)
        finally:
            self._ids.clear()
        self._maintained = now

    def _maintain(self, db: sqlite3.Connection, now: datetime) -> None:
        # Whole hours only, so an hour is never split between points and a rollup.
        raw_cutoff = _minute(now - self.raw_retention) // _HOUR * _HOUR
        db.execute(
            "INSERT INTO rollups (series, hour, total, count) "
            "SELECT series, minute / ?, SUM(value), COUNT(*) FROM points WHERE minute < ? "
            "GROUP BY series, minute / ? "
            "ON CONFLICT (series, hour) DO UPDATE "
            "SET total = total + excluded.total, count = count + excluded.count",
            (_HOUR, raw_cutoff, _HOUR),
        )
        db.execute("DELETE FROM points WHERE minute < ?", (raw_cutoff,))
        rollup_cutoff = _minute(now - self.rollup_retention) // _HOUR
        db.execute("DELETE FROM rollups WHERE hour < ?", (rollup_cutoff,))
        removed = db.execute(
            "DELETE FROM series WHERE id NOT IN (SELECT series FROM points) "
            "AND id NOT IN (SELECT series FROM rollups)"
        ).rowcount
        if removed:
            self._ids.clear()

    def read(
        self, key: SeriesKey, start: datetime, end: datetime, step: timedelta
    ) -> Sequence[Point]:
        if step < RESOLUTION or step % RESOLUTION:
            raise ValueError(f"step must be a whole number of minutes, got {step}")
        first, last = _minute(start), _minute(end)
        width = step // RESOLUTION
        with self._lock:
            series = self._series_id(self._db, key, create=False)
            if series is None:
                return []
            points = self._db.execute(
                "SELECT minute, value FROM points WHERE series=? AND minute>=? AND minute<? "
                "ORDER BY minute",
                (series, first, last),
            ).fetchall()
            rollups = self._db.execute(
                "SELECT hour, total, count FROM rollups WHERE series=? AND hour>=? AND hour<? "
                "ORDER BY hour",
                (series, first // _HOUR, -(-last // _HOUR)),
            ).fetchall()
        # The same bucketing as MemoryHistory, so raw reads agree to the bit.
        sums: dict[int, list[float]] = {}
        for minute, value in points:
            total = sums.setdefault((minute - first) // width, [0.0, 0.0])
            total[0] += value
            total[1] += 1
        for hour, hour_total, count in rollups:
            _spread(sums, hour * _HOUR, hour_total / count, count, first, last, width)
        return [
            Point(start + bucket * step, total[0] / total[1])
            for bucket, total in sorted(sums.items())
        ]

    def keys(self, namespace: str | None = None) -> Sequence[SeriesKey]:
        query = "SELECT namespace, kind, name, series FROM series"
        with self._lock:
            if namespace is None:
                rows = self._db.execute(query).fetchall()
            else:
                rows = self._db.execute(query + " WHERE namespace=?", (namespace,)).fetchall()
        return sorted(SeriesKey(*row) for row in rows)

    # -- state ------------------------------------------------------------------------

    def get_state(self, uid: str, name: str) -> JSON | None:
        with self._lock:
            row = self._db.execute(
                "SELECT document FROM state WHERE uid=? AND name=?", (uid, name)
            ).fetchone()
        if row is None:
            return None
        document: JSON = orjson.loads(row[0])
        return document

    def put_state(self, uid: str, name: str, document: JSON) -> None:
        text = orjson.dumps(document).decode()
        with self._transaction() as db:
            db.execute(
                "INSERT INTO state (uid, name, document) VALUES (?, ?, ?) "
                "ON CONFLICT (uid, name) DO UPDATE SET document = excluded.document",
                (uid, name, text),
            )

    def delete_state(self, uid: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM state WHERE uid=?", (uid,))

    def state_of(self, uid: str) -> dict[str, JSON]:
        """Every document of ``uid`` by name (what the API server's history path serves)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT name, document FROM state WHERE uid=? ORDER BY name", (uid,)
            ).fetchall()
        return {str(name): orjson.loads(text) for name, text in rows}


def _spread(
    sums: dict[int, list[float]],
    begin: int,
    mean: float,
    count: int,
    first: int,
    last: int,
    width: int,
) -> None:
    """Add the rollup hour starting at minute ``begin`` to each step it overlaps inside
    ``[first, last)``, weighted by its count times the share of the hour in the step."""
    lo, hi = max(begin, first), min(begin + _HOUR, last)
    minute = lo
    while minute < hi:
        bucket = (minute - first) // width
        bucket_end = min(first + (bucket + 1) * width, hi)
        weight = count * (bucket_end - minute) / _HOUR
        total = sums.setdefault(bucket, [0.0, 0.0])
        total[0] += mean * weight
        total[1] += weight
        minute = bucket_end
