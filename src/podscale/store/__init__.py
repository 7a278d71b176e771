"""Versioned object storage (``interface``): in-memory and SQLite backends, with watch.

``memory.MemoryStore`` and ``sqlite.SqliteStore`` share one engine (``engine``) built from
pure metadata rules (``objects``), list paging (``listing``) and watch fan-out
(``watchhub``). ``clock.SystemClock`` is the production clock.

The names below resolve on first use (``__getattr__``): importing one submodule, such as
``podscale.store.interface`` for the HTTP client, does not import the rest of the package.
"""

from typing import TYPE_CHECKING

from podscale.api.lazy import lazy_exports

if TYPE_CHECKING:
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

_EXPORTS: dict[str, str] = {
    "AlreadyExistsError": "podscale.store.interface",
    "BackendError": "podscale.store.errors",
    "Clock": "podscale.store.interface",
    "ConflictError": "podscale.store.interface",
    "DeleteResult": "podscale.store.interface",
    "EventType": "podscale.store.interface",
    "ExpiredError": "podscale.store.interface",
    "InvalidContinueError": "podscale.store.errors",
    "ListResult": "podscale.store.interface",
    "MemoryStore": "podscale.store.memory",
    "NotFoundError": "podscale.store.interface",
    "Preconditions": "podscale.store.interface",
    "SqliteStore": "podscale.store.sqlite",
    "Store": "podscale.store.interface",
    "StoreError": "podscale.store.interface",
    "SystemClock": "podscale.store.clock",
    "Watch": "podscale.store.interface",
    "WatchEvent": "podscale.store.interface",
}


__getattr__ = lazy_exports(globals(), _EXPORTS)


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
