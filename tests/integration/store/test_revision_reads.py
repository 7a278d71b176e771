"""Exact-revision lists and revision waits with real threads and a reopened SQLite file.

Both backends: writer threads commit while an event loop lists at exact past revisions
(each must equal what the writers had written by then) and waits for revisions the writers
have not reached yet. SQLite: the history restored from disk serves exact lists after a
restart, back to where its restored events still show the states they replaced.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from podscale.store.engine import VersionedStore
from podscale.store.interface import ExpiredError
from podscale.store.listing import LIST_EXPIRED
from podscale.store.memory import MemoryStore
from podscale.store.sqlite import SqliteStore


class FixedClock:
    def now(self) -> datetime:
        return datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


def config_map(name: str, value: int) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default"}, "data": {"v": str(value)}}


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VersionedStore]:
    made: VersionedStore
    if request.param == "memory":
        made = MemoryStore(FixedClock())
    else:
        made = SqliteStore(tmp_path / "data" / "db.sqlite", FixedClock())
    try:
        yield made
    finally:
        made.close()


def contents(store: VersionedStore, revision: int) -> dict[str, str]:
    listed = store.list("configmaps", "default", revision=revision)
    assert listed.revision == revision
    return {o["metadata"]["name"]: o["data"]["v"] for o in listed.items}


def test_exact_lists_while_threads_write(store: VersionedStore) -> None:
    """Every write records (revision -> state after it); exact lists read concurrently
    must match those records, and a wait for a revision ahead ends when writers get there."""
    writers, per_writer = 3, 40
    written: dict[int, tuple[str, str]] = {}
    lock = threading.Lock()

    def write(index: int) -> None:
        for step in range(per_writer):
            name = f"w{index}-{step % 5}"
            try:
                current = store.get("configmaps", "default", name)
                current["data"] = {"v": str(step)}
                stored = store.update("configmaps", current)
            except Exception:
                stored = store.create("configmaps", config_map(name, step))
            with lock:
                written[int(stored["metadata"]["resourceVersion"])] = (name, str(step))

    async def main() -> None:
        target = writers * per_writer
        waiting = asyncio.ensure_future(store.wait_for_revision(target, timeout=30.0))
        threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
        for thread in threads:
            thread.start()
        while not waiting.done():
            revision = store.revision
            if revision:
                contents(store, revision)  # concurrent exact reads never fail
            await asyncio.sleep(0.001)
        for thread in threads:
            thread.join()
        assert await waiting >= target

    asyncio.run(main())
    assert sorted(written) == list(range(1, writers * per_writer + 1))
    replayed: dict[str, str] = {}
    for revision in sorted(written):
        name, value = written[revision]
        replayed[name] = value
        assert contents(store, revision) == replayed


def test_sqlite_exact_lists_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "data" / "db.sqlite"
    first = SqliteStore(path, FixedClock(), history=100)
    for step in range(6):
        name = f"cm{step % 3}"
        try:
            current = first.get("configmaps", "default", name)
            current["data"] = {"v": str(step)}
            first.update("configmaps", current)
        except Exception:
            first.create("configmaps", config_map(name, step))
    before = {revision: contents(first, revision) for revision in range(1, 7)}
    first.close()
    reopened = SqliteStore(path, FixedClock(), history=100)
    try:
        assert {revision: contents(reopened, revision) for revision in range(1, 7)} == before
    finally:
        reopened.close()


def test_sqlite_restart_with_a_short_history_expires_older_revisions(tmp_path: Path) -> None:
    path = tmp_path / "data" / "db.sqlite"
    first = SqliteStore(path, FixedClock(), history=3)
    first.create("configmaps", config_map("a", 0))
    for step in range(1, 5):  # revisions 2-5 update "a"
        current = first.get("configmaps", "default", "a")
        current["data"] = {"v": str(step)}
        first.update("configmaps", current)
    first.close()
    reopened = SqliteStore(path, FixedClock(), history=3)
    try:
        # Kept on disk: events 3-5. Undoing 4 and 5 reaches revision 3; going back to 2
        # would need the state event 3 replaced, which no kept event shows.
        assert contents(reopened, 5) == {"a": "4"}
        assert contents(reopened, 3) == {"a": "2"}
        for revision in (2, 1):
            with pytest.raises(ExpiredError) as info:
                contents(reopened, revision)
            assert str(info.value) == LIST_EXPIRED
    finally:
        reopened.close()
