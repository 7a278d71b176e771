"""The work queue keeps client-go's contract; delays run on virtual time."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from podscale.client.ratelimit import FixedIntervalRateLimiter
from podscale.client.workqueue import WorkQueue
from podscale.runtime.clocks import current_clock
from podscale.runtime.kernel import run_virtual
from podscale.testing import FakeClock


def make_queue(interval: float = 15.0) -> tuple[WorkQueue[str], FakeClock]:
    clock = FakeClock()
    limiter = FixedIntervalRateLimiter(timedelta(seconds=interval))
    return WorkQueue(clock, limiter), clock


def test_an_item_waits_in_the_queue_only_once() -> None:
    queue, _ = make_queue()
    for item in ("a", "b", "a", "a"):
        queue.add(item)
    assert len(queue) == 2
    assert [queue.get_nowait(), queue.get_nowait(), queue.get_nowait()] == ["a", "b", None]


def test_an_item_added_while_processing_comes_back_after_done() -> None:
    queue, _ = make_queue()
    queue.add("a")
    assert queue.get_nowait() == "a"
    queue.add("a")  # changed while a worker handles it
    assert queue.get_nowait() is None  # never handed to a second worker
    queue.done("a")
    assert queue.get_nowait() == "a"
    queue.done("a")
    assert queue.get_nowait() is None


def test_done_without_a_new_add_does_not_requeue() -> None:
    queue, _ = make_queue()
    queue.add("a")
    item = queue.get_nowait()
    assert item == "a"
    queue.done(item)
    assert len(queue) == 0


def test_delayed_items_fall_due_on_virtual_time() -> None:
    queue, clock = make_queue()
    queue.add_after("late", timedelta(seconds=30))
    queue.add_after("early", timedelta(seconds=10))
    assert queue.get_nowait() is None
    assert queue.next_ready_at() == clock.now() + timedelta(seconds=10)
    clock.advance(10)
    assert queue.get_nowait() == "early"
    clock.advance(19)
    assert queue.get_nowait() is None
    clock.advance(1)
    assert queue.get_nowait() == "late"


def test_rate_limited_adds_use_the_limiter_and_forget_resets_it() -> None:
    queue, clock = make_queue(interval=15)
    queue.add_rate_limited("hpa")
    assert queue.num_requeues("hpa") == 1
    assert queue.next_ready_at() == clock.now() + timedelta(seconds=15)
    clock.advance(15)
    assert queue.get_nowait() == "hpa"
    queue.forget("hpa")
    assert queue.num_requeues("hpa") == 0


def test_a_delayed_duplicate_of_a_queued_item_stays_single() -> None:
    queue, clock = make_queue()
    queue.add("a")
    queue.add_after("a", timedelta(seconds=1))
    clock.advance(1)
    assert queue.get_nowait() == "a"
    assert queue.get_nowait() is None


def test_async_get_waits_for_an_add_and_ends_on_shutdown() -> None:
    async def scenario() -> list[str | None]:
        queue, _ = make_queue()
        got: list[str | None] = []

        async def worker() -> None:
            while (item := await queue.get()) is not None:
                got.append(item)
                queue.done(item)
            got.append(None)

        task = asyncio.create_task(worker())
        await asyncio.sleep(0)
        queue.add("x")
        queue.add("y")
        for _ in range(5):
            await asyncio.sleep(0)
        queue.shut_down()
        await asyncio.wait_for(task, timeout=5)
        return got

    assert asyncio.run(scenario()) == ["x", "y", None]


def test_adds_after_shutdown_are_ignored() -> None:
    queue, _ = make_queue()
    queue.shut_down()
    queue.add("a")
    queue.add_after("b", timedelta(seconds=1))
    assert queue.shutting_down
    assert queue.get_nowait() is None
    assert queue.next_ready_at() is None


@pytest.mark.parametrize("delay", [0.0, -1.0], ids=["zero", "negative"])
def test_non_positive_delays_add_at_once(delay: float) -> None:
    queue, _ = make_queue()
    queue.add_after("a", timedelta(seconds=delay))
    assert queue.get_nowait() == "a"


def test_a_ready_item_wakes_one_waiting_worker_not_all() -> None:
    async def scenario() -> tuple[list[str], int]:
        queue, _ = make_queue()
        got: list[str] = []
        wakeups = 0
        real_get = queue.get_nowait

        def counting_get_nowait() -> str | None:
            nonlocal wakeups
            wakeups += 1
            return real_get()

        queue.get_nowait = counting_get_nowait  # type: ignore[method-assign]

        async def worker() -> None:
            item = await queue.get()
            assert item is not None
            got.append(item)

        tasks = [asyncio.create_task(worker()) for _ in range(5)]
        for _ in range(3):
            await asyncio.sleep(0)
        before = wakeups  # each worker looked once, then waited
        queue.add("x")
        for _ in range(5):
            await asyncio.sleep(0)
        woken = wakeups - before
        queue.shut_down()
        await asyncio.gather(*tasks, return_exceptions=True)
        return got, woken

    got, woken = asyncio.run(scenario())
    assert got == ["x"]
    assert woken == 1  # one worker looked again; four kept waiting


def test_a_new_earliest_delay_rearms_every_waiting_worker() -> None:
    async def scenario() -> list[tuple[str, float]]:
        loop = asyncio.get_running_loop()
        queue: WorkQueue[str] = WorkQueue(current_clock())
        got: list[tuple[str, float]] = []

        async def worker() -> None:
            while (item := await queue.get()) is not None:
                got.append((item, loop.time()))
                await asyncio.sleep(100)  # busy long after taking an item
                queue.done(item)

        tasks = [asyncio.create_task(worker()) for _ in range(2)]
        await asyncio.sleep(0)
        queue.add_after("late", timedelta(seconds=10))
        queue.add_after("early", timedelta(seconds=5))
        await asyncio.sleep(20)
        queue.shut_down()
        await asyncio.gather(*tasks)
        return got

    assert run_virtual(scenario()) == [("early", 5.0), ("late", 10.0)]
