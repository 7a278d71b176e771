"""Versioned object storage (``interface``): in-memory and SQLite backends, with watch.

``memory.MemoryStore`` and ``sqlite.SqliteStore`` share one engine (``engine``) built from
pure metadata rules (``objects``), list paging (``listing``) and watch fan-out
(``watchhub``). ``clock.SystemClock`` is the production clock.
"""

from podscale.store.clock import SystemClock
from podscale.store.errors import BackendError, InvalidContinueError
from podscale.store.interface import (
    AlreadyExistsError,
    Clock,
    ConflictError,
    DeleteResult,
    EventType,
    ExpiredError,
    ListResult,
    NotFoundError,
    Preconditions,
    Store,
    StoreError,
    Watch,
    WatchEvent,
)
from podscale.store.memory import MemoryStore
from podscale.store.sqlite import SqliteStore

__all__ = [
    "AlreadyExistsError",
    "BackendError",
    "Clock",
    "ConflictError",
    "DeleteResult",
    "EventType",
    "ExpiredError",
    "InvalidContinueError",
    "ListResult",
    "MemoryStore",
    "NotFoundError",
    "Preconditions",
    "SqliteStore",
    "Store",
    "StoreError",
    "SystemClock",
    "Watch",
    "WatchEvent",
]
