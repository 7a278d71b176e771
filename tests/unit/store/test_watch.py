"""Store contract: watch replay, resume, ordering under concurrency, expiry, closing."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from podscale.store.engine import VersionedStore
from podscale.store.interface import ExpiredError, WatchEvent
from podscale.store.watchhub import HubWatch

Pod = Callable[..., dict[str, Any]]
StoreFactory = Callable[..., VersionedStore]


async def drain(watch: HubWatch, timeout: float = 0.05) -> list[WatchEvent]:
    """Every event available now (stops at the first quiet ``timeout``)."""
    events: list[WatchEvent] = []
    while (event := await watch.next(timeout)) is not None:
        events.append(event)
    return events


def summary(events: list[WatchEvent]) -> list[tuple[str, str, int]]:
    return [(e.type, e.object["metadata"]["name"], e.revision) for e in events]


@pytest.mark.parametrize("since", [None, 0], ids=["unset", "zero"])
def test_watch_from_zero_replays_then_goes_live(
    store: VersionedStore, make_pod: Pod, since: int | None
) -> None:
    store.create("pods", make_pod("b"))
    store.create("pods", make_pod("a"))
    store.create("pods", make_pod("c", "other"))
    store.create("nodes", {"metadata": {"name": "n"}})

    async def scenario() -> list[WatchEvent]:
        watch = store.watch("pods", "default", since=since)
        replay = await drain(watch)
        store.update("pods", dict(store.get("pods", "default", "a"), status={"phase": "Running"}))
        store.delete("pods", "default", "b")
        store.create("pods", make_pod("d", "other"))
        live = await drain(watch)
        watch.close()
        return replay + live

    events = asyncio.run(scenario())
    assert summary(events) == [
        ("ADDED", "a", 2),
        ("ADDED", "b", 1),
        ("MODIFIED", "a", 5),
        ("DELETED", "b", 6),
    ]
    assert events[2].object["status"] == {"phase": "Running"}
    assert events[3].object["metadata"]["resourceVersion"] == "6"


def test_watch_from_revision_delivers_only_later_events(
    store: VersionedStore, make_pod: Pod
) -> None:
    for name in "abc":
        store.create("pods", make_pod(name))
    store.delete("pods", "default", "a")

    async def scenario() -> list[WatchEvent]:
        watch = store.watch("pods", since=2)
        events = await drain(watch)
        watch.close()
        return events

    assert summary(asyncio.run(scenario())) == [("ADDED", "c", 3), ("DELETED", "a", 4)]


def test_all_namespace_watch_sees_every_namespace(store: VersionedStore, make_pod: Pod) -> None:
    async def scenario() -> list[WatchEvent]:
        watch = store.watch("pods", None, since=store.revision)
        store.create("pods", make_pod("x", "one"))
        store.create("pods", make_pod("y", "two"))
        store.create("nodes", {"metadata": {"name": "n"}})
        events = await drain(watch)
        watch.close()
        return events

    assert summary(asyncio.run(scenario())) == [("ADDED", "x", 1), ("ADDED", "y", 2)]


def test_watch_from_before_history_expires(make_store: StoreFactory, make_pod: Pod) -> None:
    store = make_store(history=5)
    for index in range(8):
        store.create("pods", make_pod(f"p{index}"))

    async def scenario() -> None:
        watch = store.watch("pods", since=3)  # events 4..8 are kept: still complete
        assert [e.revision for e in await drain(watch)] == [4, 5, 6, 7, 8]
        watch.close()
        with pytest.raises(ExpiredError) as info:
            store.watch("pods", since=2)
        assert str(info.value) == "too old resource version: 2 (3)"

    asyncio.run(scenario())


def test_concurrent_writers_give_ordered_gapless_unique_events(
    store: VersionedStore, make_pod: Pod
) -> None:
    writers, per_writer = 4, 50

    def write(worker: int) -> None:
        for index in range(per_writer):
            obj = store.create("pods", make_pod(f"w{worker}-{index}"))
            store.update("pods", dict(obj, status={"phase": "Running"}))

    async def scenario() -> list[WatchEvent]:
        watch = store.watch("pods", since=store.revision)
        threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
        for thread in threads:
            thread.start()
        events: list[WatchEvent] = []
        while len(events) < writers * per_writer * 2:
            event = await watch.next(10)
            assert event is not None, f"stalled after {len(events)} events"
            events.append(event)
        for thread in threads:
            thread.join()
        assert await watch.next(0.01) is None, "no extra events"
        watch.close()
        return events

    events = asyncio.run(scenario())
    assert [e.revision for e in events] == list(range(1, writers * per_writer * 2 + 1))
    assert [int(e.object["metadata"]["resourceVersion"]) for e in events] == [
        e.revision for e in events
    ]


def test_list_then_watch_under_writers_misses_nothing(store: VersionedStore, make_pod: Pod) -> None:
    stop = threading.Event()
    started = threading.Event()

    def write() -> None:
        index = 0
        while not stop.is_set() and index < 2000:
            store.create("pods", make_pod(f"p{index}"))
            index += 1
            if index == 20:
                started.set()

    async def scenario() -> None:
        thread = threading.Thread(target=write)
        thread.start()
        assert started.wait(10)
        listed = store.list("pods")
        watch = store.watch("pods", since=listed.revision)
        known = {o["metadata"]["name"] for o in listed.items}
        stop.set()
        thread.join()
        for event in await drain(watch):
            assert event.object["metadata"]["name"] not in known, "duplicate"
            known.add(event.object["metadata"]["name"])
        watch.close()
        assert known == {o["metadata"]["name"] for o in store.list("pods").items}

    asyncio.run(scenario())


def test_async_iteration_stops_when_store_closes(store: VersionedStore, make_pod: Pod) -> None:
    async def scenario() -> list[str]:
        watch = store.watch("pods", since=0)
        seen: list[str] = []

        async def consume() -> None:
            async for event in watch:
                seen.append(event.object["metadata"]["name"])

        task = asyncio.create_task(consume())
        store.create("pods", make_pod("a"))
        store.close()
        await asyncio.wait_for(task, 5)
        assert watch.closed
        return seen

    assert asyncio.run(scenario()) == ["a"]


def test_watch_closed_by_consumer_stops(store: VersionedStore, make_pod: Pod) -> None:
    async def scenario() -> None:
        watch = store.watch("pods", since=0)
        store.create("pods", make_pod("a"))
        watch.close()
        store.create("pods", make_pod("b"))
        with pytest.raises(StopAsyncIteration):
            await watch.next(0.01)

    asyncio.run(scenario())


def test_slow_watcher_is_closed_not_grown(make_store: StoreFactory, make_pod: Pod) -> None:
    store = make_store(watch_buffer=3)

    async def scenario() -> None:
        slow = store.watch("pods", since=0)
        for index in range(5):
            store.create("pods", make_pod(f"p{index}"))
        assert slow.closed
        assert slow.overflowed
        delivered: list[int] = []
        async for event in slow:
            delivered.append(event.revision)
        assert delivered == [1, 2, 3], "what was queued is delivered, then the watch ends"

    asyncio.run(scenario())


def test_bookmark_revision_tracks_unrelated_writes(store: VersionedStore, make_pod: Pod) -> None:
    async def scenario() -> None:
        watch = store.watch("pods", "default", since=0)
        assert watch.bookmark_revision == 0
        store.create("pods", make_pod("a"))
        assert watch.bookmark_revision is None, "an event is still queued"
        await watch.next(0)
        store.create("nodes", {"metadata": {"name": "n"}})
        assert watch.bookmark_revision == 2
        watch.close()

    asyncio.run(scenario())


def test_watch_requires_a_running_loop(store: VersionedStore) -> None:
    with pytest.raises(RuntimeError):
        store.watch("pods", since=0)


def test_watch_abandoned_with_its_loop_never_blocks_writers(
    make_store: StoreFactory, make_pod: Pod
) -> None:
    store = make_store(watch_buffer=1)

    async def open_and_leave() -> HubWatch:
        watch = store.watch("pods", since=0)
        assert await watch.next(0.01) is None
        return watch

    watch = asyncio.run(open_and_leave())
    for name in "abc":
        store.create("pods", make_pod(name))
    assert store.revision == 3
    assert watch.overflowed, "the forgotten watch was ended, not grown"


def test_expiry_counts_events_of_every_resource(make_store: StoreFactory, make_pod: Pod) -> None:
    store = make_store(history=2)
    store.create("pods", make_pod("a"))
    for name in ("n1", "n2", "n3"):
        store.create("nodes", {"metadata": {"name": name}})

    async def scenario() -> None:
        with pytest.raises(ExpiredError, match=r"^too old resource version: 1 \(2\)$"):
            store.watch("pods", since=1)
        watch = store.watch("pods", since=2)
        assert await watch.next(0) is None
        watch.close()

    asyncio.run(scenario())


def test_watch_from_a_future_revision_skips_until_then(
    store: VersionedStore, make_pod: Pod
) -> None:
    async def scenario() -> list[WatchEvent]:
        watch = store.watch("pods", since=2)
        for name in "abc":
            store.create("pods", make_pod(name))
        events = await drain(watch)
        watch.close()
        return events

    assert summary(asyncio.run(scenario())) == [("ADDED", "c", 3)]
