"""Events expire an hour after their last write, as kube-apiserver's --event-ttl has them."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.apiserver.registry.event_ttl import (
    DEFAULT_EVENT_TTL,
    EVENTS,
    _Expiries,
    expire_events,
    expired_events,
    last_written,
)
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.store.interface import NotFoundError
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _at(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _event(name: str, **fields: Any) -> JSON:
    metadata = {"name": name, "namespace": "default", "creationTimestamp": _at(0)}
    return {"apiVersion": "v1", "kind": "Event", "metadata": metadata, **fields}


@pytest.mark.parametrize(
    ("event", "written_minutes"),
    [
        (_event("created"), 0),
        (_event("repeated", lastTimestamp=_at(30)), 30),
        (_event("new-style", eventTime="2026-01-01T00:45:00.000000Z"), 45),
        (_event("series", series={"count": 3, "lastObservedTime": _at(50)}), 50),
        (_event("older-last", lastTimestamp="2025-12-31T23:00:00Z"), 0),
    ],
    ids=["creation", "last-timestamp", "event-time", "series", "creation-is-later"],
)
def test_last_written(event: JSON, written_minutes: float) -> None:
    assert last_written(event) == T0 + timedelta(minutes=written_minutes)


def test_expired_events_are_those_an_hour_past_their_last_write() -> None:
    events = [_event("old"), _event("renewed", lastTimestamp=_at(30)), _event("undated")]
    del events[2]["metadata"]["creationTimestamp"]
    now = T0 + timedelta(minutes=60)
    assert expired_events(events, now) == [("default", "old")]
    assert expired_events(events, now + timedelta(minutes=30)) == [
        ("default", "old"),
        ("default", "renewed"),
    ]


def test_the_store_loses_expired_events_on_virtual_time() -> None:
    async def scenario() -> list[list[str]]:
        clock = VirtualClock.of(asyncio.get_running_loop())  # type: ignore[arg-type]
        store = MemoryStore(clock)
        store.create(EVENTS, _event("first"))
        expiry = asyncio.create_task(expire_events(store, clock))
        seen = []
        for minutes in (30, 31, 31):  # at 30 min, 61 min and 92 min
            await asyncio.sleep(minutes * 60)
            seen.append([e["metadata"]["name"] for e in store.list(EVENTS).items])
            if minutes == 30:
                store.create(EVENTS, {**_event("second"), "lastTimestamp": _at(30)})
        expiry.cancel()
        return seen

    assert run_virtual(scenario(), start=T0) == [["first"], ["second"], []]


def test_an_update_moving_the_last_timestamp_renews_an_event_already_seen() -> None:
    """The expiry pass remembers each Event's last write by its stored bytes: an update
    (a repeated Event, ``lastTimestamp`` moved) is read anew, not its first version."""

    async def scenario() -> list[list[str]]:
        clock = VirtualClock.of(asyncio.get_running_loop())  # type: ignore[arg-type]
        store = MemoryStore(clock)
        store.create(EVENTS, _event("repeated"))
        store.create(EVENTS, _event("once"))
        expiry = asyncio.create_task(expire_events(store, clock))
        seen: list[list[str]] = []
        for minutes in (50, 11, 50):  # at 50 min (renewed), 61 min and 111 min
            await asyncio.sleep(minutes * 60)
            if minutes == 50 and not seen:
                renewed = store.get(EVENTS, "default", "repeated")
                store.update(EVENTS, {**renewed, "count": 2, "lastTimestamp": _at(50)})
            seen.append([e["metadata"]["name"] for e in store.list(EVENTS).items])
        expiry.cancel()
        return seen

    assert run_virtual(scenario(), start=T0) == [["once", "repeated"], ["repeated"], []]


_names = st.sampled_from(["a", "b", "c"])
_steps = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.sampled_from(["x", "y"]), _names, st.integers(0, 90)),
        st.tuples(st.just("delete"), st.sampled_from(["x", "y"]), _names),
        st.tuples(st.just("pass"), st.integers(0, 40)),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(steps=_steps, buffer=st.sampled_from([2, 10_000]))
def test_the_heap_finds_what_a_whole_list_finds(steps: list[tuple[Any, ...]], buffer: int) -> None:
    """Every pass, ``_Expiries`` names the same Events in the same order as
    ``expired_events`` over a LIST: through creates, updates moving the last write either
    way or not at all, deletions, re-creations and watches ended by too many writes."""

    async def scenario() -> None:
        store = MemoryStore(FakeClock(T0), watch_buffer=buffer)
        expiries = _Expiries(store)
        now = T0
        for step in [*steps, ("pass", 0)]:
            if step[0] == "write":
                _, namespace, name, minutes = step
                event = {**_event(name, lastTimestamp=_at(minutes))}
                event["metadata"]["namespace"] = namespace
                try:
                    stored = store.get(EVENTS, namespace, name)
                except NotFoundError:
                    store.create(EVENTS, event)
                else:
                    store.update(EVENTS, {**stored, "lastTimestamp": _at(minutes)})
            elif step[0] == "delete":
                with contextlib.suppress(NotFoundError):
                    store.delete(EVENTS, step[1], step[2])
            else:
                now += timedelta(minutes=step[1])
                expected = expired_events(store.list(EVENTS).items, now)
                assert expiries.expired(now - DEFAULT_EVENT_TTL) == expected
                for namespace, name in expected:
                    store.delete(EVENTS, namespace, name)
        expiries.close()

    run_virtual(scenario(), start=T0)
