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

import importlib
import logging
from datetime import timedelta
from pathlib import Path
from typing import Final

from podscale.history import HistoryStore, MemoryHistory
from podscale.history.composite import SplitHistory, close_history
from podscale.metrics.prometheus.history import PrometheusHistory
from podscale.plane.options import UpOptions
from podscale.store.interface import Clock

__all__ = ["HISTORY_FILE", "close_history", "open_history", "sqlite_history"]

_LOG = logging.getLogger(__name__)
HISTORY_FILE: Final = "history.db"
_SQLITE_MODULE: Final = "podscale.history.sqlite"


def sqlite_history(path: Path, clock: Clock, retention: timedelta) -> HistoryStore:
    """``SqliteHistory(path, clock, raw_retention=retention)``, imported only when used."""
    try:
        module = importlib.import_module(_SQLITE_MODULE)
    except ModuleNotFoundError as err:
        if err.name != _SQLITE_MODULE:
            raise
        # A build without the SQLite backend still runs, keeping history for this run.
        _LOG.warning("the SQLite history backend is missing; history is kept in memory")
        return MemoryHistory()
    store: HistoryStore = module.SqliteHistory(path, clock, raw_retention=retention)
    return store


def open_history(options: UpOptions, clock: Clock) -> HistoryStore:
    """The history of ``options.data_dir`` (read from Prometheus when one is configured)."""
    store = sqlite_history(options.data_dir / HISTORY_FILE, clock, options.history_retention)
    if options.prometheus is None:
        return store
    return SplitHistory(store, PrometheusHistory(options.prometheus.url))
