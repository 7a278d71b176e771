"""``scenario.event_feed.EventFeed``: the cursor finds the same new Events, in the same
order, in the Events written since the previous read as in the whole LIST, through creates,
repeats (count moved or not), deletions, re-creations under the same name and watches ended
by too many writes in between (the feed then lists again)."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.apiserver.operations.shared_list import served_object
from podscale.apiserver.resources import storage_resource
from podscale.runtime.kernel import run_virtual
from podscale.scenario.event_feed import EventFeed
from podscale.scenario.snapshot import EVENT
from podscale.scenario.snapshot_values import EventCursor, SeenEvent
from podscale.store.interface import NotFoundError
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
EVENTS = storage_resource(EVENT)


class _Clock:
    def now(self) -> datetime:
        return datetime(2026, 1, 1, tzinfo=UTC)


_names = st.sampled_from(["a", "b", "c", "d"])
_namespaces = st.sampled_from(["one", "two"])
_times = st.sampled_from(["2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z"])
_steps = st.lists(
    st.one_of(
        st.tuples(st.just("write"), _namespaces, _names, _times, st.booleans()),
        st.tuples(st.just("delete"), _namespaces, _names),
        st.tuples(st.just("read")),
    ),
    max_size=40,
)


def _write(store: MemoryStore, namespace: str, name: str, when: str, repeat: bool) -> None:
    """Create the Event, or update it: a repeat (count + 1) or another message alone."""
    try:
        stored = store.get(EVENTS, namespace, name)
    except NotFoundError:
        metadata = {"namespace": namespace, "name": name}
        store.create(EVENTS, {"metadata": metadata, "reason": "R", "lastTimestamp": when})
        return
    count = int(stored.get("count") or 1) + (1 if repeat else 0)
    message = str(stored.get("message") or "") + "+"
    store.update(EVENTS, {**stored, "count": count, "message": message, "lastTimestamp": when})


async def _compare(steps: list[tuple[Any, ...]], buffer: int) -> None:
    store = MemoryStore(_Clock(), watch_buffer=buffer)
    feed = EventFeed(store, EVENTS, EVENT)
    whole, fed = EventCursor(), EventCursor()
    offset = timedelta(0)

    async def relist() -> JSON:
        listed = store.list(EVENTS)
        items = [served_object(item, EVENT) for item in listed.items]
        return {"metadata": {"resourceVersion": str(listed.revision)}, "items": items}

    async def read() -> tuple[list[SeenEvent], list[SeenEvent]]:
        expected = whole.new_events((await relist())["items"], offset)
        return expected, fed.new_events(await feed.changed(relist), offset)

    for step in [*steps, ("read",)]:
        if step[0] == "write":
            _write(store, *step[1:])
        elif step[0] == "delete":
            with contextlib.suppress(NotFoundError):
                store.delete(EVENTS, step[1], step[2])
        else:
            offset += timedelta(minutes=1)
            expected, got = await read()
            assert got == expected
    feed.close()


@settings(max_examples=150, deadline=None)
@given(steps=_steps, buffer=st.sampled_from([2, 10_000]))
def test_the_feed_finds_what_the_whole_list_finds(
    steps: list[tuple[Any, ...]], buffer: int
) -> None:
    run_virtual(_compare(steps, buffer))


def test_a_repeat_and_a_recreation_under_the_same_name_are_new_again() -> None:
    steps: list[tuple[Any, ...]] = [
        ("write", "one", "a", "2026-01-01T00:00:00Z", False),
        ("write", "two", "a", "2026-01-01T00:00:00Z", False),
        ("read",),
        ("write", "one", "a", "2026-01-01T00:01:00Z", True),
        ("write", "two", "a", "2026-01-01T00:01:00Z", False),
        ("read",),
        ("delete", "one", "a"),
        ("write", "one", "a", "2026-01-01T00:01:00Z", False),
    ]
    run_virtual(_compare(steps, 10_000))
