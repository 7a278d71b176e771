"""The kernel: ``run_virtual`` behaves as ``asyncio.run`` on virtual time, ``until`` stops a
never-ending program at its virtual deadline, the same program gives the same trace, and the
real-time variant runs the same coroutine code."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from podscale.runtime import (
    DEFAULT_START,
    VirtualClock,
    VirtualTimeLoop,
    current_clock,
    run,
    run_virtual,
)
from podscale.store.clock import SystemClock

START = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


def test_run_virtual_returns_the_result_and_the_clock_shows_virtual_time() -> None:
    async def main() -> tuple[datetime, datetime]:
        clock = current_clock()
        before = clock.now()
        await asyncio.sleep(90)
        return before, clock.now()

    assert run_virtual(main(), start=START) == (START, START + timedelta(seconds=90))


def test_run_virtual_propagates_the_programs_error() -> None:
    async def main() -> None:
        await asyncio.sleep(5)
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        run_virtual(main(), start=START)


def test_until_stops_a_never_ending_program_at_the_virtual_deadline() -> None:
    ticks: list[float] = []
    stopped_at: list[float] = []

    async def forever() -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                await asyncio.sleep(1)
                ticks.append(loop.time())
        finally:
            stopped_at.append(loop.time())

    assert run_virtual(forever(), start=START, until=timedelta(minutes=5)) is None
    assert stopped_at == [300.0]
    assert ticks == [float(second) for second in range(1, len(ticks) + 1)]
    assert ticks[-1] in (299.0, 300.0)


def test_until_leaves_a_program_that_finishes_first_alone() -> None:
    async def main() -> str:
        await asyncio.sleep(10)
        return "finished"

    assert run_virtual(main(), until=timedelta(seconds=11)) == "finished"


def test_leftover_tasks_and_async_generators_are_cleaned_up_like_asyncio_run() -> None:
    cleaned: list[str] = []

    async def background() -> None:
        try:
            await asyncio.sleep(10_000)
        finally:
            cleaned.append("task")

    async def numbers() -> AsyncIterator[int]:
        try:
            yield 1
            yield 2
        finally:
            cleaned.append("generator")

    async def main() -> int:
        asyncio.create_task(background())  # noqa: RUF006 - left running on purpose
        generator = numbers()
        first = await anext(generator)
        await asyncio.sleep(1)
        return first  # the generator is left suspended

    assert run_virtual(main()) == 1
    assert sorted(cleaned) == ["generator", "task"]


async def producer_consumer(seed: int) -> list[tuple[float, str]]:
    """Producers put with seeded pauses, consumers take with seeded work; returns the trace."""
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str] = asyncio.Queue(maxsize=3)
    trace: list[tuple[float, str]] = []
    pauses = {f"p{n}": [rng.choice([0.5, 1, 1, 2, 3]) for _ in range(8)] for n in range(3)}
    work = {f"c{n}": [rng.choice([1, 2, 2, 4]) for _ in range(12)] for n in range(2)}

    async def produce(name: str) -> None:
        for index, pause in enumerate(pauses[name]):
            await asyncio.sleep(pause)
            await queue.put(f"{name}.{index}")
            trace.append((loop.time(), f"put {name}.{index}"))

    async def consume(name: str) -> None:
        for duration in work[name]:
            item = await queue.get()
            trace.append((loop.time(), f"{name} got {item}"))
            await asyncio.sleep(duration)

    async with asyncio.TaskGroup() as group:
        for name in pauses:
            group.create_task(produce(name))
        for name in work:
            group.create_task(consume(name))
    return trace


def test_the_same_program_gives_the_same_trace() -> None:
    first = run_virtual(producer_consumer(7))
    second = run_virtual(producer_consumer(7))
    assert first is not None
    assert first == second
    assert len(first) == 48  # 24 puts and 24 gets
    assert [time for time, _ in first] == sorted(time for time, _ in first)
    assert first != run_virtual(producer_consumer(8))


def test_a_small_queue_trace_is_exactly_as_reasoned() -> None:
    async def main() -> list[tuple[float, str]]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[int] = asyncio.Queue()
        trace: list[tuple[float, str]] = []

        async def produce() -> None:
            for item in range(3):
                await asyncio.sleep(2)
                queue.put_nowait(item)
                trace.append((loop.time(), f"put {item}"))

        async def consume() -> None:
            for _ in range(3):
                item = await queue.get()
                trace.append((loop.time(), f"got {item}"))
                await asyncio.sleep(3)

        await asyncio.gather(produce(), consume())
        return trace

    assert run_virtual(main()) == [
        (2.0, "put 0"),
        (2.0, "got 0"),
        (4.0, "put 1"),
        (5.0, "got 1"),
        (6.0, "put 2"),
        (8.0, "got 2"),
    ]


async def clock_kind_after_a_tick() -> str:
    """The same coroutine code for both variants: it asks the running loop for its clock."""
    clock = current_clock()
    before = clock.now()
    await asyncio.sleep(0)
    assert clock.now() >= before
    return type(clock).__name__


@pytest.mark.parametrize(
    ("virtual", "clock_kind"),
    [(True, "VirtualClock"), (False, "SystemClock")],
    ids=["virtual", "real"],
)
def test_run_runs_the_same_code_on_either_time(virtual: bool, clock_kind: str) -> None:
    assert run(clock_kind_after_a_tick(), virtual=virtual) == clock_kind


def test_real_time_run_honours_until() -> None:
    async def forever() -> None:
        await asyncio.Event().wait()

    assert run(forever(), virtual=False, until=timedelta(0)) is None


def test_real_time_run_refuses_a_start() -> None:
    with pytest.raises(ValueError, match="virtual time only"):
        run(clock_kind_after_a_tick(), virtual=False, start=START)


def test_virtual_run_without_start_begins_at_the_default_start() -> None:
    async def main() -> datetime:
        return current_clock().now()

    assert run(main(), virtual=True) == DEFAULT_START


def test_virtual_clock_outside_and_before_the_loop_reads_its_start() -> None:
    unbound = VirtualClock(START)
    assert unbound.now() == START
    loop = VirtualTimeLoop(START)
    try:
        bound = VirtualClock.of(loop)
        assert bound.now() == START

        async def main() -> tuple[datetime, datetime]:
            await asyncio.sleep(1.5)
            return bound.now(), unbound.now()

        assert loop.run_until_complete(main()) == (START + timedelta(seconds=1.5),) * 2
    finally:
        loop.close()


def test_an_unbound_clock_follows_each_loop_it_is_read_in() -> None:
    # The clock remembers the loop it found; once that loop stops, it must look again.
    unbound = VirtualClock(START)

    async def wait_and_read(seconds: float) -> datetime:
        unbound.now()
        await asyncio.sleep(seconds)
        return unbound.now()

    assert run_virtual(wait_and_read(10), start=START) == START + timedelta(seconds=10)
    assert unbound.now() == START  # outside any loop again
    assert run_virtual(wait_and_read(3), start=START) == START + timedelta(seconds=3)

    async def on_a_real_loop() -> datetime:
        return unbound.now()

    with pytest.raises(RuntimeError, match="without virtual time"):
        asyncio.run(on_a_real_loop())


def test_virtual_clock_refuses_a_loop_without_virtual_time() -> None:
    async def main() -> datetime:
        return VirtualClock(START).now()

    with pytest.raises(RuntimeError, match="without virtual time"):
        asyncio.run(main())


def test_clocks_and_loops_refuse_naive_starts() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        VirtualClock(datetime(2026, 1, 1))


def test_system_clock_is_the_real_variant() -> None:
    async def main() -> bool:
        return isinstance(current_clock(), SystemClock)

    assert asyncio.run(main())
