"""The virtual-time loop's and clock's shortcuts equal the general paths: ``call_soon``
without asyncio's inner calls, the selector's registration count instead of its map, the
selector skipped without a call, and ``VirtualClock.now`` reading the loop directly."""

from __future__ import annotations

import asyncio
import socket
import threading
from datetime import timedelta

import pytest

from podscale.runtime import VirtualTimeLoop
from podscale.runtime.clocks import VirtualClock


def test_call_soon_keeps_fifo_order_and_returns_a_live_handle() -> None:
    loop = VirtualTimeLoop()
    order: list[int] = []

    async def main() -> None:
        handles = [loop.call_soon(order.append, i) for i in range(5)]
        handles[2].cancel()
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
    assert order == [0, 1, 3, 4]


def test_call_soon_on_a_closed_loop_is_asyncios_error() -> None:
    loop = VirtualTimeLoop()
    loop.close()
    with pytest.raises(RuntimeError, match="Event loop is closed"):
        loop.call_soon(print)
    with pytest.raises(RuntimeError, match="Event loop is closed"):
        loop.call_at(1.0, print)


def test_debug_mode_keeps_asyncios_checks() -> None:
    async def coroutine_function() -> None:
        pass

    loop = VirtualTimeLoop()
    loop.set_debug(True)
    try:
        with pytest.raises(TypeError):
            loop.call_soon(coroutine_function)  # type: ignore[arg-type]
        handle = loop.call_soon(print)
        assert handle._source_traceback  # type: ignore[attr-defined]
        handle.cancel()
    finally:
        loop.close()


def test_the_registration_count_follows_readers_so_polls_stop_after_removal() -> None:
    loop = VirtualTimeLoop()
    left, right = socket.socketpair()
    selector = loop._selector
    try:
        assert selector.registered == len(selector.get_map()) == 1  # the self-pipe
        assert not loop.may_receive()
        loop.add_reader(left.fileno(), lambda: None)
        assert selector.registered == len(selector.get_map()) == 2
        assert loop.may_receive()
        loop.add_writer(left.fileno(), lambda: None)  # a modify of the same descriptor
        assert selector.registered == 2
        loop.remove_writer(left.fileno())
        loop.remove_reader(left.fileno())
        assert selector.registered == len(selector.get_map()) == 1
        assert not loop.may_receive()

        async def main() -> float:
            await asyncio.sleep(30)
            return loop.time()

        assert loop.run_until_complete(main()) == 30.0
        assert loop.polls == 0
    finally:
        left.close()
        right.close()
        loop.close()


def test_a_thread_wake_up_still_polls_for_real() -> None:
    # may_receive takes back the pending wake-up; the loop must still drain the self-pipe.
    loop = VirtualTimeLoop()

    async def main() -> float:
        arrived = asyncio.Event()
        thread = threading.Thread(target=loop.call_soon_threadsafe, args=(arrived.set,))
        thread.start()
        thread.join()
        await asyncio.wait_for(arrived.wait(), timeout=5)
        await asyncio.sleep(1)
        return loop.time()

    try:
        assert loop.run_until_complete(main()) == 1.0
        assert loop.polls >= 1
    finally:
        loop.close()


@pytest.mark.parametrize("bound", [True, False], ids=["bound", "unbound"])
def test_clock_now_is_start_plus_elapsed(bound: bool) -> None:
    loop = VirtualTimeLoop()
    clock = VirtualClock.of(loop) if bound else VirtualClock(loop.start)
    seen: list[tuple[object, object]] = []

    async def main() -> None:
        for step in (0.0, 0.25, 1e-6, 3600.5):
            await asyncio.sleep(step)
            seen.append((clock.now(), loop.start + timedelta(seconds=clock.elapsed())))

    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
    assert all(now == expected for now, expected in seen)
    assert seen[-1][0] == loop.start + timedelta(seconds=3600.750001)


def test_an_unbound_clock_follows_the_next_loop() -> None:
    clock = VirtualClock()
    first, second = VirtualTimeLoop(), VirtualTimeLoop()

    async def read(after: float) -> float:
        await asyncio.sleep(after)
        return (clock.now() - clock.start).total_seconds()

    try:
        assert first.run_until_complete(read(50)) == 50.0
        assert clock.now() == clock.start  # no loop runs: the start
        assert second.run_until_complete(read(7)) == 7.0
    finally:
        first.close()
        second.close()
