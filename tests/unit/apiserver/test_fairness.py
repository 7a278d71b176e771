"""Heavy request work off the loop: ``HeavyWork`` (slots, errors, cancellation), LISTs served
through it, and watch replays encoded in batches (every event once, in order, across batch
boundaries, with selectors and Tables)."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.http.fairness import (
    REPLAY_BATCH,
    SWITCH_INTERVAL,
    HeavyWork,
    shorten_switch_interval,
)
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
RS = "/apis/apps/v1/namespaces/default/replicasets"
RESOURCE = "replicasets.apps"
TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


def _seed(store: MemoryStore, make_rs: Callable[..., JSON], count: int) -> list[str]:
    names = [f"rs-{i:05d}" for i in range(count)]
    for index, name in enumerate(names):
        rs = make_rs(name)
        rs["metadata"] = {**rs["metadata"], "namespace": "default"}
        rs["metadata"]["labels"] = {"app": "web", "parity": str(index % 2)}
        store.create(RESOURCE, rs)
    return names


def test_heavy_work_runs_at_most_slots_at_once_off_the_loop() -> None:
    heavy = HeavyWork(slots=2)
    running = 0
    most = 0
    lock = threading.Lock()
    release = threading.Event()
    loop_thread = threading.get_ident()

    def work(index: int) -> tuple[int, int]:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        release.wait(5)
        with lock:
            running -= 1
        return index, threading.get_ident()

    async def scenario() -> list[tuple[int, int]]:
        tasks = [asyncio.create_task(heavy.run(work, i)) for i in range(5)]
        while heavy.waiting < 3:  # two run, three queue
            await asyncio.sleep(0.001)
        release.set()
        return await asyncio.gather(*tasks)

    results = asyncio.run(scenario())
    assert [index for index, _ in results] == [0, 1, 2, 3, 4]
    assert all(thread != loop_thread for _, thread in results)
    assert most == 2


def test_heavy_work_passes_exceptions_through_and_frees_the_slot() -> None:
    heavy = HeavyWork(slots=1)

    def fail() -> None:
        raise LookupError("boom")

    async def scenario() -> int:
        with pytest.raises(LookupError, match="boom"):
            await heavy.run(fail)
        return await heavy.run(lambda: 7)  # the slot was given back

    assert asyncio.run(scenario()) == 7


def test_a_cancelled_caller_keeps_the_slot_until_its_thread_ends() -> None:
    heavy = HeavyWork(slots=1)
    started = threading.Event()
    release = threading.Event()
    order: list[str] = []

    def slow() -> None:
        started.set()
        release.wait(5)
        order.append("slow done")

    def quick() -> None:
        order.append("quick")

    async def scenario() -> None:
        first = asyncio.create_task(heavy.run(slow))
        while not started.is_set():
            await asyncio.sleep(0.001)
        first.cancel()
        second = asyncio.create_task(heavy.run(quick))
        await asyncio.sleep(0.01)
        assert order == []  # quick waits: the cancelled caller's thread still holds the slot
        release.set()
        await second
        with pytest.raises(asyncio.CancelledError):
            await first

    asyncio.run(scenario())
    assert order == ["slow done", "quick"]


def test_slots_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        HeavyWork(slots=0)


@pytest.mark.parametrize(
    "count",
    [0, 1, REPLAY_BATCH - 1, REPLAY_BATCH, REPLAY_BATCH + 1, 2 * REPLAY_BATCH + 3],
    ids=["empty", "one", "batch-1", "batch", "batch+1", "two-batches+3"],
)
def test_a_replay_sends_every_object_once_in_order_then_live_events(
    count: int,
    store: MemoryStore,
    make_rs: Callable[..., JSON],
    make_app: Callable[..., Any],
    asgi_stream: Any,
) -> None:
    names = _seed(store, make_rs, count)

    async def scenario() -> None:
        async with asgi_stream(make_app(), RS, "watch=true") as stream:
            replayed = [await stream.line() for _ in range(count)]
            assert [event["type"] for event in replayed] == ["ADDED"] * count
            assert [event["object"]["metadata"]["name"] for event in replayed] == names
            _seed_one(store, make_rs, "zz-live")
            live = await stream.line()
            assert (live["type"], live["object"]["metadata"]["name"]) == ("ADDED", "zz-live")

    asyncio.run(scenario())


def _seed_one(store: MemoryStore, make_rs: Callable[..., JSON], name: str) -> None:
    rs = make_rs(name)
    rs["metadata"] = {**rs["metadata"], "namespace": "default"}
    store.create(RESOURCE, rs)


def test_a_replay_applies_the_selector_and_tables_have_columns_once(
    store: MemoryStore,
    make_rs: Callable[..., JSON],
    make_app: Callable[..., Any],
    asgi_stream: Any,
) -> None:
    names = _seed(store, make_rs, REPLAY_BATCH + 10)
    even = [name for index, name in enumerate(names) if index % 2 == 0]
    headers = {"accept": TABLE_ACCEPT}

    async def scenario() -> None:
        query = "watch=true&labelSelector=parity%3D0"
        async with asgi_stream(make_app(), RS, query, headers=headers) as stream:
            events = [await stream.line() for _ in range(len(even))]
        rows = [event["object"]["rows"][0]["cells"][0] for event in events]
        assert rows == even
        with_columns = [bool(event["object"].get("columnDefinitions")) for event in events]
        assert with_columns == [True] + [False] * (len(even) - 1)

    asyncio.run(scenario())


def test_a_large_list_is_complete_as_json_and_as_a_table(
    store: MemoryStore, client: TestClient, make_rs: Callable[..., JSON]
) -> None:
    names = _seed(store, make_rs, 1_200)
    body = client.get(RS).json()
    assert [item["metadata"]["name"] for item in body["items"]] == names
    assert body["metadata"]["resourceVersion"] == str(store.revision)
    table = client.get(RS, headers={"accept": TABLE_ACCEPT}).json()
    assert [row["cells"][0] for row in table["rows"]] == names
    bad = client.get(RS, headers={"accept": TABLE_ACCEPT}, params={"includeObject": "All"})
    assert bad.status_code == 400


@pytest.mark.parametrize(
    ("before", "after"),
    [(0.005, SWITCH_INTERVAL), (SWITCH_INTERVAL, SWITCH_INTERVAL), (0.0002, 0.0002)],
    ids=["default-is-shortened", "already-short", "shorter-is-kept"],
)
def test_serving_shortens_the_switch_interval_never_lengthens_it(
    before: float, after: float
) -> None:
    saved = sys.getswitchinterval()
    try:
        sys.setswitchinterval(before)
        shorten_switch_interval()
        assert sys.getswitchinterval() == pytest.approx(after)
    finally:
        sys.setswitchinterval(saved)
