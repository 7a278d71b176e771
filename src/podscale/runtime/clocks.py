"""Clocks over the event loop's time: what the store, work queues and controllers read.

Everything in podscale takes time from a ``Clock`` (``podscale.store.interface.Clock``) and
waits through asyncio. On a ``VirtualTimeLoop`` (``podscale.runtime.virtual_time``) both
must agree, so ``VirtualClock`` reads the loop: ``start + loop.time()``. On a real loop the
clock is the wall clock (``podscale.store.clock.SystemClock``, the project's only reader of
it). ``current_clock`` picks the right one for the running loop, so the same coroutine code
runs on either (``podscale.runtime.kernel.run``).
"""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, timedelta

from podscale.runtime.virtual_time import DEFAULT_START, VirtualTimeLoop
from podscale.store.clock import SystemClock
from podscale.store.interface import Clock

__all__ = ["VirtualClock", "current_clock"]


class VirtualClock:
    """``start`` plus the virtual time of ``loop`` (or of the running loop, if unbound).

    Before any loop runs (an unbound clock outside a loop) it reads ``start``, so objects
    can be built with it ahead of ``run_virtual``. Reading an unbound clock inside a loop
    that is not virtual is a mistake (the two times would disagree) and raises.
    """

    def __init__(self, start: datetime = DEFAULT_START, loop: VirtualTimeLoop | None = None):
        if start.tzinfo is None:
            raise ValueError("VirtualClock needs a timezone-aware start time")
        self._start = start
        self._loop = loop
        # The last reading: virtual time stands still between loop steps, and a step reads
        # the clock many times (datetime arithmetic was 3% of a replay).
        self._read_at = 0.0
        self._read = start
        # The loop an unbound clock last found running: while it runs in the reading
        # thread it is that thread's running loop (asyncio's lookup of the running loop
        # makes a getpid system call, and clocks are read on every loop step).
        self._found: VirtualTimeLoop | None = None

    @classmethod
    def of(cls, loop: VirtualTimeLoop) -> VirtualClock:
        """The clock of ``loop``, starting where the loop starts."""
        return cls(loop.start, loop)

    @property
    def start(self) -> datetime:
        return self._start

    def now(self) -> datetime:
        # ``elapsed`` inlined for the two usual cases (a bound clock; an unbound one whose
        # loop runs in this thread): the clock is read several times per loop step.
        loop = self._loop
        if loop is None:
            loop = self._found
            if loop is None or loop._thread_id != threading.get_ident():
                loop = None
        # (``_virtual_now`` is what the loop's ``time()`` returns, read without the call.)
        elapsed = self.elapsed() if loop is None else loop._virtual_now
        if elapsed != self._read_at:
            self._read_at = elapsed
            self._read = self._start + timedelta(seconds=elapsed)
        return self._read

    def elapsed(self) -> float:
        """Virtual seconds since ``start``."""
        loop = self._loop
        if loop is None:
            found = self._found
            if found is not None and found.runs_in_this_thread():
                return found.time()
            running = asyncio._get_running_loop()
            if running is None:
                return 0.0
            if not isinstance(running, VirtualTimeLoop):
                raise RuntimeError("VirtualClock read inside an event loop without virtual time")
            loop = self._found = running
        return loop.time()


def current_clock() -> Clock:
    """The clock of the running loop: virtual on a ``VirtualTimeLoop``, else the wall clock."""
    loop = asyncio.get_running_loop()
    if isinstance(loop, VirtualTimeLoop):
        return VirtualClock.of(loop)
    return SystemClock()
