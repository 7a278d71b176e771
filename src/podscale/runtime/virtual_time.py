"""The virtual-time event loop: asyncio whose clock jumps to the next timer instead of waiting.

``VirtualTimeLoop`` is an ordinary selector event loop in everything but time: ``time()`` is
virtual (seconds since the loop's ``start``, beginning at 0.0), and whenever the loop would
block waiting for its next timer, it jumps virtual time to that timer's deadline instead
(trio's ``MockClock(autojump_threshold=0)``). ``await asyncio.sleep(300)`` thus returns at
once in wall time with ``loop.time()`` 300 s later, ``asyncio.wait_for`` times out in
virtual time, and every asyncio-based component (informers, the work queue, watch streams,
controllers) runs on it unchanged. ``podscale.runtime.clocks`` turns the loop's time into a
``Clock``; ``podscale.runtime.kernel`` runs a program on this loop or on a real one.

Determinism: callbacks run in the order asyncio defines (FIFO for ``call_soon``), and timers
in deadline order with ties broken by scheduling order (plain asyncio leaves ties to the
heap's whim), so the same program gives the same sequence of (virtual time, event).
Real I/O (sockets) is the one input the loop does not control.

Threads: work done in other threads takes real time, and virtual time stands still while
it runs. The loop knows about work it hands out itself (``run_in_executor``, hence
``asyncio.to_thread``): while any of it is unfinished, the loop waits for it (really) rather
than jump. A thread the loop did not start may still wake it with ``call_soon_threadsafe``,
but the loop will not wait for such a thread before jumping ahead.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import selectors
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from contextvars import Context
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar, TypeVarTuple, Unpack

if TYPE_CHECKING:
    from _typeshed import FileDescriptorLike

__all__ = ["DEFAULT_START", "VirtualTimeLoop"]

DEFAULT_START = datetime(2026, 1, 1, tzinfo=UTC)
# Timers within this much of "now" are due (asyncio's _clock_resolution). Microseconds, the
# resolution of ``datetime``; asyncio's default (1 ns) would, once virtual time grows past
# ~10^7 s, vanish in float rounding and leave a due timer unfired forever.
_RESOLUTION = 1e-6

_T = TypeVar("_T")
_Ts = TypeVarTuple("_Ts")


class _OrderedTimer(asyncio.TimerHandle):
    """A timer that sorts by (deadline, scheduling order): equal deadlines fire FIFO."""

    __slots__ = ("_sequence",)
    _when: float  # TimerHandle's slot; read directly, as heap comparisons are hot

    def __init__(
        self,
        when: float,
        sequence: int,
        callback: Callable[..., object],
        args: tuple[Any, ...],
        loop: asyncio.AbstractEventLoop,
        context: Context | None,
    ) -> None:
        super().__init__(when, callback, args, loop, context)
        self._sequence = sequence

    def __lt__(self, other: asyncio.TimerHandle) -> bool:
        if isinstance(other, _OrderedTimer):
            return (self._when, self._sequence) < (other._when, other._sequence)
        return self._when < other.when()


class _JumpingSelector(selectors.BaseSelector):
    """The loop's selector, wrapped: the one place where virtual time moves.

    ``BaseEventLoop._run_once`` polls its selector with timeout 0 when callbacks are ready,
    ``None`` when nothing is scheduled at all, and otherwise the time until the earliest
    timer. Only that last case is a wait for a timer; there, this selector first polls for
    real (for I/O, and for thread-safe callbacks, which arrive through the loop's self-pipe)
    and, if nothing came and no executor work is outstanding, moves virtual time to the
    timer's deadline and reports no events, so ``_run_once`` finds the timer due.
    """

    def __init__(self, loop: VirtualTimeLoop, inner: selectors.BaseSelector) -> None:
        self._loop = loop
        self._inner = inner

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        loop = self._loop
        if timeout is None or timeout <= 0:
            return self._inner.select(timeout)
        if loop.threads_busy:
            # A thread's result will arrive through the self-pipe; virtual time waits for it.
            return self._inner.select(None)
        events = self._inner.select(loop.autojump_threshold)
        if events:
            return events
        loop.advance_to_next_timer()
        return []

    def register(
        self, fileobj: FileDescriptorLike, events: int, data: Any = None
    ) -> selectors.SelectorKey:
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj: FileDescriptorLike) -> selectors.SelectorKey:
        return self._inner.unregister(fileobj)

    def modify(
        self, fileobj: FileDescriptorLike, events: int, data: Any = None
    ) -> selectors.SelectorKey:
        return self._inner.modify(fileobj, events, data)

    def get_map(self) -> Mapping[FileDescriptorLike, selectors.SelectorKey]:
        return self._inner.get_map()

    def close(self) -> None:
        self._inner.close()


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An asyncio loop on virtual time that starts at ``start`` (timezone-aware).

    ``autojump_threshold`` (real seconds, default 0) is how long the loop first waits for
    real I/O before it jumps: 0 suits a closed simulation; serving real clients (kubectl
    against a simulated cluster) may want a little slack so requests are not starved.
    """

    # Set by BaseEventLoop.__init__; declared for the type checker.
    _scheduled: list[asyncio.TimerHandle]
    _ready: deque[asyncio.Handle]
    _clock_resolution: float

    def __init__(self, start: datetime = DEFAULT_START, *, autojump_threshold: float = 0.0) -> None:
        self._virtual_now = 0.0
        self._timer_sequence = itertools.count()
        self._threads_busy = 0
        self._iterations = 0
        self._jumps = 0
        self.start = start
        self.autojump_threshold = autojump_threshold
        super().__init__(_JumpingSelector(self, selectors.DefaultSelector()))
        self._clock_resolution = _RESOLUTION
        # Checked once the loop exists: a half-built loop fails noisily in __del__.
        problem = _check_arguments(start, autojump_threshold)
        if problem:
            self.close()
            raise ValueError(problem)

    # -- time -----------------------------------------------------------------------------

    def time(self) -> float:
        return self._virtual_now

    def advance_to_next_timer(self) -> None:
        """Jump to the earliest live timer's deadline (never backwards)."""
        while self._scheduled and self._scheduled[0].cancelled():
            # _run_once prunes cancelled heads before polling; this keeps the call safe alone.
            heapq.heappop(self._scheduled)._scheduled = False  # type: ignore[attr-defined]
        if self._scheduled:
            deadline = self._scheduled[0].when()
            if deadline > self._virtual_now:
                self._virtual_now = deadline
                self._jumps += 1

    def call_at(
        self,
        when: float,
        callback: Callable[[Unpack[_Ts]], object],
        *args: *_Ts,
        context: Context | None = None,
    ) -> asyncio.TimerHandle:
        """As asyncio's, with a timer that keeps FIFO order among equal deadlines."""
        self._check_closed()  # type: ignore[attr-defined]
        if self.get_debug():
            self._check_thread()  # type: ignore[attr-defined]
            self._check_callback(callback, "call_at")  # type: ignore[attr-defined]
        timer = _OrderedTimer(when, next(self._timer_sequence), callback, args, self, context)
        heapq.heappush(self._scheduled, timer)
        timer._scheduled = True  # type: ignore[attr-defined]
        return timer

    # -- threads --------------------------------------------------------------------------

    def run_in_executor(
        self, executor: Executor | None, func: Callable[[Unpack[_Ts]], _T], *args: *_Ts
    ) -> asyncio.Future[_T]:
        """As asyncio's; virtual time does not move until the work is done (or abandoned)."""
        future = super().run_in_executor(executor, func, *args)
        self._threads_busy += 1
        future.add_done_callback(self._thread_finished)
        return future

    def _thread_finished(self, _: asyncio.Future[Any]) -> None:
        self._threads_busy -= 1

    @property
    def threads_busy(self) -> int:
        """Executor jobs handed out by this loop and not finished yet."""
        return self._threads_busy

    # -- statistics (for tests and benchmarks) --------------------------------------------

    def _run_once(self) -> None:
        self._iterations += 1
        super()._run_once()  # type: ignore[misc]

    @property
    def iterations(self) -> int:
        """How many times the loop has run one iteration (``_run_once``)."""
        return self._iterations

    @property
    def jumps(self) -> int:
        """How many times virtual time has jumped forward."""
        return self._jumps


def _check_arguments(start: datetime, autojump_threshold: float) -> str:
    if start.tzinfo is None:
        return "VirtualTimeLoop needs a timezone-aware start time"
    if autojump_threshold < 0:
        return "autojump_threshold must not be negative"
    return ""
