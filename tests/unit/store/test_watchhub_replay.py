"""A replay is a snapshot read lazily: the records come in key order, a write after the
watch opened does not change what is replayed, and consumers on the loop (``next``) and on
a thread (``take_ready``) share one backlog without losing or repeating events."""

from __future__ import annotations

import asyncio

import pytest

from podscale.store.interface import WatchEvent
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock


def _pod(namespace: str, name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": namespace, "name": name}}


def _names(events: list[WatchEvent]) -> list[tuple[str, str, str]]:
    return [
        (e.type, e.object["metadata"]["namespace"], e.object["metadata"]["name"]) for e in events
    ]


@pytest.mark.parametrize("namespace", [None, "b"], ids=["all-namespaces", "one-namespace"])
def test_a_replay_is_sorted_and_is_the_state_at_open(namespace: str | None) -> None:
    store = MemoryStore(FakeClock())
    for ns, name in [("b", "z"), ("a", "y"), ("b", "c"), ("a", "a")]:
        store.create("pods", _pod(ns, name))

    async def scenario() -> list[WatchEvent]:
        watch = store.watch("pods", namespace, since=None)
        store.create("pods", _pod("b", "late"))  # after the open: a live event, last
        first = [await watch.next(0)]
        rest = watch.take_ready(2)
        events = [e for e in [*first, *rest] if e is not None]
        while (event := await watch.next(0)) is not None:
            events.append(event)
        watch.close()
        return events

    events = asyncio.run(scenario())
    expected = (
        [("b", "c"), ("b", "z")] if namespace else [("a", "a"), ("a", "y"), ("b", "c"), ("b", "z")]
    )
    assert _names(events) == [("ADDED", ns, n) for ns, n in expected] + [("ADDED", "b", "late")]


def test_bookmarks_wait_for_the_replay_to_be_read() -> None:
    store = MemoryStore(FakeClock())
    store.create("pods", _pod("a", "one"))

    async def scenario() -> tuple[int | None, int | None]:
        watch = store.watch("pods", None, since=None)
        before = watch.bookmark_revision
        await watch.next(0)
        after = watch.bookmark_revision
        watch.close()
        return before, after

    before, after = asyncio.run(scenario())
    assert before is None
    assert after == store.revision


def test_a_closed_watch_replays_nothing_more() -> None:
    store = MemoryStore(FakeClock())
    for name in ("a", "b", "c"):
        store.create("pods", _pod("x", name))

    async def scenario() -> list[WatchEvent]:
        watch = store.watch("pods", None, since=None)
        watch.close()
        return watch.take_ready(10)

    assert asyncio.run(scenario()) == []
