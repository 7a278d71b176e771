"""Where pushed metric values outlive the process: a journal ``PushMetricsProvider`` keeps.

``PushMetricsProvider`` (``push``) holds its series in memory and, when given a
``PushJournal``, records every change there in the same call: upserted series with the time
they were pushed (on the provider's injected clock) and deleted ones. A new provider over the
same journal loads what is there and serves it until ``ttl`` after its push time, so a
restart of ``podscale up`` (``podscale.plane.workloads`` opens ``SqlitePushJournal`` in the
data directory) does not turn every HPA on a pushed metric into ``FailedGetExternalMetric``.

``SqlitePushJournal`` is one SQLite file with one table; each ``apply`` is one transaction
committed before it returns (WAL, ``synchronous=NORMAL``: survives ``kill -9``, as the
object store does). Records are opaque JSON text to the journal: ``push`` encodes them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from podscale.api import parse_quantity
from podscale.apiserver.metricsapis.samples import CustomSample, ExternalSample

__all__ = [
    "CustomKey",
    "ExternalKey",
    "JournalRecord",
    "PushJournal",
    "SqlitePushJournal",
    "decode_record",
    "encode_record",
    "journal_key",
]

Labels = tuple[tuple[str, str], ...]
# (group_resource, namespace or "", name, metric, labels) and (namespace, metric, labels).
CustomKey = tuple[str, str, str, str, Labels]
ExternalKey = tuple[str, str, Labels]


@dataclass(frozen=True, slots=True)
class JournalRecord:
    """One series: its key and sample as JSON text, and its push time (RFC 3339)."""

    key: str
    pushed_at: str
    sample: str


def journal_key(key: CustomKey | ExternalKey) -> str:
    """The journal's text key of a provider key (custom keys have five parts)."""
    family = "custom" if len(key) == 5 else "external"
    return json.dumps([family, *key], separators=(",", ":"))


def encode_record(
    key: CustomKey | ExternalKey, sample: CustomSample | ExternalSample, pushed_at: datetime
) -> JournalRecord:
    """What the journal keeps of one series: the key spells the series, the rest is data."""
    fields: dict[str, Any] = {
        "value": str(sample.value),
        "timestamp": sample.timestamp.isoformat() if sample.timestamp else None,
        "windowSeconds": sample.window_seconds,
    }
    if isinstance(sample, CustomSample):
        fields.update(kind=sample.kind, apiVersion=sample.api_version)
    return JournalRecord(journal_key(key), pushed_at.isoformat(), json.dumps(fields))


def _labels(raw: Any) -> Labels:
    return tuple((str(k), str(v)) for k, v in raw)


def decode_record(
    record: JournalRecord,
) -> tuple[CustomKey | ExternalKey, CustomSample | ExternalSample, datetime]:
    """``encode_record`` undone: the provider key, the sample and its push time."""
    family, *parts = json.loads(record.key)
    fields = json.loads(record.sample)
    value = parse_quantity(fields["value"])
    timestamp = datetime.fromisoformat(fields["timestamp"]) if fields["timestamp"] else None
    pushed_at = datetime.fromisoformat(record.pushed_at)
    if family == "custom":
        group_resource, namespace, name, metric, raw_labels = parts
        labels = _labels(raw_labels)
        custom_key: CustomKey = (group_resource, namespace, name, metric, labels)
        sample = CustomSample(
            group_resource=group_resource,
            namespace=namespace or None,
            name=name,
            metric=metric,
            value=value,
            labels=labels,
            timestamp=timestamp,
            window_seconds=fields["windowSeconds"],
            kind=fields["kind"],
            api_version=fields["apiVersion"],
        )
        return custom_key, sample, pushed_at
    namespace, metric, raw_labels = parts
    labels = _labels(raw_labels)
    external_key: ExternalKey = (namespace, metric, labels)
    external = ExternalSample(namespace, metric, value, labels, timestamp, fields["windowSeconds"])
    return external_key, external, pushed_at


class PushJournal(Protocol):
    """Durable series for ``PushMetricsProvider``."""

    def load(self) -> list[JournalRecord]: ...

    def apply(self, upserts: Sequence[JournalRecord], deletes: Sequence[str]) -> None:
        """Delete the ``deletes`` keys, then write ``upserts``, all or nothing."""
        ...

    def close(self) -> None: ...


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS pushed (key TEXT PRIMARY KEY, pushed_at TEXT NOT NULL,"
    " sample TEXT NOT NULL) WITHOUT ROWID"
)


class SqlitePushJournal:
    """``PushJournal`` in an SQLite file, created 0600 (it sits in the private data dir)."""

    def __init__(self, path: Path) -> None:
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        # Writes come from the event loop and from simulated-usage tasks alike; the provider
        # serializes them under its own lock, this one guards close() against a late write.
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("the push journal is closed")
        return self._db

    def load(self) -> list[JournalRecord]:
        with self._lock:
            rows = self._connection().execute("SELECT key, pushed_at, sample FROM pushed")
            return [JournalRecord(*row) for row in rows.fetchall()]

    def apply(self, upserts: Sequence[JournalRecord], deletes: Sequence[str]) -> None:
        if not upserts and not deletes:
            return
        with self._lock:
            db = self._connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("DELETE FROM pushed WHERE key = ?", [(key,) for key in deletes])
                db.executemany(
                    "INSERT OR REPLACE INTO pushed (key, pushed_at, sample) VALUES (?, ?, ?)",
                    [(r.key, r.pushed_at, r.sample) for r in upserts],
                )
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
