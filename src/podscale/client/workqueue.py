"""A work queue with client-go's contract, for controllers (``podscale.controllers``).

The contract (``k8s.io/client-go/util/workqueue``):
- An item is queued at most once: adding an item already waiting is a no-op.
- An item being processed (between ``get`` and ``done``) is never handed out twice; if it
  is added meanwhile, it is queued again when ``done`` is called, so no change is lost.
- ``add_after`` queues an item once a delay has passed; ``add_rate_limited`` asks the rate
  limiter for the delay (backoff on failure, or a fixed resync beat); ``forget`` resets it.
- After ``shut_down``, ``get`` returns ``None`` once the queue is drained.

Time is injected (``Clock``). ``get`` waits in asyncio until an item is ready, so on
``podscale.runtime``'s virtual-time loop (with its ``VirtualClock``) delayed items fall due
at exactly their virtual deadline with no change here. Code that drives time itself can
still use ``promote_ready`` / ``get_nowait`` and ``next_ready_at``.

Metrics: a queue reports to ``metrics`` (a ``client.workqueue_metrics.QueueMetrics``, by
default one that does nothing) exactly where client-go's queue reports to its
``MetricsProvider``: an add that queues the item (not one of an item already waiting), a
``get``, a ``done``, and every ``add_after`` as a retry.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
from collections import deque
from collections.abc import Hashable
from datetime import datetime, timedelta
from typing import Final, Generic, TypeVar

from podscale.client.ratelimit import RateLimiter, default_controller_rate_limiter
from podscale.client.workqueue_metrics import NOOP_QUEUE_METRICS, QueueMetrics
from podscale.store.interface import Clock

__all__ = ["WorkQueue"]

T = TypeVar("T", bound=Hashable)

_ZERO: Final = timedelta(0)


class WorkQueue(Generic[T]):
    """De-duplicating, delaying, rate-limited queue of hashable items (e.g. ``ns/name``)."""

    def __init__(
        self,
        clock: Clock,
        rate_limiter: RateLimiter | None = None,
        *,
        metrics: QueueMetrics = NOOP_QUEUE_METRICS,
    ) -> None:
        self._clock = clock
        self._metrics = metrics
        # The no-op hooks are skipped rather than called: four calls per item otherwise.
        self._counting = metrics is not NOOP_QUEUE_METRICS
        self._limiter = rate_limiter or default_controller_rate_limiter(clock)
        self._queue: deque[T] = deque()
        self._dirty: set[T] = set()  # waiting in _queue, or to requeue after done
        self._processing: set[T] = set()
        self._delayed: list[tuple[datetime, int, T]] = []  # heap by ready time
        self._sequence = itertools.count()  # FIFO among equal ready times
        self._shutting_down = False
        # The futures of the ``get`` calls waiting now, oldest first (an Event plus
        # ``wait_for`` cost a task and a timeout per wait). A ready item wakes one of them;
        # the shutdown wakes them all.
        self._waiters: dict[asyncio.Future[None], None] = {}
        # One timer for the earliest delayed item, when it falls due it promotes what is
        # due (each promoted item wakes one waiter). A timer per waiting worker woke every
        # idle worker of a controller for each delayed item.
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due: datetime | None = None
        self._fire_callback = self._fire  # one bound method, not one per armed timer
        # The loop last found running. While it runs in this thread it is the running loop
        # (one loop runs per thread), which is cheaper to check than to ask asyncio (whose
        # lookup makes a getpid system call).
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- adding -----------------------------------------------------------------------

    def add(self, item: T) -> None:
        if self._shutting_down or item in self._dirty:
            return
        if self._counting:
            self._metrics.add(item)
        self._dirty.add(item)
        if item in self._processing:
            return  # queued again by done()
        self._queue.append(item)
        if self._waiters:
            self._wake_one()

    def add_after(self, item: T, delay: timedelta) -> None:
        if self._shutting_down:
            return
        if self._counting:
            self._metrics.retry()  # client-go counts every AddAfter as a retry
        if delay <= _ZERO:
            self.add(item)
            return
        now = self._clock.now()
        ready_at = now + delay
        delayed = self._delayed
        heapq.heappush(delayed, (ready_at, next(self._sequence), item))
        due = delayed[0][0]
        if self._timer is not None and self._timer_due == due:
            return  # the timer is already set for the earliest item
        # ``_arm`` without a second clock reading: virtual time stands still within a
        # call, and ``ready_at - now`` is ``delay`` exactly (microsecond integers).
        self._arm_at(due, delay.total_seconds() if due == ready_at else _seconds(due - now))

    def add_rate_limited(self, item: T) -> None:
        self.add_after(item, self._limiter.when(item))

    def forget(self, item: T) -> None:
        self._limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return self._limiter.num_requeues(item)

    # -- time -------------------------------------------------------------------------

    def next_ready_at(self) -> datetime | None:
        """When the earliest delayed item falls due, if any."""
        return self._delayed[0][0] if self._delayed else None

    def promote_ready(self) -> int:
        """Queue every delayed item whose time has come; returns how many."""
        if not self._delayed:
            return 0  # nothing delayed: no need to read the clock
        return self._promote(self._clock.now())

    def _promote(self, now: datetime) -> int:
        delayed = self._delayed
        promoted = 0
        while delayed and delayed[0][0] <= now:
            _, _, item = heapq.heappop(delayed)
            self.add(item)
            promoted += 1
        return promoted

    # -- processing -------------------------------------------------------------------

    def get_nowait(self) -> T | None:
        """The next ready item (marked processing), or ``None`` if nothing is ready."""
        self.promote_ready()
        if not self._queue:
            return None
        item = self._queue.popleft()
        self._dirty.discard(item)
        self._processing.add(item)
        if self._counting:
            self._metrics.get(item)
        return item

    async def get(self) -> T | None:
        """Wait for the next item; ``None`` once shut down and drained."""
        while True:
            item = self.get_nowait()
            if item is not None:
                return item
            if self._shutting_down:
                return None
            loop = self._running_loop()
            if loop is None:  # awaited outside a loop: asyncio's own error
                loop = asyncio.get_running_loop()
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters[waiter] = None
            delayed = self._delayed
            if delayed and (self._timer is None or self._timer_due != delayed[0][0]):
                self._arm()
            try:
                await waiter
            finally:
                self._waiters.pop(waiter, None)  # cancelled: leave no stale waiter behind

    def _arm(self) -> None:
        """Keep the timer at the earliest delayed item (none without a running loop: code
        that drives time itself promotes with ``get_nowait``)."""
        due = self.next_ready_at()
        if due is None or (self._timer is not None and self._timer_due == due):
            return
        self._arm_at(due, _seconds(due - self._clock.now()))

    def _arm_at(self, due: datetime, delay: float) -> None:
        """(Re)set the timer for ``due``, ``delay`` seconds from now."""
        # ``_running_loop``'s first test inline: armed on nearly every ``add_after``.
        loop = self._loop
        if loop is None or getattr(loop, "_thread_id", None) != threading.get_ident():
            loop = self._running_loop()
            if loop is None:
                return
        if self._timer is not None:
            self._timer.cancel()
        # ``call_later``'s own sum, without its extra call: the same deadline.
        self._timer = loop.call_at(loop.time() + delay, self._fire_callback)
        self._timer_due = due

    def _running_loop(self) -> asyncio.AbstractEventLoop | None:
        """The running loop, or ``None`` outside one."""
        loop = self._loop
        if loop is not None and getattr(loop, "_thread_id", None) == threading.get_ident():
            return loop
        try:
            loop = self._loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        return loop

    def _fire(self) -> None:
        self._timer = self._timer_due = None
        delayed = self._delayed
        if not delayed:
            return
        # ``promote_ready`` then ``_arm``, on one clock reading (time stands still here).
        now = self._clock.now()
        self._promote(now)
        if delayed:  # promoting sets no timer: ``_arm`` would arm for the head here
            due = delayed[0][0]
            self._arm_at(due, _seconds(due - now))

    def done(self, item: T) -> None:
        """Processing finished; an item added meanwhile goes back in the queue."""
        self._processing.discard(item)
        if self._counting:
            self._metrics.done(item)
        if item in self._dirty:
            self._queue.append(item)
            if self._waiters:
                self._wake_one()

    def shut_down(self) -> None:
        self._shutting_down = True
        self._delayed.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = self._timer_due = None
        self._wake()

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    def __len__(self) -> int:
        """Items ready to be handed out (not counting delayed or processing ones)."""
        return len(self._queue)

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, {}
        for waiter in waiters:
            _resolve(waiter)

    def _wake_one(self) -> None:
        """Wake the longest-waiting ``get`` for one new ready item (waking them all sent
        a controller's every idle worker looking for the one item)."""
        while self._waiters:
            waiter = next(iter(self._waiters))
            del self._waiters[waiter]
            if not waiter.done():  # a waiter its timer woke is on its way anyway
                waiter.set_result(None)
                return


def _seconds(delay: timedelta) -> float:
    """A timer's delay: ``delay`` in seconds, never negative (a due item fires at once)."""
    return max(0.0, delay.total_seconds())


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
