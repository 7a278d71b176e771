"""AuditLog writes JSON lines from its own thread; read_events reads them back."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from podscale.apiserver.audit.reader import read_events
from podscale.apiserver.audit.writer import AuditLog, rotated_name


def event(n: int) -> dict[str, object]:
    return {"kind": "Event", "auditID": f"id-{n}", "verb": "get"}


def test_events_are_lines_read_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "audit.log"
    log = AuditLog(str(path))
    for n in range(50):
        log.emit(event(n))
    log.close()
    assert read_events(path) == [event(n) for n in range(50)]
    assert path.read_bytes().count(b"\n") == 50


def test_an_existing_log_is_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "audit.log"
    for n in range(2):
        log = AuditLog(str(path))
        log.emit(event(n))
        log.close()
    assert [e["auditID"] for e in read_events(path)] == ["id-0", "id-1"]


def test_events_after_close_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "audit.log"
    log = AuditLog(str(path))
    log.close()
    log.emit(event(1))
    log.close()
    assert read_events(path) == []


def test_an_unopenable_path_fails_at_once(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        AuditLog(str(tmp_path / "missing-dir" / "audit.log"))


def test_rotation_keeps_the_newest_backups(tmp_path: Path) -> None:
    path = tmp_path / "audit.log"
    line = len(b'{"kind":"Event","auditID":"id-0","verb":"get"}\n')
    ticks = iter(datetime(2026, 1, 2, 3, 4, s, tzinfo=UTC) for s in range(60))
    log = AuditLog(str(path), max_bytes=2 * line, max_backups=2, now=lambda: next(ticks))
    for n in range(8):  # 4 files of 2 lines: the live one and 2 backups remain
        log.emit(event(n))
    log.close()
    backups = sorted(tmp_path.glob("audit-*.log"))
    assert [b.name for b in backups] == [
        "audit-2026-01-02T03-04-01.000.log",
        "audit-2026-01-02T03-04-02.000.log",
    ]
    assert [e["auditID"] for e in read_events(backups[0])] == ["id-2", "id-3"]
    assert [e["auditID"] for e in read_events(path)] == ["id-6", "id-7"]


def test_rotated_names_follow_lumberjack() -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    assert rotated_name(Path("/x/audit.log"), moment) == Path(
        "/x/audit-2026-01-02T03-04-05.678.log"
    )


def test_dash_writes_to_stdout() -> None:
    code = (
        "from podscale.apiserver.audit.writer import AuditLog\n"
        "log = AuditLog('-')\n"
        "log.emit({'auditID': 'a'})\n"
        "log.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == '{"auditID":"a"}\n'


def test_the_reader_skips_an_unfinished_last_line_and_refuses_garbage(tmp_path: Path) -> None:
    path = tmp_path / "audit.log"
    path.write_bytes(b'{"auditID":"a"}\n\n{"auditID":"b"}\n{"audit')
    assert read_events(path) == [{"auditID": "a"}, {"auditID": "b"}]
    path.write_bytes(b'{"auditID":"a"}\n[1]\n')
    with pytest.raises(ValueError, match=":2: not a JSON audit event"):
        read_events(path)
    assert read_events(tmp_path / "absent.log") == []
