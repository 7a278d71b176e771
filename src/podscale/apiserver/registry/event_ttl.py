"""Events expire an hour after they were last written, as kube-apiserver's ``--event-ttl``.

kube-apiserver stores each Event under an etcd lease of ``--event-ttl`` (default 1 h) renewed
by every write, so Events vanish on their own (watchers see them DELETED) and ``kubectl get
events`` only ever shows the recent past. Without it a long simulation piles up Events, and
every reader that lists them (snapshots, ``kubectl get events``) pays for the whole history.

``expired_events`` is the pure part: an Event's last write is the latest of its creation and
its observation times (``lastTimestamp``, ``eventTime``, ``series.lastObservedTime``), which
the recorders set on each write. ``expire_events`` is the shell ``podscale.plane`` runs next
to the API server: every ``period`` on the injected clock it deletes what has expired,
straight from the store, as the lease expiry does (no admission, no finalizers), found in a
heap of last writes a watch of the Events keeps current (``_Expiries``).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, Final

import orjson

from podscale.api.timestamps import parse_time_or_none
from podscale.store.decode_memo import DecodeMemo
from podscale.store.interface import Clock, NotFoundError, Store, Watch

__all__ = ["DEFAULT_EVENT_TTL", "EVENTS", "expire_events", "expired_events", "last_written"]

# kube-apiserver's --event-ttl default.
DEFAULT_EVENT_TTL: Final = timedelta(hours=1)
# Core and events.k8s.io Events share this storage, as upstream's do.
EVENTS: Final = "events"
_PERIOD: Final = timedelta(minutes=1)
# What one ``take_ready`` hands over; a pass drains the watch until nothing is left.
_BATCH: Final = 1024
JSON = dict[str, Any]


def last_written(event: Mapping[str, Any]) -> datetime | None:
    """When ``event`` was last written, as far as its own fields tell."""
    metadata = event.get("metadata") or {}
    series = event.get("series") or {}
    times = [
        parse_time_or_none(metadata.get("creationTimestamp")),
        parse_time_or_none(event.get("lastTimestamp")),
        parse_time_or_none(event.get("eventTime")),
        parse_time_or_none(series.get("lastObservedTime") if isinstance(series, dict) else None),
    ]
    known = [time for time in times if time is not None]
    return max(known) if known else None


def expired_events(
    events: Iterable[Mapping[str, Any]], now: datetime, ttl: timedelta = DEFAULT_EVENT_TTL
) -> list[tuple[str, str]]:
    """(namespace, name) of each Event last written ``ttl`` or longer before ``now``."""
    return _expired((_written(event) for event in events), now, ttl)


def _written(event: Mapping[str, Any]) -> tuple[tuple[str, str], datetime | None]:
    metadata = event.get("metadata") or {}
    key = (str(metadata.get("namespace") or ""), str(metadata.get("name")))
    return key, last_written(event)


def _expired(
    written: Iterable[tuple[tuple[str, str], datetime | None]], now: datetime, ttl: timedelta
) -> list[tuple[str, str]]:
    return [key for key, at in written if at is not None and now - at >= ttl]


def _stored_written(data: bytes) -> JSON:
    """An Event's key, revision and last write from its stored bytes (what the relist's
    memo keeps)."""
    event = orjson.loads(data)
    key, at = _written(event)
    return {"key": key, "revision": _revision(event), "written": at}


def _revision(event: Mapping[str, Any]) -> int:
    return int((event.get("metadata") or {}).get("resourceVersion") or 0)


class _Expiries:
    """Each stored Event's revision and last write, and a heap of (last write, revision,
    key) over them, kept current by a watch of the Events from a LIST's revision.

    An Event expires at a fixed time after its last write, so a pass needs only the heap's
    entries at or before the cutoff instead of every stored Event: an entry whose revision
    is no longer its Event's (rewritten or deleted since) is dropped as it comes up. The
    watch is read without waiting at each pass (``take_ready``: it holds every write
    committed so far), so the state is the one a LIST would give at that instant. When the
    watch cannot tell (the first pass, a watch ended because too many Events were written
    in between, or a store whose watches do not say they ended) the Events are listed again,
    through a ``DecodeMemo`` (only the Events written since the last LIST are decoded)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._watch: Watch | None = None
        self._memo: DecodeMemo[JSON] = DecodeMemo(_stored_written)
        self._current: dict[tuple[str, str], int] = {}
        self._heap: list[tuple[datetime, int, tuple[str, str]]] = []

    def expired(self, cutoff: datetime) -> list[tuple[str, str]]:
        """The keys, in the LIST's order, of the Events last written at or before
        ``cutoff``; they leave the heap (one its finalizers keep stored comes back through
        the watch with its new revision, and is named again at the next pass)."""
        self._follow()
        current, heap = self._current, self._heap
        due: list[tuple[str, str]] = []
        while heap and heap[0][0] <= cutoff:
            _, revision, key = heapq.heappop(heap)
            if current.get(key) == revision:
                due.append(key)
        due.sort()
        return due

    def _follow(self) -> None:
        watch = self._watch
        if watch is not None and getattr(watch, "closed", True) is False:
            current, heap = self._current, self._heap
            while ready := watch.take_ready(_BATCH):
                for event in ready:
                    key, at = _written(event.object)
                    if event.type == "DELETED":
                        current.pop(key, None)
                        continue
                    current[key] = event.revision
                    if at is not None:
                        heapq.heappush(heap, (at, event.revision, key))
            return
        self.close()
        listed = self._store.list(EVENTS, decode=self._memo)
        self._memo.turn()
        self._current = {item["key"]: item["revision"] for item in listed.items}
        self._heap = [
            (item["written"], item["revision"], item["key"])
            for item in listed.items
            if item["written"] is not None
        ]
        heapq.heapify(self._heap)
        self._watch = self._store.watch(EVENTS, None, since=listed.revision)

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None


async def expire_events(
    store: Store, clock: Clock, ttl: timedelta = DEFAULT_EVENT_TTL, *, period: timedelta = _PERIOD
) -> None:
    """Delete expired Events every ``period`` until cancelled, in the order a LIST of the
    Events gives them (``_Expiries`` finds them without listing every pass)."""
    expiries = _Expiries(store)
    try:
        while True:
            await asyncio.sleep(period.total_seconds())
            # ``now - written >= ttl`` exactly (datetime arithmetic is in whole microseconds).
            for namespace, name in expiries.expired(clock.now() - ttl):
                with contextlib.suppress(NotFoundError):  # deleted meanwhile
                    store.delete(EVENTS, namespace, name)
    finally:
        expiries.close()
