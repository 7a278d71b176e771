"""Keeping small requests fast while large LISTs and watch replays run.

The server answers every request on one asyncio loop. A LIST of 5,000 pods is ~60 ms of
CPU (decode, convert, encode) and a watch replay of them more; done on the loop, ten of them
at once hold every GET, TLS handshake and watch event back for a second or more.
kube-apiserver solves the same problem with API Priority and Fairness, which charges a LIST
more seats than a GET and queues the excess. ``HeavyWork`` is the same idea, small: heavy
work runs on worker threads (so the loop keeps serving between the interpreter's thread
switches) and at most ``slots`` of it at a time (so a burst of large LISTs queues instead of
multiplying the threads the loop competes with for the GIL). Requests that are not heavy
never wait for it. A serving process also shortens the interpreter's switch interval, so
the loop waits at most about a millisecond for the lock a heavy thread holds.

Used by ``handlers_read`` (LIST bodies and Tables) and ``watch`` (the initial replay of a
watch from resourceVersion "" or "0"); ``app.create_app`` makes one per server
(``ServerState.heavy_work``). The in-process transport does not use it: it has no loop to
protect from itself, and virtual time must not wait for threads.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Final, ParamSpec, TypeVar

__all__ = [
    "DEFAULT_HEAVY_SLOTS",
    "REPLAY_BATCH",
    "SWITCH_INTERVAL",
    "HeavyWork",
    "shorten_switch_interval",
]

P = ParamSpec("P")
R = TypeVar("R")

# One slot: a second heavy thread only competes for the same interpreter lock (the work is
# Python, not I/O), and each contender lengthens the loop's wait for it. Measured in
# bench/apiserver.py (docs/performance.md): small-request p99 during 10 concurrent LISTs of
# 5,000 pods 104 ms with two slots, 59 ms with one, at the same LIST throughput.
DEFAULT_HEAVY_SLOTS: Final = 1
# How long a thread may hold the interpreter lock while another waits for it. CPython's
# default is 5 ms; the loop thread asks for the lock several times per request, so a
# server with heavy work on a thread shortens it (``shorten_switch_interval``).
SWITCH_INTERVAL: Final = 0.001
# Watch replays are encoded this many events at a time: a few ms of work per batch, large
# enough that the thread hop (~50 µs) is noise.
REPLAY_BATCH: Final = 500


def shorten_switch_interval() -> None:
    """Make the interpreter hand its lock over within ``SWITCH_INTERVAL`` (process-wide;
    never lengthens a shorter setting). Called when a server starts serving."""
    if sys.getswitchinterval() > SWITCH_INTERVAL:
        sys.setswitchinterval(SWITCH_INTERVAL)


class HeavyWork:
    """Runs CPU-heavy request work off the loop, ``slots`` at a time, first come first served.

    The semaphore is created lazily, inside the loop that first uses it: a server object can
    be built before its loop exists (``start_in_thread`` builds the app on another thread).
    """

    def __init__(self, slots: int = DEFAULT_HEAVY_SLOTS) -> None:
        if slots < 1:
            raise ValueError("slots must be at least 1")
        self.slots = slots
        self._semaphore: asyncio.Semaphore | None = None
        self.waiting = 0  # requests queued for a slot now (for /metrics and tests)

    def _gate(self) -> asyncio.Semaphore:
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.slots)
        return self._semaphore

    async def run(self, function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``function(*args, **kwargs)`` on a worker thread once a slot is free.

        Exceptions (``ApiError`` included) propagate to the caller unchanged. A caller
        cancelled while waiting gives its place up; one cancelled while the thread runs
        releases the slot when the thread is done (the thread cannot be interrupted).
        """
        gate = self._gate()
        self.waiting += 1
        try:
            await gate.acquire()
        finally:
            self.waiting -= 1
        work = asyncio.ensure_future(asyncio.to_thread(function, *args, **kwargs))
        try:
            result = await asyncio.shield(work)
        except asyncio.CancelledError:
            # The thread runs on: its slot stays taken until it ends.
            work.add_done_callback(lambda _: gate.release())
            raise
        except BaseException:
            gate.release()
            raise
        gate.release()
        return result
