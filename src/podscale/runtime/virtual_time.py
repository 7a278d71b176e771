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

Cost: a closed simulation spends most of its loop iterations between two timers of one
instant, so the loop's own overhead is paid per callback. Its timers live in a heap of
``(deadline, sequence, handle)`` tuples (compared in C, not through a Python ``__lt__``);
its selector (``runtime.jumping_selector``) is not polled while nothing could arrive
through it (no file descriptor but the loop's self-pipe, no signal handler, no executor
work, nothing written to the self-pipe by another thread, known from a count of
registrations kept by the selector);
``call_soon``, ``call_at`` and the jump to the next timer skip asyncio's inner calls outside
debug mode; and ``call_soon_threadsafe`` from the loop's own thread is a ``call_soon`` (the
store's watch wake-ups use it from either side). Outside debug mode the handles are
``runtime.loop_handles``' subclasses of ``Handle``/``TimerHandle``, built and cancelled
without asking the loop for its debug flag through a method call each time, and the
iteration runs a handle's callback itself (``Handle._run``'s body, with its error report)
rather than through one more call per callback. None of this changes which callback runs when.

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
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor
from contextvars import Context
from datetime import UTC, datetime
from typing import Any, TypeVar, TypeVarTuple, Unpack

from podscale.runtime.jumping_selector import JumpingSelector
from podscale.runtime.loop_handles import Handle, TimerHandle, callback_failed

__all__ = ["DEFAULT_START", "VirtualTimeLoop"]

DEFAULT_START = datetime(2026, 1, 1, tzinfo=UTC)
# Timers within this much of "now" are due (asyncio's _clock_resolution). Microseconds, the
# resolution of ``datetime``; asyncio's default (1 ns) would, once virtual time grows past
# ~10^7 s, vanish in float rounding and leave a due timer unfired forever.
_RESOLUTION = 1e-6

_T = TypeVar("_T")
_Ts = TypeVarTuple("_Ts")


# asyncio's thresholds for rebuilding the timer heap without its cancelled timers.
_MIN_SCHEDULED_TIMERS = 100
_MIN_CANCELLED_FRACTION = 0.5

_Timer = tuple[float, int, asyncio.TimerHandle]


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An asyncio loop on virtual time that starts at ``start`` (timezone-aware).

    ``autojump_threshold`` (real seconds, default 0) is how long the loop first waits for
    real I/O before it jumps: 0 suits a closed simulation; serving real clients (kubectl
    against a simulated cluster) may want a little slack so requests are not starved.
    """

    # Set by BaseEventLoop.__init__; declared for the type checker. ``_scheduled`` holds
    # ``_Timer`` tuples here (BaseEventLoop only clears it on close; ``_run_once`` and
    # ``call_at`` are this class's own).
    _scheduled: list[_Timer]
    _ready: deque[asyncio.Handle]
    _clock_resolution: float
    _timer_cancelled_count: int
    _stopping: bool
    _debug: bool
    _current_handle: asyncio.Handle | None
    _signal_handlers: dict[int, asyncio.Handle]
    _thread_id: int | None
    _closed: bool
    _selector: JumpingSelector

    def __init__(self, start: datetime = DEFAULT_START, *, autojump_threshold: float = 0.0) -> None:
        self._virtual_now = 0.0
        self._timer_sequence = itertools.count()
        self._threads_busy = 0
        self._iterations = 0
        self._jumps = 0
        # Set by every write to the self-pipe (another thread's call_soon_threadsafe, a
        # finished executor job); the next selector call then polls for real and drains it.
        self._woken = False
        # True while the selector waits for real: a signal handler run meanwhile (asyncio's
        # Runner cancels on Ctrl-C with call_soon_threadsafe) must wake the poll for real.
        self._polling = False
        self.polls = 0  # real polls of the selector (a statistic, as iterations and jumps)
        self.start = start
        self.autojump_threshold = autojump_threshold
        super().__init__(JumpingSelector(self, selectors.DefaultSelector()))
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
        scheduled = self._scheduled
        while scheduled and scheduled[0][2].cancelled():
            # _run_once prunes cancelled heads before polling; this keeps the call safe alone.
            self._timer_cancelled_count -= 1
            heapq.heappop(scheduled)[2]._scheduled = False  # type: ignore[attr-defined]
        if scheduled:
            deadline = scheduled[0][0]
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
        if self._closed:  # asyncio's _check_closed and get_debug, without their calls
            raise RuntimeError("Event loop is closed")
        if self._debug:
            self._check_thread()  # type: ignore[attr-defined]
            self._check_callback(callback, "call_at")  # type: ignore[attr-defined]
        if self._debug:
            timer = asyncio.TimerHandle(when, callback, args, self, context)
        else:
            timer = TimerHandle(when, callback, args, self, context)
        heapq.heappush(self._scheduled, (when, next(self._timer_sequence), timer))
        timer._scheduled = True  # type: ignore[attr-defined]
        return timer

    def call_soon(
        self,
        callback: Callable[[Unpack[_Ts]], object],
        *args: *_Ts,
        context: Context | None = None,
    ) -> asyncio.Handle:
        """As asyncio's, without its two inner calls outside debug mode (every future's
        callbacks, so every task wake-up, come through here)."""
        if self._closed:
            raise RuntimeError("Event loop is closed")
        if self._debug:
            return super().call_soon(callback, *args, context=context)
        handle = Handle(callback, args, self, context)
        self._ready.append(handle)
        return handle

    def call_soon_threadsafe(
        self, callback: Callable[[Unpack[_Ts]], object], *args: *_Ts, context: Context | None = None
    ) -> asyncio.Handle:
        """As asyncio's; from the loop's own thread, ``call_soon`` (the same place in the
        ready queue, without waking the loop through its self-pipe: it is awake, unless a
        signal handler runs inside its poll)."""
        if not self._polling and self.runs_in_this_thread():
            return self.call_soon(callback, *args, context=context)
        return super().call_soon_threadsafe(callback, *args, context=context)

    def _write_to_self(self) -> None:
        self._woken = True
        super()._write_to_self()  # type: ignore[misc]

    def may_receive(self) -> bool:
        """Whether a real poll of the selector could find anything: a registered file
        descriptor besides the self-pipe, a signal handler (signals arrive through the
        self-pipe), executor work, a self-pipe write not yet drained, or a wait for real
        I/O (``autojump_threshold``). Reading it takes back the pending wake-up."""
        if self._woken:
            self._woken = False
            return True
        return bool(
            self._threads_busy
            or self.autojump_threshold
            or self._signal_handlers
            or self._selector.registered > 1
        )

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

    def runs_in_this_thread(self) -> bool:
        """Whether the loop is running in the calling thread (then it is that thread's
        running loop; cheaper than asking asyncio, which makes a system call)."""
        return self._thread_id == threading.get_ident()

    @property
    def threads_busy(self) -> int:
        """Executor jobs handed out by this loop and not finished yet."""
        return self._threads_busy

    # -- statistics (for tests and benchmarks) --------------------------------------------

    # -- the iteration --------------------------------------------------------------------

    def _run_once(self) -> None:
        """``BaseEventLoop._run_once`` over the tuple heap: prune cancelled timers, poll (the
        selector jumps virtual time), move due timers to the ready queue, run what was ready.
        Debug mode's slow-callback warning is left out: callbacks take no virtual time."""
        self._iterations += 1
        scheduled = self._scheduled
        count = len(scheduled)
        if (
            count > _MIN_SCHEDULED_TIMERS
            and self._timer_cancelled_count / count > _MIN_CANCELLED_FRACTION
        ):
            live: list[_Timer] = []
            for entry in scheduled:
                if entry[2]._cancelled:
                    entry[2]._scheduled = False  # type: ignore[attr-defined]
                else:
                    live.append(entry)
            heapq.heapify(live)
            scheduled[:] = live
            self._timer_cancelled_count = 0
        else:
            while scheduled and scheduled[0][2]._cancelled:
                self._timer_cancelled_count -= 1
                heapq.heappop(scheduled)[2]._scheduled = False  # type: ignore[attr-defined]

        ready = self._ready
        timeout: float | None = None
        if ready or self._stopping:
            timeout = 0
        elif scheduled:
            timeout = max(0.0, scheduled[0][0] - self._virtual_now)
        if timeout is not None and not self.may_receive():
            # The selector's ``select`` in this case, without its call: nothing can
            # arrive, so at most move time to the next timer.
            if timeout > 0:
                # ``advance_to_next_timer``: the head is live (pruned above) and later.
                self._virtual_now = scheduled[0][0]
                self._jumps += 1
        else:
            events = self._selector.poll(timeout)
            if events:
                self._process_events(events)  # type: ignore[attr-defined]
            del events  # breaks cycles when an exception occurs, as asyncio does

        end_time = self._virtual_now + self._clock_resolution
        while scheduled and scheduled[0][0] < end_time:
            timer = heapq.heappop(scheduled)[2]
            timer._scheduled = False  # type: ignore[attr-defined]
            ready.append(timer)

        # Only what is ready now; callbacks scheduled by these run next time (asyncio's rule).
        for _ in range(len(ready)):
            handle = ready.popleft()
            if handle._cancelled:
                continue
            if self._debug:
                try:
                    self._current_handle = handle
                    handle._run()
                finally:
                    self._current_handle = None
                continue
            # ``handle._run()`` inlined: its call, then its error report.
            try:
                handle._context.run(handle._callback, *handle._args)  # type: ignore[attr-defined]
            except (SystemExit, KeyboardInterrupt):
                raise
            except BaseException as exc:
                callback_failed(handle, exc)

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
