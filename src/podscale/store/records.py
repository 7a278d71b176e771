"""The records of committed changes: what the store publishes, persists and replays.

``EventRecord`` is one committed change as ``engine.VersionedStore`` makes it: the backends
persist it (``committed.Persistence``, ``memory``, ``sqlite``), ``watchhub.WatchHub`` keeps
it in its history and hands it to open watches, which decode it per delivery
(``to_event``), so no two consumers ever share a dict.

A watch from "now" first replays the current objects: a ``Replay`` holds a snapshot of
their (key, stored bytes) and builds the sorted ADDED records only as the consumer reads
them, so opening a watch over thousands of objects costs a list copy, not their decoding.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from operator import itemgetter

import orjson

from podscale.store.interface import EventType, WatchEvent

__all__ = ["EventRecord", "Replay"]


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One committed change; ``data`` is the object's JSON with its resourceVersion set
    to ``revision``. It is also what the backends persist.

    ``previous`` is the stored state this change replaced (None: there was none), kept so
    a list can be rebuilt as of an older revision; ``previous_known`` is False when it was
    lost (history restored from disk without it)."""

    type: EventType
    resource: str
    namespace: str
    name: str
    revision: int
    data: bytes
    previous: bytes | None = None
    previous_known: bool = True

    def to_event(self) -> WatchEvent:
        return WatchEvent(
            type=self.type,
            object=orjson.loads(self.data),
            revision=self.revision,
            previous_json=self.previous,
            previous_known=self.previous_known,
        )


class Replay:
    """The objects of one resource as of the watch's start, as ADDED records in key order.

    ``entries`` is the engine's snapshot of ``((namespace, name), (revision, data))``; it is
    sorted and turned into records on first iteration, by whoever consumes the watch (an
    API server decodes replays on a worker thread)."""

    __slots__ = ("_entries", "_resource")

    def __init__(self, resource: str, entries: list[tuple[tuple[str, str], tuple[int, bytes]]]):
        self._resource = resource
        self._entries = entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[EventRecord]:
        self._entries.sort(key=itemgetter(0))
        resource = self._resource
        for (namespace, name), (revision, data) in self._entries:
            yield EventRecord("ADDED", resource, namespace, name, revision, data)
