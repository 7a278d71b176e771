"""The work queue's fast paths (the timer armed from an add's own clock reading with
``call_at``, the remembered running loop, skipped no-op metrics, one clock reading per
timer) behave exactly as the general path they shortcut: same items, same virtual times,
same order, same workers."""

from __future__ import annotations

import asyncio
import heapq
from dataclasses import dataclass
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.client.workqueue import WorkQueue
from podscale.runtime.clocks import VirtualClock, current_clock
from podscale.runtime.kernel import run_virtual


class GeneralPathQueue(WorkQueue[str]):
    """The queue with each fast path replaced by the general one: the heap push then
    ``_arm`` (a fresh clock reading), ``promote_ready`` then ``_arm`` on a timer,
    ``call_later``, and asyncio asked for the running loop every time."""

    def add_after(self, item: str, delay: timedelta) -> None:
        if self.shutting_down:
            return
        self._metrics.retry()
        if delay <= timedelta(0):
            self.add(item)
            return
        heapq.heappush(self._delayed, (self._clock.now() + delay, next(self._sequence), item))
        self._arm()

    def _fire(self) -> None:
        self._timer = self._timer_due = None
        self.promote_ready()
        self._arm()

    def _arm_at(self, due: object, delay: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_later(delay, self._fire)
        self._timer_due = due  # type: ignore[assignment]


@dataclass(frozen=True)
class Op:
    at_ms: int  # when the driver does it
    kind: str  # add | after | limited
    item: str
    delay_ms: int


ops = st.lists(
    st.builds(
        Op,
        at_ms=st.integers(min_value=0, max_value=3000),
        kind=st.sampled_from(["add", "after", "limited"]),
        item=st.sampled_from(["a", "b", "c", "d"]),
        delay_ms=st.integers(min_value=-5, max_value=400),
    ),
    max_size=40,
)

Trace = list[tuple[float, str, int]]


def run(make: type[WorkQueue[str]], script: list[Op], work_ms: list[int], workers: int) -> Trace:
    """Drive a queue with ``script`` while ``workers`` take items; each item takes the
    next ``work_ms`` and, on an odd one, requeues itself rate-limited (the Deployment
    controller's stuck-rollout requeue). Returns (virtual time, item, worker) per get."""

    async def scenario() -> Trace:
        loop = asyncio.get_running_loop()
        queue = make(current_clock())
        trace: Trace = []
        costs = iter(work_ms * 50)

        async def worker(index: int) -> None:
            while (item := await queue.get()) is not None:
                trace.append((loop.time(), item, index))
                cost = next(costs, 0)
                if cost:
                    await asyncio.sleep(cost / 1000)
                if cost % 2:
                    queue.add_rate_limited(item)
                else:
                    queue.forget(item)
                queue.done(item)

        tasks = [asyncio.create_task(worker(i)) for i in range(workers)]
        for op in sorted(script, key=lambda op: op.at_ms):
            await asyncio.sleep(max(0.0, op.at_ms / 1000 - loop.time()))
            if op.kind == "add":
                queue.add(op.item)
            elif op.kind == "after":
                queue.add_after(op.item, timedelta(milliseconds=op.delay_ms))
            else:
                queue.add_rate_limited(op.item)
        await asyncio.sleep(60)
        queue.shut_down()
        await asyncio.gather(*tasks)
        return trace

    result = run_virtual(scenario())
    assert result is not None
    return result


@settings(max_examples=60, deadline=None)
@given(
    script=ops,
    work_ms=st.lists(st.integers(min_value=0, max_value=300), min_size=1, max_size=8),
    workers=st.integers(min_value=1, max_value=3),
)
def test_fast_paths_give_the_general_paths_trace(
    script: list[Op], work_ms: list[int], workers: int
) -> None:
    fast = run(WorkQueue, script, work_ms, workers)
    assert fast == run(GeneralPathQueue, script, work_ms, workers)


@pytest.mark.parametrize("make", [WorkQueue, GeneralPathQueue], ids=["fast", "general"])
def test_timer_deadline_is_call_laters(make: type[WorkQueue[str]]) -> None:
    async def scenario() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(1234.567)
        queue = make(current_clock())
        queue.add_after("a", timedelta(milliseconds=5))
        assert queue._timer is not None
        expected = loop.time() + timedelta(milliseconds=5).total_seconds()
        return queue._timer.when(), expected

    result = run_virtual(scenario())
    assert result is not None
    assert result[0] == result[1]


def test_a_delayed_add_of_a_queued_or_processing_item_stays_single() -> None:
    async def scenario() -> list[tuple[float, str]]:
        loop = asyncio.get_running_loop()
        queue: WorkQueue[str] = WorkQueue(current_clock())
        got: list[tuple[float, str]] = []
        queue.add("waiting")
        queue.add("busy")
        assert queue.get_nowait() == "waiting"  # a worker holds it
        queue.add_after("waiting", timedelta(seconds=1))  # while processing
        queue.add_after("busy", timedelta(seconds=1))  # while queued
        queue.add_after("busy", timedelta(seconds=2))  # and again
        await asyncio.sleep(1.5)
        assert len(queue) == 1  # busy once; waiting is held until done
        queue.done("waiting")
        while (item := queue.get_nowait()) is not None:
            got.append((loop.time(), item))
            queue.done(item)
        await asyncio.sleep(1)
        while (item := queue.get_nowait()) is not None:
            got.append((loop.time(), item))
            queue.done(item)
        return got

    assert run_virtual(scenario()) == [(1.5, "busy"), (1.5, "waiting"), (2.5, "busy")]


def test_shutdown_drops_delayed_items_cancels_the_timer_and_ends_waiting_workers() -> None:
    async def scenario() -> tuple[list[str | None], float]:
        loop = asyncio.get_running_loop()
        queue: WorkQueue[str] = WorkQueue(current_clock())
        got: list[str | None] = []

        async def worker() -> None:
            got.append(await queue.get())

        tasks = [asyncio.create_task(worker()) for _ in range(2)]
        await asyncio.sleep(0)
        queue.add_rate_limited("a")
        queue.add_after("b", timedelta(seconds=30))
        timer = queue._timer
        queue.shut_down()
        await asyncio.gather(*tasks)
        assert timer is not None
        assert timer.cancelled()
        queue.add_after("c", timedelta(seconds=1))  # ignored after shutdown
        await asyncio.sleep(100)
        return got, loop.time()

    assert run_virtual(scenario()) == ([None, None], 100.0)


def test_a_queue_outliving_its_loop_arms_on_the_next_one() -> None:
    # An unbound virtual clock reads whichever virtual loop runs the caller.
    queue: WorkQueue[str] = WorkQueue(VirtualClock())

    async def first() -> None:
        queue.add_after("a", timedelta(seconds=1))
        assert await queue.get() == "a"
        queue.done("a")

    async def second() -> tuple[str | None, float]:
        loop = asyncio.get_running_loop()
        queue.add_after("b", timedelta(seconds=2))  # the remembered loop has stopped
        item = await queue.get()
        return item, loop.time()

    run_virtual(first())
    assert run_virtual(second()) == ("b", 2.0)


@pytest.mark.parametrize("make", [WorkQueue, GeneralPathQueue], ids=["fast", "general"])
def test_an_add_while_the_timer_is_stale_arms_for_the_earliest_item(
    make: type[WorkQueue[str]],
) -> None:
    # At 1 s a callback that runs before the queue's timer takes "a" early (get_nowait
    # promotes it), leaving the timer set for "a"; an add then must arm for "b" at 2 s,
    # not for itself at 6 s.
    async def scenario() -> list[tuple[float, str]]:
        loop = asyncio.get_running_loop()
        queue = make(current_clock())
        got: list[tuple[float, str]] = []

        def early() -> None:
            assert queue.get_nowait() == "a"
            queue.add_after("c", timedelta(seconds=5))

        loop.call_later(1, early)
        queue.add_after("a", timedelta(seconds=1))
        queue.add_after("b", timedelta(seconds=2))

        async def worker() -> None:
            while (item := await queue.get()) is not None:
                got.append((loop.time(), item))
                queue.done(item)

        task = asyncio.create_task(worker())
        await asyncio.sleep(10)
        queue.shut_down()
        await task
        return got

    assert run_virtual(scenario()) == [(2.0, "b"), (6.0, "c")]


@pytest.mark.parametrize("make", [WorkQueue, GeneralPathQueue], ids=["fast", "general"])
def test_items_delayed_before_the_loop_runs_fall_due_once_a_worker_waits(
    make: type[WorkQueue[str]],
) -> None:
    # No loop runs at the add, so no timer: the first waiting ``get`` arms it.
    queue = make(VirtualClock())
    queue.add_after("a", timedelta(seconds=3))

    async def worker() -> tuple[str | None, float]:
        item = await queue.get()
        return item, asyncio.get_running_loop().time()

    assert run_virtual(worker(), until=timedelta(seconds=60)) == ("a", 3.0)
