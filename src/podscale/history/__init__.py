"""Durable metrics history: per-workload series for forecasters, per-object state blobs.

``types`` holds the values and the two protocols every backend implements:
``SeriesStore`` (per-minute points of a workload's series: its pods' total CPU and memory
usage, each metric its autoscaler reads) and ``StateStore`` (small JSON documents keyed by
an object's uid, e.g. an autoscaler's recommendations and scale events). ``memory`` keeps
both in process (tests, replays); the SQLite backend keeps them across restarts of
``podscale up``; the Prometheus reader (``podscale.metrics.prometheus``) answers the
series reads from ``query_range``. Writers are controllers; readers are the forecasters'
callers (``podscale.controllers.phpa``, ``podscale.controllers.ehpa``) and ``describe``.
"""

from podscale.history.memory import MemoryHistory
from podscale.history.sqlite import SqliteHistory
from podscale.history.types import (
    HistoryStore,
    Point,
    SeriesKey,
    SeriesReader,
    SeriesStore,
    StateLister,
    StateStore,
)

__all__ = [
    "HistoryStore",
    "MemoryHistory",
    "Point",
    "SeriesKey",
    "SeriesReader",
    "SeriesStore",
    "SqliteHistory",
    "StateLister",
    "StateStore",
]
