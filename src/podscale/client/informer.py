"""An informer: keeps a local cache of one resource in step with the API server.

client-go's reflector + shared informer, in asyncio: list, then watch from the list's
resourceVersion; apply each event to the ``Cache`` and tell the handlers; when the watch
ends, watch again from the last seen resourceVersion; when the server answers 410 Gone
(history expired), list again and reconcile the cache (handlers see the adds, updates and
deletes the relist implies). A watch the server refuses to start (connection refused, or a
429) is asked for again from the same resourceVersion after client-go's reflector backoff
(``podscale.client.rewatch``: 800 ms doubling to 30 s, jittered), without a relist. Every
``resync`` period the handlers get an update for every
cached object, so controllers re-examine everything even without changes.

``run`` may be called again after it failed (``podscale.client.supervisor`` restarts a dead
informer): the cache is kept, and the relist that starts the new run re-delivers every
unchanged object as a resync update, since the failure may have cut off the delivery of an
event to some handlers after the cache had taken it.

The transport is a ``ListWatcher`` (``podscale.client`` provides in-process and HTTP ones);
time comes from a ``Clock`` and waiting from a ``sleep`` function, both injectable.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

from podscale.client.cache import Cache, IndexFunc, Lister, object_key
from podscale.client.rewatch import (
    REFLECTOR_BACKOFF,
    RewatchBackoff,
    RewatchState,
    next_rewatch_delay,
    watch_start_retriable,
)
from podscale.store.interface import Clock

__all__ = ["EventHandler", "Gone", "Informer", "ListWatcher"]

JSON = dict[str, Any]


class Gone(Exception):
    """The watch's resourceVersion is too old (HTTP 410 / a watch ERROR with code 410)."""


class ListWatcher(Protocol):
    """How an informer reaches one resource (optionally one namespace)."""

    async def list(self) -> tuple[list[JSON], str]:
        """All objects and the list's ``metadata.resourceVersion``."""
        ...

    def watch(self, resource_version: str) -> AsyncIterator[tuple[str, JSON]]:
        """``(type, object)`` events after ``resource_version``; raises ``Gone`` on 410.
        Ends when the server ends the stream (the informer then watches again)."""
        ...


@dataclass
class EventHandler:
    """Callbacks; any of them may be omitted. ``on_update`` gets (old, new)."""

    on_add: Callable[[JSON], None] | None = None
    on_update: Callable[[JSON, JSON], None] | None = None
    on_delete: Callable[[JSON], None] | None = None


@dataclass
class Informer:
    """Run with ``await informer.run()`` (until ``stop()``); read through ``lister``."""

    source: ListWatcher
    clock: Clock
    resync: timedelta | None = None
    indexers: Mapping[str, IndexFunc] | None = None
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    handlers: list[EventHandler] = field(default_factory=list)
    rewatch_backoff: RewatchBackoff = REFLECTOR_BACKOFF
    # The random share of each backoff's jitter (injectable for reproducible tests).
    jitter: Callable[[], float] = random.random
    _cache: Cache = field(init=False)
    _synced: asyncio.Event | None = field(default=None, init=False)
    _stopped: bool = field(default=False, init=False)
    _resource_version: str = field(default="", init=False)
    _runs: int = field(default=0, init=False)
    _rewatch: RewatchState | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._cache = Cache(self.indexers)

    @property
    def lister(self) -> Lister:
        return Lister(self._cache)

    @property
    def resource_version(self) -> str:
        """The last resourceVersion the cache reflects."""
        return self._resource_version

    def add_handler(self, handler: EventHandler) -> None:
        """Register a handler; it is told about objects already cached as adds."""
        self.handlers.append(handler)
        if handler.on_add is not None:
            for obj in self._cache.values():
                handler.on_add(obj)

    async def wait_synced(self) -> None:
        """Return once the first list has filled the cache."""
        await self._synced_event().wait()

    def has_synced(self) -> bool:
        return self._synced is not None and self._synced.is_set()

    def stop(self) -> None:
        self._stopped = True

    @property
    def stopped(self) -> bool:
        return self._stopped

    async def run(self) -> None:
        """List and watch until stopped; relist on ``Gone``; resync on schedule."""
        resync_task = asyncio.create_task(self._resync_loop()) if self.resync else None
        self._runs += 1
        try:
            await self._relist(redeliver=self._runs > 1)
            while not self._stopped:
                try:
                    async for event_type, obj in self.source.watch(self._resource_version):
                        self._apply(event_type, obj)
                        if self.stopped:
                            break
                except Gone:
                    await self._relist()
                except Exception as err:
                    if not watch_start_retriable(err):
                        raise
                    await self._back_off()
        finally:
            if resync_task is not None:
                resync_task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await resync_task

    async def _back_off(self) -> None:
        """Wait out the reflector backoff before watching again (same resourceVersion)."""
        self._rewatch, delay = next_rewatch_delay(
            self.rewatch_backoff, self._rewatch, self.clock.now(), self.jitter()
        )
        await self.sleep(delay.total_seconds())

    async def _relist(self, *, redeliver: bool = False) -> None:
        items, resource_version = await self.source.list()
        fresh = {object_key(obj): obj for obj in items}
        for key in self._cache.list_keys():
            if key not in fresh:
                old = self._cache.get(key)
                if old is not None:
                    self._cache.remove(old)
                    self._notify_delete(old)
        for obj in items:
            old = self._cache.upsert(obj)
            if old is None:
                self._notify_add(obj)
            elif redeliver or _version(old) != _version(obj):
                self._notify_update(old, obj)
        self._resource_version = resource_version
        self._synced_event().set()

    def _apply(self, event_type: str, obj: JSON) -> None:
        version = _version(obj)
        if event_type == "BOOKMARK":
            self._resource_version = version or self._resource_version
            return
        if event_type in ("ADDED", "MODIFIED"):
            old = self._cache.upsert(obj)
            if old is None:
                self._notify_add(obj)
            else:
                self._notify_update(old, obj)
        elif event_type == "DELETED":
            old = self._cache.remove(obj)
            self._notify_delete(old if old is not None else obj)
        if version:
            self._resource_version = version

    async def _resync_loop(self) -> None:
        assert self.resync is not None
        while not self._stopped:
            await self.sleep(self.resync.total_seconds())
            for obj in self._cache.values():
                self._notify_update(obj, obj)

    def _synced_event(self) -> asyncio.Event:
        if self._synced is None:
            self._synced = asyncio.Event()
        return self._synced

    def _notify_add(self, obj: JSON) -> None:
        for handler in self.handlers:
            if handler.on_add is not None:
                handler.on_add(obj)

    def _notify_update(self, old: JSON, new: JSON) -> None:
        for handler in self.handlers:
            if handler.on_update is not None:
                handler.on_update(old, new)

    def _notify_delete(self, obj: JSON) -> None:
        for handler in self.handlers:
            if handler.on_delete is not None:
                handler.on_delete(obj)


def _version(obj: JSON) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")
