"""``SplitHistory``: series reads from one place, everything else to a writable store.

``podscale up --prometheus-url`` reads a workload's series history from Prometheus
(``podscale.metrics.prometheus.history.PrometheusHistory``, a ``SeriesReader``) while the
usage-history controller still writes each minute to the SQLite store and the autoscalers
keep their state there. This pairs the two behind the one ``HistoryStore`` a control plane
hands its controllers: ``read`` goes to the reader; ``write``, ``keys`` and the state
documents to the store. ``close`` closes whichever of the two has a ``close``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from podscale.history.types import HistoryStore, Point, SeriesKey, SeriesReader

__all__ = ["SplitHistory", "close_history"]

JSON = dict[str, Any]


def close_history(history: object) -> None:
    """Close ``history`` if it holds resources (a file, a connection); else nothing."""
    close = getattr(history, "close", None)
    if callable(close):
        close()


class SplitHistory:
    """A ``HistoryStore`` reading series from ``reader`` and keeping the rest in ``store``."""

    def __init__(self, store: HistoryStore, reader: SeriesReader) -> None:
        self.store = store
        self.reader = reader

    def read(
        self, key: SeriesKey, start: datetime, end: datetime, step: timedelta
    ) -> Sequence[Point]:
        return self.reader.read(key, start, end, step)

    def write(self, key: SeriesKey, points: Iterable[Point]) -> None:
        self.store.write(key, points)

    def keys(self, namespace: str | None = None) -> Sequence[SeriesKey]:
        return self.store.keys(namespace)

    def get_state(self, uid: str, name: str) -> JSON | None:
        return self.store.get_state(uid, name)

    def put_state(self, uid: str, name: str, document: JSON) -> None:
        self.store.put_state(uid, name, document)

    def delete_state(self, uid: str) -> None:
        self.store.delete_state(uid)

    def close(self) -> None:
        close_history(self.reader)
        close_history(self.store)
