"""The virtual-time loop: waits complete by jumping, timers fire in (deadline, FIFO) order,
timeouts happen in virtual time, and executor threads hold virtual time still."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import socket
import threading
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.runtime import VirtualTimeLoop

T = TypeVar("T")


def run_on(loop: VirtualTimeLoop, main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``main()`` on ``loop`` and close the loop (an unclosed loop warns)."""
    try:
        return loop.run_until_complete(main())
    finally:
        loop.close()


def test_a_long_sleep_advances_virtual_time_exactly_in_one_jump() -> None:
    loop = VirtualTimeLoop()

    async def main() -> float:
        await asyncio.sleep(3600)
        return loop.time()

    assert run_on(loop, main) == 3600.0
    # No spinning: a handful of iterations and a single jump carry the whole hour.
    assert loop.jumps == 1
    assert loop.iterations <= 5


def test_time_starts_at_zero_and_stands_still_without_timers() -> None:
    loop = VirtualTimeLoop()

    async def main() -> list[float]:
        seen = [loop.time()]
        for _ in range(100):
            await asyncio.sleep(0)  # ready callbacks only: nothing to jump to
        seen.append(loop.time())
        return seen

    assert run_on(loop, main) == [0.0, 0.0]
    assert loop.jumps == 0


@pytest.mark.parametrize(
    ("delays", "expected"),
    [
        ([3.0, 1.0, 2.0], [(1.0, 1), (2.0, 2), (3.0, 0)]),
        ([5.0, 5.0, 5.0, 5.0], [(5.0, 0), (5.0, 1), (5.0, 2), (5.0, 3)]),
        ([2.0, 1.0, 2.0, 1.0, 0.0], [(0.0, 4), (1.0, 1), (1.0, 3), (2.0, 0), (2.0, 2)]),
        ([86400.0 * 365, 0.5], [(0.5, 1), (86400.0 * 365, 0)]),
    ],
    ids=["different-deadlines", "equal-deadlines-fifo", "mixed", "a-year-and-half-a-second"],
)
def test_timers_fire_by_deadline_then_scheduling_order(
    delays: list[float], expected: list[tuple[float, int]]
) -> None:
    loop = VirtualTimeLoop()
    fired: list[tuple[float, int]] = []

    async def main() -> None:
        for index, delay in enumerate(delays):
            loop.call_later(delay, lambda i=index: fired.append((loop.time(), i)))
        await asyncio.sleep(max(delays) + 1)

    run_on(loop, main)
    assert fired == expected


@given(st.lists(st.integers(min_value=0, max_value=20), min_size=1, max_size=60))
def test_any_timer_set_fires_sorted_by_deadline_and_fifo_at_its_deadline(delays: list[int]) -> None:
    loop = VirtualTimeLoop()
    fired: list[tuple[float, int]] = []

    async def main() -> None:
        for index, delay in enumerate(delays):
            loop.call_later(delay, lambda i=index: fired.append((loop.time(), i)))
        await asyncio.sleep(21)

    run_on(loop, main)
    assert fired == sorted((float(delay), index) for index, delay in enumerate(delays))


def test_cancelled_timers_do_not_fire_or_move_time() -> None:
    loop = VirtualTimeLoop()
    fired: list[float] = []

    async def main() -> float:
        doomed = loop.call_later(100, lambda: fired.append(loop.time()))
        loop.call_later(7, lambda: fired.append(loop.time()))
        doomed.cancel()
        await asyncio.sleep(8)
        return loop.time()

    assert run_on(loop, main) == 8.0
    assert fired == [7.0]


def test_timers_still_fire_far_into_virtual_time() -> None:
    # asyncio's default 1 ns resolution disappears in float rounding at ~10^8 s; a due timer
    # would then never be taken and the loop would spin forever.
    loop = VirtualTimeLoop()

    async def main() -> float:
        await asyncio.sleep(5e8)
        for _ in range(1000):
            await asyncio.sleep(0.25)
        return loop.time()

    assert run_on(loop, main) == 5e8 + 250.0


@pytest.mark.parametrize(
    ("timeout", "work", "outcome"),
    [(3.0, 10.0, "timeout"), (10.0, 3.0, "done"), (0.0, 1.0, "timeout")],
    ids=["times-out", "finishes-first", "zero-timeout"],
)
def test_wait_for_times_out_in_virtual_time(timeout: float, work: float, outcome: str) -> None:
    loop = VirtualTimeLoop()

    async def main() -> tuple[str, float]:
        try:
            await asyncio.wait_for(asyncio.sleep(work), timeout)
        except TimeoutError:
            return "timeout", loop.time()
        return "done", loop.time()

    assert run_on(loop, main) == (outcome, min(timeout, work))


def test_asyncio_timeout_context_expires_in_virtual_time() -> None:
    loop = VirtualTimeLoop()

    async def main() -> float:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(42):
                await asyncio.Event().wait()
        return loop.time()

    assert run_on(loop, main) == 42.0


def test_executor_work_holds_virtual_time_still_until_it_is_done() -> None:
    loop = VirtualTimeLoop()

    def work() -> bytes:
        # Real work in a thread (hashlib releases the GIL on large input): without the hold,
        # the loop would jump to the sleeper's deadline meanwhile.
        return hashlib.sha256(b"x" * 20_000_000).digest()

    async def main() -> tuple[float, bool, float]:
        sleeper = asyncio.create_task(asyncio.sleep(100))
        await asyncio.to_thread(work)
        after_work = loop.time()
        sleeper_done = sleeper.done()
        await sleeper
        return after_work, sleeper_done, loop.time()

    assert run_on(loop, main) == (0.0, False, 100.0)
    assert loop.threads_busy == 0


def test_call_soon_threadsafe_wakes_a_loop_that_has_no_timers() -> None:
    loop = VirtualTimeLoop()

    async def main() -> tuple[int, float]:
        future: asyncio.Future[int] = loop.create_future()
        thread = threading.Thread(target=lambda: loop.call_soon_threadsafe(future.set_result, 7))
        thread.start()
        value = await future
        thread.join()
        return value, loop.time()

    assert run_on(loop, main) == (7, 0.0)


def test_a_naive_start_time_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        VirtualTimeLoop(datetime(2026, 1, 1))


def test_start_is_kept_for_clocks() -> None:
    start = datetime(2030, 6, 1, 12, tzinfo=UTC)
    loop = VirtualTimeLoop(start)
    try:
        assert loop.start == start
        assert loop.time() == 0.0
    finally:
        loop.close()


def test_a_negative_autojump_threshold_is_refused() -> None:
    with pytest.raises(ValueError, match="must not be negative"):
        VirtualTimeLoop(autojump_threshold=-1.0)


def test_real_sockets_and_virtual_timers_share_the_loop() -> None:
    # With a socket registered, the loop still jumps once a zero-timeout poll finds no I/O,
    # and data written at virtual t=10 is read at t=10.
    loop = VirtualTimeLoop()
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)

    async def main() -> tuple[bytes, float]:
        async def write_later() -> None:
            await asyncio.sleep(10)
            await loop.sock_sendall(writer, b"ping")

        sender = asyncio.create_task(write_later())
        data = await loop.sock_recv(reader, 16)
        await sender
        return data, loop.time()

    try:
        assert run_on(loop, main) == (b"ping", 10.0)
    finally:
        reader.close()
        writer.close()


def test_a_closed_simulation_never_polls_the_selector() -> None:
    # Only the self-pipe is registered and nothing writes to it: a poll could find nothing.
    loop = VirtualTimeLoop()

    async def main() -> float:
        event = asyncio.Event()
        loop.call_later(50, event.set)
        for _ in range(20):
            await asyncio.sleep(1.5)
        await event.wait()
        return loop.time()

    assert run_on(loop, main) == 50.0
    assert loop.jumps > 0
    assert loop.polls == 0


def test_call_soon_threadsafe_from_another_thread_reaches_a_jumping_loop() -> None:
    # The loop is busy jumping between timers (no real poll needed for them); a thread's
    # callback still arrives, and its self-pipe byte is drained by a real poll.
    loop = VirtualTimeLoop()
    arrived = threading.Event()

    async def main() -> int:
        future: asyncio.Future[int] = loop.create_future()

        def from_thread() -> None:
            loop.call_soon_threadsafe(future.set_result, 3)
            arrived.set()

        thread = threading.Thread(target=from_thread)
        thread.start()
        while not arrived.is_set() or not future.done():
            await asyncio.sleep(1)
        thread.join()
        return await future

    assert run_on(loop, main) == 3
    assert loop.polls >= 1


def test_call_soon_threadsafe_on_the_loop_thread_keeps_fifo_order() -> None:
    loop = VirtualTimeLoop()
    order: list[str] = []

    async def main() -> None:
        loop.call_soon(order.append, "a")
        loop.call_soon_threadsafe(order.append, "b")
        loop.call_soon(order.append, "c")
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    run_on(loop, main)
    assert order == ["a", "b", "c"]
    assert loop.polls == 0


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="needs SIGUSR1 (POSIX)")
def test_a_signal_handler_runs_while_virtual_time_jumps() -> None:
    # Signals reach asyncio through the self-pipe: with a handler installed the loop polls.
    loop = VirtualTimeLoop()
    received: list[float] = []

    async def main() -> list[float]:
        loop.add_signal_handler(signal.SIGUSR1, lambda: received.append(loop.time()))
        try:
            os.kill(os.getpid(), signal.SIGUSR1)
            for _ in range(10):
                await asyncio.sleep(1)
                if received:
                    break
        finally:
            loop.remove_signal_handler(signal.SIGUSR1)
        return received

    assert run_on(loop, main) != []


@given(
    st.lists(
        st.tuples(st.integers(min_value=0, max_value=30), st.booleans()),
        min_size=1,
        max_size=400,
    )
)
def test_timers_fire_in_order_when_most_are_cancelled(timers: list[tuple[int, bool]]) -> None:
    # More than 100 timers, over half cancelled, makes the loop rebuild its heap: the live
    # ones still fire by (deadline, scheduling order).
    loop = VirtualTimeLoop()
    fired: list[tuple[float, int]] = []

    async def main() -> None:
        handles = [
            loop.call_later(delay, lambda i=index: fired.append((loop.time(), i)))
            for index, (delay, _) in enumerate(timers)
        ]
        for handle, (_, cancel) in zip(handles, timers, strict=True):
            if cancel:
                handle.cancel()
        await asyncio.sleep(31)

    run_on(loop, main)
    expected = sorted(
        (float(delay), index) for index, (delay, cancel) in enumerate(timers) if not cancel
    )
    assert fired == expected
