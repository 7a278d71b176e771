"""The history store ``podscale up`` hands its controllers (``ControllerContext.history``).

``open_history`` keeps the series and autoscaler state in ``history.db`` in the data
directory (``podscale.history.sqlite.SqliteHistory``: one-minute points for
``--history-retention``, hourly means for 90 days), so a restart finds the history of the
previous run; with ``--prometheus-url`` the series are read from Prometheus instead
(``podscale.metrics.prometheus.history.PrometheusHistory``), still written to the file
(``podscale.history.composite.SplitHistory``). ``workloads.build_workloads`` opens it,
``workloads.serve_with_workloads`` closes it (``close_history``).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Final

from podscale.history import HistoryStore
from podscale.history.composite import SplitHistory, close_history
from podscale.metrics.prometheus.history import PrometheusHistory
from podscale.plane.options import UpOptions
from podscale.store.interface import Clock

__all__ = ["HISTORY_FILE", "close_history", "open_history", "sqlite_history"]

HISTORY_FILE: Final = "history.db"


def sqlite_history(path: Path, clock: Clock, retention: timedelta) -> HistoryStore:
    """``SqliteHistory(path, clock, raw_retention=retention)``."""
    from podscale.history.sqlite import SqliteHistory  # sqlite3 only when a plane keeps a file

    return SqliteHistory(path, clock, raw_retention=retention)


def open_history(options: UpOptions, clock: Clock) -> HistoryStore:
    """The history of ``options.data_dir`` (read from Prometheus when one is configured)."""
    store = sqlite_history(options.data_dir / HISTORY_FILE, clock, options.history_retention)
    if options.prometheus is None:
        return store
    return SplitHistory(store, PrometheusHistory(options.prometheus.url))
