"""A store's committed state: what ``engine.VersionedStore`` holds and the one way it changes.

``Persistence`` is what the backends implement (``memory``: nothing; ``sqlite``: a file):
``load`` hands back a ``LoadedState`` at open, ``commit`` makes one write durable.
``CommittedState`` is ``VersionedStore``'s base: it loads the persistence into the current
objects (serialized, per resource and key), the latest revision per resource, the watch
history (``watchhub.WatchHub``) and the revision waiters (``freshness.RevisionWaiters``);
``_commit`` persists a record and only then applies it to memory, publishes it to watches
and wakes the waiters. ``VersionedStore`` (``engine``) adds the reads, writes and watches.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from podscale.store.freshness import RevisionWaiters
from podscale.store.interface import Clock, StoreError
from podscale.store.records import EventRecord
from podscale.store.watchhub import WatchHub

__all__ = ["CommittedState", "Entry", "Key", "LoadedState", "Persistence", "new_uid"]

Key = tuple[str, str]
Entry = tuple[int, bytes]  # (revision, serialized object)


def new_uid() -> str:
    return str(uuid.uuid4())


@dataclass(frozen=True, slots=True)
class LoadedState:
    """What a persistence holds at open: the revision, current objects (as records), and
    the kept events (ascending) with the revision they start after (``floor``)."""

    revision: int = 0
    objects: list[EventRecord] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)
    floor: int = 0


class Persistence(Protocol):
    """Where committed writes go. ``commit`` must be atomic and durable when it returns,
    storing the record, the object change it implies and the revision together; on
    failure it raises a ``StoreError`` and nothing was applied."""

    def load(self) -> LoadedState: ...

    def commit(self, record: EventRecord) -> None: ...

    def close(self) -> None: ...


class CommittedState:
    """The state of a ``VersionedStore`` over ``persistence``, loaded at construction.
    One lock (``_lock``) serializes writes: revisions are assigned, committed and
    published in order."""

    def __init__(
        self,
        persistence: Persistence,
        clock: Clock,
        *,
        history: int,
        watch_buffer: int,
        new_uid: Callable[[], str] = new_uid,
    ) -> None:
        self._persistence = persistence
        self._clock = clock
        self._new_uid = new_uid
        self._lock = threading.Lock()
        self._closed = False
        self._hub = WatchHub(history=history, buffer=watch_buffer)
        self._waiters = RevisionWaiters()
        state = persistence.load()
        self._revision = state.revision
        self._objects: dict[str, dict[Key, Entry]] = {}
        # The latest write per resource (``resource_revision``).
        self._resource_revisions: dict[str, int] = {}
        for record in [*state.objects, *state.events]:
            latest = self._resource_revisions.get(record.resource, 0)
            self._resource_revisions[record.resource] = max(latest, record.revision)
        for record in state.objects:
            bucket = self._objects.setdefault(record.resource, {})
            bucket[(record.namespace, record.name)] = (record.revision, record.data)
        self._hub.seed(state.events, state.floor)

    @property
    def revision(self) -> int:
        return self._revision

    def resource_revision(self, resource: str) -> int:
        return self._resource_revisions.get(resource, 0)

    @property
    def oldest_watchable(self) -> int:
        """The oldest revision a watch can start from (older ones are expired)."""
        return self._hub.floor

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("store is closed")

    def _commit(self, record: EventRecord) -> None:
        """Persist, then apply to memory and publish. Caller holds the lock."""
        self._persistence.commit(record)
        self._revision = record.revision
        self._resource_revisions[record.resource] = record.revision
        bucket = self._objects.setdefault(record.resource, {})
        key = (record.namespace, record.name)
        if record.type == "DELETED":
            bucket.pop(key, None)
        else:
            bucket[key] = (record.revision, record.data)
        self._hub.publish(record)
        self._waiters.release(record.revision)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._hub.close()
            self._waiters.close()
            self._persistence.close()
