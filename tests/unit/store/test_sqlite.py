"""SQLite backend specifics: persistence across reopen, file security, error mapping."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from podscale.store.errors import BackendError
from podscale.store.interface import ExpiredError, NotFoundError
from podscale.store.sqlite import SqliteStore


def cm(name: str, value: str = "v") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "ns"}, "data": {"k": value}}


def test_reopen_keeps_each_resources_latest_write(tmp_path: Path, clock: Any) -> None:
    path = tmp_path / "data" / "store.db"
    first = SqliteStore(path, clock)
    first.create("configmaps", cm("a"))
    first.create("secrets", cm("s"))
    first.create("configmaps", cm("b"))
    first.delete("configmaps", "ns", "b")
    first.close()
    second = SqliteStore(path, clock)
    try:
        # The deletion (revision 4) counts: it is the configmaps' latest write.
        assert (second.resource_revision("configmaps"), second.resource_revision("secrets")) == (
            4,
            2,
        )
        assert second.resource_revision("pods") == 0
    finally:
        second.close()


def test_reopen_keeps_objects_revision_and_uids(tmp_path: Path, clock: Any) -> None:
    path = tmp_path / "data" / "store.db"
    first = SqliteStore(path, clock)
    created = first.create("configmaps", cm("a"))
    first.create("configmaps", cm("b"))
    first.delete("configmaps", "ns", "b")
    first.close()
    second = SqliteStore(path, clock)
    try:
        assert second.revision == 3
        assert second.get("configmaps", "ns", "a") == created
        with pytest.raises(NotFoundError):
            second.get("configmaps", "ns", "b")
        assert second.create("configmaps", cm("c"))["metadata"]["resourceVersion"] == "4"
    finally:
        second.close()


def test_watch_resumes_across_restart_within_history(tmp_path: Path, clock: Any) -> None:
    path = tmp_path / "store.db"
    first = SqliteStore(path, clock, history=4)
    for index in range(6):
        first.create("configmaps", cm(f"c{index}"))
    first.close()
    second = SqliteStore(path, clock, history=4)

    async def scenario() -> list[int]:
        with pytest.raises(ExpiredError, match=r"^too old resource version: 1 \(2\)$"):
            second.watch("configmaps", since=1)
        watch = second.watch("configmaps", since=3)
        second.create("configmaps", cm("live"))
        revisions = []
        while (event := await watch.next(0.05)) is not None:
            revisions.append(event.revision)
        watch.close()
        return revisions

    try:
        assert asyncio.run(scenario()) == [4, 5, 6, 7]
    finally:
        second.close()


def test_larger_history_on_reopen_keeps_the_old_floor(tmp_path: Path, clock: Any) -> None:
    path = tmp_path / "store.db"
    first = SqliteStore(path, clock, history=2)
    for index in range(5):
        first.create("configmaps", cm(f"c{index}"))
    first.close()
    second = SqliteStore(path, clock, history=100)
    try:
        assert second.oldest_watchable == 3
    finally:
        second.close()


def test_files_are_private(tmp_path: Path, clock: Any) -> None:
    directory = tmp_path / "fresh" / "data"
    store = SqliteStore(directory / "store.db", clock)
    try:
        store.create("configmaps", cm("a"))
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
        files = sorted(p.name for p in directory.iterdir())
        assert "store.db" in files
        assert "store.db-wal" in files
        for name in files:
            assert stat.S_IMODE((directory / name).stat().st_mode) == 0o600, name
    finally:
        store.close()


def test_world_writable_directory_is_refused(tmp_path: Path, clock: Any) -> None:
    directory = tmp_path / "open"
    directory.mkdir()
    directory.chmod(0o777)
    with pytest.raises(BackendError, match="world-writable directory"):
        SqliteStore(directory / "store.db", clock)
    assert not (directory / "store.db").exists()


def test_corrupt_file_gives_backend_error_without_sql(tmp_path: Path, clock: Any) -> None:
    path = tmp_path / "store.db"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(BackendError) as info:
        SqliteStore(path, clock)
    message = str(info.value)
    assert message.startswith("storage backend failure while opening the database: ")
    assert "SELECT" not in message
    assert "CREATE" not in message


def test_second_process_cannot_open_a_database_in_use(tmp_path: Path, clock: Any) -> None:
    path = tmp_path / "store.db"
    store = SqliteStore(path, clock)
    try:
        store.create("configmaps", cm("a"))
        probe = (
            "import sys; from pathlib import Path\n"
            "from podscale.store.sqlite import SqliteStore\n"
            "from podscale.store.clock import SystemClock\n"
            "from podscale.store.errors import BackendError\n"
            "try:\n"
            "    SqliteStore(Path(sys.argv[1]), SystemClock())\n"
            "except BackendError as err:\n"
            "    print(err)\n"
            "    sys.exit(3)\n"
        )
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        done = subprocess.run(
            [sys.executable, "-c", probe, str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=False,
        )
        assert done.returncode == 3, done.stderr
        assert "SQLITE_BUSY" in done.stdout
    finally:
        store.close()


@pytest.mark.parametrize("synchronous", ["NORMAL", "FULL"], ids=["normal", "full"])
def test_synchronous_modes_write(tmp_path: Path, clock: Any, synchronous: Any) -> None:
    store = SqliteStore(tmp_path / "s.db", clock, synchronous=synchronous)
    try:
        assert store.create("configmaps", cm("a"))["metadata"]["resourceVersion"] == "1"
    finally:
        store.close()


def test_unknown_synchronous_mode_is_refused(tmp_path: Path, clock: Any) -> None:
    with pytest.raises(ValueError, match="synchronous"):
        SqliteStore(tmp_path / "s.db", clock, synchronous="OFF")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("history", "expired"), [(10, False), (1, True)], ids=["history-covers", "history-lost"]
)
def test_continue_token_across_restart(
    tmp_path: Path, clock: Any, history: int, expired: bool
) -> None:
    path = tmp_path / "store.db"
    first = SqliteStore(path, clock, history=history)
    for name in "abc":
        first.create("configmaps", cm(name))
    token = first.list("configmaps", limit=1).continue_token
    first.update("configmaps", dict(first.get("configmaps", "ns", "c"), data={"k": "new"}))
    first.close()
    second = SqliteStore(path, clock, history=history)
    try:
        if expired:
            with pytest.raises(ExpiredError):
                second.list("configmaps", continue_token=token)
        else:
            rest = second.list("configmaps", continue_token=token)
            assert [o["data"]["k"] for o in rest.items] == ["v", "v"]
            assert rest.revision == 3
    finally:
        second.close()
