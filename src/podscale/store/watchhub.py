"""Watch fan-out: the bounded event history and the queues of open watches.

The engine (``engine``) publishes every committed write here, in revision order, while
holding its write lock; writers may be any thread. Each open watch belongs to one asyncio
event loop and drains its own bounded queue there. A watch whose queue overflows is ended
(``overflowed`` is True) rather than allowed to grow without bound or to skip events: the
client re-watches from the last revision it saw, as upstream's cacher forces slow watchers
to do. Events hold serialized bytes and are decoded per delivery, so no two consumers ever
share a dict.

A watch from "now" first replays the current objects (``records.Replay``); the records
published and replayed are ``records.EventRecord``.

Expiry follows upstream's watch cache: a watch from ``since`` needs every event after it;
``floor`` is the newest revision whose successors are all kept, and an older ``since``
gets ``too old resource version: <since> (<floor>)``.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterator, Iterable, Iterator

from podscale.store.interface import ExpiredError, WatchEvent
from podscale.store.records import EventRecord, Replay

__all__ = ["HubWatch", "WatchHub"]


class WatchHub:
    """History ring plus the set of open watches. Thread-safe."""

    def __init__(self, *, history: int, buffer: int) -> None:
        if history < 1 or buffer < 1:
            raise ValueError("history and buffer must be at least 1")
        self._lock = threading.Lock()
        self._ring: deque[EventRecord] = deque(maxlen=history)
        self._floor = 0
        self._buffer = buffer
        self._watches: set[HubWatch] = set()
        self._closed = False

    def seed(self, events: Iterable[EventRecord], floor: int) -> None:
        """Restore history on open (SQLite): ``events`` ascending, all after ``floor``."""
        with self._lock:
            self._floor = floor
            for record in events:
                self._append(record)

    @property
    def floor(self) -> int:
        return self._floor

    def _append(self, record: EventRecord) -> None:
        ring = self._ring
        if len(ring) == ring.maxlen:
            self._floor = ring[0].revision
        ring.append(record)

    def publish(self, record: EventRecord) -> None:
        with self._lock:
            self._append(record)
            overflowed = [watch for watch in self._watches if not watch._offer(record)]
            for watch in overflowed:
                self._watches.discard(watch)

    def events_after(self, since: int, resource: str, namespace: str | None) -> list[EventRecord]:
        """Kept events of one resource (and namespace) with revision > ``since``."""
        with self._lock:
            if since < self._floor:
                raise ExpiredError(
                    f"too old resource version: {since} ({self._floor})", resource=resource
                )
            picked: list[EventRecord] = []
            for record in reversed(self._ring):
                if record.revision <= since:
                    break
                if record.resource == resource and namespace in (None, record.namespace):
                    picked.append(record)
        picked.reverse()
        return picked

    def states_at(
        self, since: int, resource: str, namespace: str | None
    ) -> dict[tuple[str, str], bytes | None] | None:
        """How the objects changed after ``since`` looked at ``since`` (None: absent), to
        undo those changes on the current state; None when history cannot tell."""
        with self._lock:
            if since < self._floor:
                return None
            states: dict[tuple[str, str], bytes | None] = {}
            for record in reversed(self._ring):
                if record.revision <= since:
                    break
                if record.resource == resource and namespace in (None, record.namespace):
                    if not record.previous_known:
                        return None
                    states[(record.namespace, record.name)] = record.previous
        return states

    def open(
        self,
        resource: str,
        namespace: str | None,
        *,
        backlog: list[EventRecord] | Replay,
        revision: int,
        loop: asyncio.AbstractEventLoop,
        after: int = 0,
    ) -> HubWatch:
        """Register a watch that first yields ``backlog``, then live events newer than
        ``after``; call under the engine's write lock so no event slips between the
        backlog and registration."""
        watch = HubWatch(self, resource, namespace, loop, backlog, revision, self._buffer, after)
        with self._lock:
            if self._closed:
                watch._end()
            else:
                self._watches.add(watch)
        return watch

    def detach(self, watch: HubWatch) -> None:
        with self._lock:
            self._watches.discard(watch)

    def close(self) -> None:
        """End every watch (they still deliver what they already hold)."""
        with self._lock:
            self._closed = True
            watches, self._watches = self._watches, set()
            for watch in watches:
                watch._end()


class HubWatch:
    """An open watch (``interface.Watch``). ``next`` raises ``StopAsyncIteration`` once the
    watch has ended and its queue is drained; ``async for`` simply stops."""

    def __init__(
        self,
        hub: WatchHub,
        resource: str,
        namespace: str | None,
        loop: asyncio.AbstractEventLoop,
        backlog: list[EventRecord] | Replay,
        revision: int,
        buffer: int,
        after: int = 0,
    ) -> None:
        self._hub = hub
        self._resource = resource
        self._namespace = namespace
        self._loop = loop
        # The backlog (a replay or the history after ``since``) is read before the queue,
        # which holds only live events: so it alone counts against ``buffer``.
        self._backlog: Iterator[EventRecord] = iter(backlog)
        self._backlog_left = len(backlog)
        self._queue: deque[EventRecord] = deque()
        self._limit = buffer
        self._seen = revision
        self._after = after  # live events at or below it are not for this watch
        self._ended = False
        self._stopped = False
        self._waiter: asyncio.Future[None] | None = None
        self._expired = False  # the current wait's timer fired (``next``)
        self.overflowed = False

    # Producer side: called with the hub lock held, from any thread.
    def _offer(self, record: EventRecord) -> bool:
        """Queue ``record`` if it concerns this watch; False when the watch just overflowed."""
        if self._ended:
            return True
        namespace = self._namespace
        if (
            record.resource == self._resource
            and (namespace is None or namespace == record.namespace)
            and record.revision > self._after
        ):
            if len(self._queue) >= self._limit:
                self.overflowed = True
                self._end()
                return False
            self._queue.append(record)
            self._wake()
        self._seen = record.revision
        return True

    def _end(self) -> None:
        self._ended = True
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is None:
            return
        try:
            self._loop.call_soon_threadsafe(_resolve, waiter)
        except RuntimeError:  # the loop is closed: nobody will ever read this watch
            self._ended = True
            self._stopped = True

    # Consumer side: the watch's event loop.
    @property
    def closed(self) -> bool:
        return self._ended

    @property
    def bookmark_revision(self) -> int | None:
        """A revision a bookmark may carry now: every event of this watch up to it has been
        returned by ``next``. None while events are still queued."""
        with self._hub._lock:
            return None if self._queue or self._backlog_left else self._seen

    async def next(self, timeout: float | None = None) -> WatchEvent | None:
        while True:
            if self._stopped:
                raise StopAsyncIteration
            if self._backlog_left:
                self._backlog_left -= 1
                return next(self._backlog).to_event()
            if self._queue:
                return self._queue.popleft().to_event()
            if self._ended:
                raise StopAsyncIteration
            if timeout is not None and timeout <= 0:
                return None
            loop = self._loop
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiter = waiter
            if self._queue or self._ended or self._stopped:
                self._waiter = None
                continue
            if timeout is None:
                try:
                    await waiter
                finally:
                    self._waiter = None
                continue
            # ``asyncio.timeout`` without its Timeout object and task cancellation: a timer
            # of our own, armed as ``Timeout.reschedule`` arms its (so the loop's callbacks
            # keep their order), marks the wait expired and wakes the waiter. As with
            # ``asyncio.timeout``, a wait whose timer fired is expired even when an event
            # woke it in the same loop iteration: the event stays queued for the next call.
            self._expired = False
            when = loop.time() + timeout
            if when <= loop.time():
                timer: asyncio.Handle = loop.call_soon(self._expire, waiter)
            else:
                timer = loop.call_at(when, self._expire, waiter)
            try:
                await waiter
            finally:
                self._waiter = None
                timer.cancel()
            if self._expired:
                return None

    def _expire(self, waiter: asyncio.Future[None]) -> None:
        self._expired = True
        if not waiter.done():
            waiter.set_result(None)

    def take_ready(self, limit: int) -> list[WatchEvent]:
        if self._stopped:
            return []
        # The backlog is the consumer's alone; the queue is shared with producers.
        records: list[EventRecord] = []
        while self._backlog_left and len(records) < limit:
            self._backlog_left -= 1
            records.append(next(self._backlog))
        # The hub lock orders this against producers appending from other threads.
        with self._hub._lock:
            count = min(limit - len(records), len(self._queue))
            records.extend(self._queue.popleft() for _ in range(count))
        return [record.to_event() for record in records]

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self

    async def __anext__(self) -> WatchEvent:
        event = await self.next()
        if event is None:  # pragma: no cover - next() without timeout never returns None
            raise StopAsyncIteration
        return event

    def close(self) -> None:
        self._stopped = True
        self._hub.detach(self)
        self._backlog_left = 0
        self._queue.clear()
        self._end()


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
