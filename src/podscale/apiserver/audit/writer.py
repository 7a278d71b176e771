"""The audit log backend: JSON lines, one per event, written by a thread of its own.

``AuditLog`` is what ``middleware`` hands events to. ``emit`` only puts the event on a queue,
so a slow disk never holds up the event loop serving requests; a daemon thread serialises
each event (orjson), appends it with a newline and flushes, so a line is on disk (or on
stdout, for the path ``-``) as soon as the thread gets to it, as kube-apiserver's blocking
log backend writes. ``close`` drains the queue and closes the file; events emitted after it
are dropped. With ``max_bytes`` the file is rotated as kube-apiserver's
``--audit-log-maxsize`` does (lumberjack): the full file is renamed to
``NAME-<UTC time>.EXT`` and a new one started; ``max_backups`` (``--audit-log-maxbackup``)
keeps only that many rotated files (0 keeps all). ``reader.read_events`` reads files back.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Final

import orjson

__all__ = ["STDOUT_PATH", "AuditLog", "rotated_name"]

STDOUT_PATH: Final = "-"
_LOG = logging.getLogger(__name__)
_STOP: Final = object()


def rotated_name(path: Path, moment: datetime) -> Path:
    """Where a full log goes: lumberjack's ``name-2006-01-02T15-04-05.000.ext`` in UTC."""
    stamp = moment.astimezone(UTC).strftime("%Y-%m-%dT%H-%M-%S.%f")[:-3]
    return path.with_name(f"{path.stem}-{stamp}{path.suffix}")


class AuditLog:
    """Appends events to ``path`` (``-``: stdout) from a background thread."""

    def __init__(
        self,
        path: str,
        *,
        max_bytes: int = 0,
        max_backups: int = 0,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._path = None if path == STDOUT_PATH else Path(path)
        self._max_bytes = max_bytes
        self._max_backups = max_backups
        self._now = now
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._closed = False
        self._stream: IO[bytes] = self._open() if self._path is not None else sys.stdout.buffer
        self._size = self._stream.tell() if self._path is not None else 0
        self._thread = threading.Thread(target=self._run, name="podscale-audit", daemon=True)
        self._thread.start()

    @property
    def path(self) -> Path | None:
        """The file written, None for stdout."""
        return self._path

    def _open(self) -> IO[bytes]:
        assert self._path is not None
        # Opened (and its directory checked) here, so a bad path fails at start, not later.
        return self._path.open("ab")

    def emit(self, event: dict[str, Any]) -> None:
        """Queue ``event`` for writing; never blocks. Dropped once the log is closed."""
        if not self._closed:
            self._queue.put(event)

    def close(self, timeout: float = 10.0) -> None:
        """Write what is queued, then close the file (stdout stays open)."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(_STOP)
        self._thread.join(timeout)
        if self._path is not None:
            self._stream.close()

    def _run(self) -> None:
        while (item := self._queue.get()) is not _STOP:
            try:
                self._write(orjson.dumps(item) + b"\n")
            except (OSError, TypeError) as err:
                # An unwritable disk must not take the API server down; say so once per event.
                _LOG.error("cannot write an audit event: %s", err)

    def _write(self, line: bytes) -> None:
        full = self._max_bytes and self._size and self._size + len(line) > self._max_bytes
        if full and self._path is not None:
            self._rotate()  # a single line larger than the limit still goes in a file alone
        self._stream.write(line)
        self._stream.flush()
        self._size += len(line)

    def _rotate(self) -> None:
        assert self._path is not None
        self._stream.close()
        self._path.rename(rotated_name(self._path, self._now()))
        self._stream = self._open()
        self._size = 0
        if self._max_backups:
            pattern = f"{self._path.stem}-*{self._path.suffix}"
            backups = sorted(self._path.parent.glob(pattern))
            for stale in backups[: -self._max_backups]:
                with contextlib.suppress(OSError):
                    stale.unlink()
