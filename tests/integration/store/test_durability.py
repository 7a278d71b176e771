"""Durability: every write a real writer process acknowledged survives ``kill -9``.

Runs ``python -m podscale.store.writer DB`` (a SQLite write storm that prints each
acknowledged resourceVersion), kills it with SIGKILL after some acknowledgements, then
reopens the database here: every acknowledged create is present at exactly its revision,
the counter object is at least as new as its last acknowledged update, and the next write
gets a revision above everything acknowledged. Repeated on the same database so later
rounds also recover from the earlier kills.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from podscale.store.sqlite import SqliteStore


class FixedClock:
    def now(self) -> datetime:
        return datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


def run_and_kill(database: Path, acknowledgements: int) -> list[tuple[str, str, int]]:
    """Start the writer, read its acknowledgements until ``acknowledgements`` lines (or a
    deadline) arrived, SIGKILL it mid-storm and return what it acknowledged."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
    process = subprocess.Popen(
        [sys.executable, "-m", "podscale.store.writer", str(database)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None
    acknowledged: list[tuple[str, str, int]] = []
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while len(acknowledged) < acknowledgements:
            if not selector.select(timeout=30):
                break
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                verb, name, version = line.decode().split()
                acknowledged.append((verb, name, int(version)))
    process.send_signal(signal.SIGKILL)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL, errors.decode()
    # Whatever was flushed before the kill was acknowledged too.
    for line in buffer.split(b"\n"):
        if line.count(b" ") == 2:
            verb, name, version = line.decode().split()
            acknowledged.append((verb, name, int(version)))
    return acknowledged


@pytest.mark.timeout(300)
@pytest.mark.parametrize("round_sizes", [(300, 50, 1200)], ids=["three-kills"])
def test_acknowledged_writes_survive_kill_9(tmp_path: Path, round_sizes: tuple[int, ...]) -> None:
    database = tmp_path / "data" / "store.db"
    highest = 0
    for acknowledgements in round_sizes:
        acknowledged = run_and_kill(database, acknowledgements)
        assert len(acknowledged) >= min(acknowledgements, 10), "the writer made progress"
        store = SqliteStore(database, FixedClock())
        try:
            versions = [version for _, _, version in acknowledged]
            assert versions == sorted(versions)
            assert versions[0] > highest, "a restart never reuses a revision"
            for verb, name, version in acknowledged:
                stored = store.get("configmaps", "default", name)
                if verb == "create":
                    assert stored["metadata"]["resourceVersion"] == str(version), name
            counter = store.get("configmaps", "default", "counter")
            last_update = max(v for verb, _, v in acknowledged if verb == "update")
            assert int(counter["metadata"]["resourceVersion"]) >= last_update
            highest = max(versions)
            assert store.revision >= highest
            probe = store.create("configmaps", {"metadata": {"name": f"probe-{highest}"}})
            assert int(probe["metadata"]["resourceVersion"]) > highest
            highest = int(probe["metadata"]["resourceVersion"])
        finally:
            store.close()
