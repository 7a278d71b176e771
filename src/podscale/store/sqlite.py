"""The SQLite backend: the embedded, durable default (``engine.VersionedStore`` on a file).

Layout: ``objects`` (current state), ``events`` (the last ``history`` changes, so watches
resume across restarts) and ``meta`` (the revision). Each write is one transaction holding
the object change, its event and the new revision, committed before the call returns:

- ``synchronous="NORMAL"`` (default): WAL commits reach the OS before returning, so every
  acknowledged write survives ``kill -9`` of the process; a power loss may drop the last
  few commits (never corrupting the file).
- ``synchronous="FULL"``: the WAL is fsynced on every commit; writes also survive power
  loss, at the cost of one fsync per write.

Files are private: the directory is created 0700 when missing and refused when
world-writable; the database is created 0600 and SQLite gives its ``-wal``/``-shm`` files
the same mode. The file is locked exclusively while open (a second process gets a
``BackendError``), which also means WAL runs without a ``-shm`` file. sqlite3 failures
become ``errors.BackendError`` with a message naming only the SQLite error code, never SQL
text.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from podscale.store.committed import LoadedState, new_uid
from podscale.store.engine import VersionedStore
from podscale.store.errors import BackendError
from podscale.store.interface import Clock, EventType
from podscale.store.records import EventRecord

__all__ = ["SqliteStore", "prepare_database_file"]

Synchronous = Literal["NORMAL", "FULL"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS objects (resource TEXT NOT NULL, namespace TEXT NOT NULL,"
    " name TEXT NOT NULL, revision INTEGER NOT NULL, data BLOB NOT NULL,"
    " PRIMARY KEY (resource, namespace, name)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS events (revision INTEGER PRIMARY KEY, type TEXT NOT NULL,"
    " resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, data BLOB NOT NULL)",
    "INSERT OR IGNORE INTO meta (key, value) VALUES ('revision', 0)",
)


def _backend_error(err: sqlite3.Error, action: str) -> BackendError:
    code = getattr(err, "sqlite_errorname", None) or type(err).__name__
    if code.startswith("SQLITE_BUSY"):
        code += " (the database is in use by another process)"
    return BackendError(f"storage backend failure while {action}: {code}")


def prepare_database_file(path: Path) -> None:
    """Create the data directory (0700) and an empty database file (0600) if missing;
    refuse a world-writable directory."""
    directory = path.parent
    if not directory.exists():
        directory.mkdir(mode=0o700, parents=True)
        directory.chmod(0o700)
    mode = directory.stat().st_mode
    if mode & stat.S_IWOTH:
        raise BackendError(
            f"refusing to store data in world-writable directory {directory}: "
            "use a directory only you can write to"
        )
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        path.chmod(0o600)


class _SqlitePersistence:
    def __init__(self, path: Path, *, history: int, synchronous: Synchronous) -> None:
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError(f"synchronous must be NORMAL or FULL, not {synchronous!r}")
        self._history = history
        try:
            prepare_database_file(path)
        except OSError as err:
            raise BackendError(f"cannot create the database file {path}: {err.strerror}") from err
        try:
            # Short busy timeout: with the exclusive lock, waiting never helps for long.
            self._db = sqlite3.connect(
                path, timeout=1.0, isolation_level=None, check_same_thread=False
            )
            # One process owns the file: a second server would fork the revision history.
            self._db.execute("PRAGMA locking_mode=EXCLUSIVE")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            for statement in _SCHEMA:
                self._db.execute(statement)
        except sqlite3.Error as err:
            raise _backend_error(err, "opening the database") from err

    def load(self) -> LoadedState:
        try:
            db = self._db
            (revision,) = db.execute("SELECT value FROM meta WHERE key='revision'").fetchone()
            current = [
                EventRecord("ADDED", resource, namespace, name, rev, bytes(data))
                for resource, namespace, name, rev, data in db.execute(
                    "SELECT resource, namespace, name, revision, data FROM objects"
                )
            ]
            rows = db.execute(
                "SELECT revision, type, resource, namespace, name, data FROM events"
                " WHERE revision > ? ORDER BY revision",
                (revision - self._history,),
            ).fetchall()
        except sqlite3.Error as err:
            raise _backend_error(err, "loading the database") from err
        events = _with_previous_states(rows)
        floor = events[0].revision - 1 if events else revision
        return LoadedState(revision=revision, objects=current, events=events, floor=floor)

    def commit(self, record: EventRecord) -> None:
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                key = (record.resource, record.namespace, record.name)
                if record.type == "DELETED":
                    db.execute(
                        "DELETE FROM objects WHERE resource=? AND namespace=? AND name=?", key
                    )
                else:
                    db.execute(
                        "INSERT OR REPLACE INTO objects (resource, namespace, name, revision, data)"
                        " VALUES (?, ?, ?, ?, ?)",
                        (*key, record.revision, record.data),
                    )
                db.execute(
                    "INSERT INTO events (revision, type, resource, namespace, name, data)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (record.revision, record.type, *key, record.data),
                )
                db.execute("UPDATE meta SET value=? WHERE key='revision'", (record.revision,))
                db.execute(
                    "DELETE FROM events WHERE revision <= ?", (record.revision - self._history,)
                )
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as err:
            raise _backend_error(err, "writing") from err

    def close(self) -> None:
        try:
            self._db.close()
        except sqlite3.Error as err:
            raise _backend_error(err, "closing the database") from err


def _with_previous_states(rows: list[tuple[int, str, str, str, str, bytes]]) -> list[EventRecord]:
    """Events from disk, each with the state it replaced when the kept history shows it
    (an ADDED replaced nothing; otherwise the key's previous kept event, if any)."""
    last: dict[tuple[str, str, str], bytes | None] = {}
    events: list[EventRecord] = []
    for revision, kind, resource, namespace, name, raw in rows:
        event_type = _event_type(kind)
        key = (resource, namespace, name)
        known = event_type == "ADDED" or key in last
        previous = last.get(key) if event_type != "ADDED" else None
        data = bytes(raw)
        events.append(
            EventRecord(event_type, resource, namespace, name, revision, data, previous, known)
        )
        last[key] = None if event_type == "DELETED" else data
    return events


def _event_type(kind: str) -> EventType:
    if kind == "ADDED":
        return "ADDED"
    if kind == "MODIFIED":
        return "MODIFIED"
    if kind == "DELETED":
        return "DELETED"
    raise BackendError("storage backend failure while loading the database: corrupt event")


class SqliteStore(VersionedStore):
    """``interface.Store`` persisted in the SQLite file ``path`` (see the module doc for
    the durability of each ``synchronous`` mode). Opening an existing file restores the
    objects, the revision and the watch history."""

    def __init__(
        self,
        path: Path,
        clock: Clock,
        *,
        history: int = 10_000,
        synchronous: Synchronous = "NORMAL",
        watch_buffer: int = 10_000,
        new_uid: Callable[[], str] = new_uid,
    ) -> None:
        if history < 1:
            raise ValueError("history must be at least 1")
        persistence = _SqlitePersistence(Path(path), history=history, synchronous=synchronous)
        try:
            super().__init__(
                persistence, clock, history=history, watch_buffer=watch_buffer, new_uid=new_uid
            )
        except BaseException:
            persistence.close()
            raise
