"""``HubWatch.next``'s own deadline timer (podscale.store.watchhub) against the general
``asyncio.timeout`` wait it replaces: on virtual time, the same publications and the same
waits give the same results at the same instants, including an event that arrives in the
loop iteration where the deadline passes (the wait has expired; the event stays queued);
a wait with a timeout still returns None at its deadline, one without waits until an event,
and a wait that an event ends leaves no live timer behind."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.runtime.kernel import run_virtual
from podscale.runtime.virtual_time import VirtualTimeLoop
from podscale.store.memory import MemoryStore
from podscale.store.watchhub import HubWatch

from .conftest import FakeClock

JSON = dict[str, Any]


def pod(name: str) -> JSON:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {}}


async def general_next(watch: HubWatch, timeout: float | None) -> Any:
    """The wait as it was written with ``asyncio.timeout`` (the reference)."""
    while True:
        if watch._stopped:
            raise StopAsyncIteration
        if watch._backlog_left:
            watch._backlog_left -= 1
            return next(watch._backlog).to_event()
        if watch._queue:
            return watch._queue.popleft().to_event()
        if watch._ended:
            raise StopAsyncIteration
        if timeout is not None and timeout <= 0:
            return None
        waiter: asyncio.Future[None] = watch._loop.create_future()
        watch._waiter = waiter
        if watch._queue or watch._ended or watch._stopped:
            watch._waiter = None
            continue
        try:
            async with asyncio.timeout(timeout):
                await waiter
        except TimeoutError:
            return None
        finally:
            watch._waiter = None


def play(
    publish_at: list[float], waits: list[float | None], *, general: bool
) -> list[tuple[float, str | None]]:
    """Publish a pod at each offset (from timers) while one task waits ``waits`` in turn;
    what each wait returned and when."""

    async def main() -> list[tuple[float, str | None]]:
        loop = asyncio.get_running_loop()
        store = MemoryStore(FakeClock())
        watch = store.watch("pods", "default", since=store.revision)
        assert isinstance(watch, HubWatch)
        for i, at in enumerate(publish_at):
            loop.call_at(at, store.create, "pods", pod(f"p{i}"))
        seen: list[tuple[float, str | None]] = []
        for wait in waits:
            event = await (general_next(watch, wait) if general else watch.next(wait))
            name = None if event is None else str(event.object["metadata"]["name"])
            seen.append((loop.time(), name))
        watch.close()
        return seen

    result = run_virtual(main())
    assert result is not None
    return result


times = st.integers(0, 40).map(float)
timeouts = st.one_of(st.integers(1, 15).map(float), st.sampled_from([0.0, 2.5]))


@settings(max_examples=150, deadline=None)
@given(st.lists(times, max_size=8), st.lists(timeouts, min_size=1, max_size=12))
def test_same_results_at_the_same_instants_as_asyncio_timeout(
    publish_at: list[float], waits: list[float | None]
) -> None:
    assert play(publish_at, waits, general=False) == play(publish_at, waits, general=True)


@pytest.mark.parametrize(
    ("publish_at", "waits", "expected"),
    [
        ([], [5.0], [(5.0, None)]),
        ([3.0], [5.0, 5.0], [(3.0, "p0"), (8.0, None)]),
        ([5.0], [5.0, 1.0], [(5.0, None), (5.0, "p0")]),
        ([7.0], [None], [(7.0, "p0")]),
        ([1.0, 1.0], [4.0, 0.0, 0.0], [(1.0, "p0"), (1.0, "p1"), (1.0, None)]),
    ],
    ids=[
        "deadline-returns-none",
        "event-then-deadline",
        "event-at-the-deadline-stays-queued",
        "no-timeout-waits-for-the-event",
        "zero-timeout-polls",
    ],
)
def test_wait_results(
    publish_at: list[float],
    waits: list[float | None],
    expected: list[tuple[float, str | None]],
) -> None:
    assert play(publish_at, waits, general=False) == expected
    assert play(publish_at, waits, general=True) == expected


def test_a_wait_an_event_ends_leaves_no_live_timer() -> None:
    async def main() -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, VirtualTimeLoop)
        store = MemoryStore(FakeClock())
        watch = store.watch("pods", "default", since=store.revision)
        loop.call_at(1.0, store.create, "pods", pod("a"))
        await watch.next(60.0)
        live = [entry for entry in loop._scheduled if not entry[2].cancelled()]
        await asyncio.sleep(100)  # the cancelled deadline never fires
        watch.close()
        return len(live), int(loop.time())

    assert run_virtual(main()) == (0, 101)


def test_a_cancelled_wait_disarms_its_timer_and_the_watch_goes_on() -> None:
    async def main() -> tuple[bool, str | None, float]:
        loop = asyncio.get_running_loop()
        store = MemoryStore(FakeClock())
        watch = store.watch("pods", "default", since=store.revision)
        waiting = asyncio.create_task(watch.next(30.0))
        await asyncio.sleep(1)
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        loop.call_at(50.0, store.create, "pods", pod("b"))
        event = await watch.next(None)
        watch.close()
        name = None if event is None else str(event.object["metadata"]["name"])
        return waiting.cancelled(), name, loop.time()

    assert run_virtual(main()) == (True, "b", 50.0)


@pytest.mark.parametrize("general", [False, True], ids=["own-timer", "asyncio-timeout"])
def test_a_wait_woken_in_its_deadlines_iteration_has_expired(general: bool) -> None:
    """A wake-up that lands just before the deadline's callback in one loop iteration (a
    publication from another thread can do that) does not beat the deadline."""

    async def main() -> list[tuple[float, str | None]]:
        loop = asyncio.get_running_loop()
        store = MemoryStore(FakeClock())
        watch = store.watch("pods", "default", since=store.revision)
        assert isinstance(watch, HubWatch)

        def publish_and_wake() -> None:
            store.create("pods", pod("a"))
            waiter = watch._waiter
            assert waiter is not None
            waiter.set_result(None)  # as the wake-up would, had it been queued earlier

        loop.call_at(5.0, publish_and_wake)  # before the wait's own timer for 5.0
        seen: list[tuple[float, str | None]] = []
        for wait in (5.0, 1.0):
            event = await (general_next(watch, wait) if general else watch.next(wait))
            seen.append((loop.time(), None if event is None else event.object["metadata"]["name"]))
        watch.close()
        return seen

    assert run_virtual(main()) == [(5.0, None), (5.0, "a")]
