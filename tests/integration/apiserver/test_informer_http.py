"""An ``Informer`` over ``HttpListWatcher`` against a real uvicorn server on 127.0.0.1:0.

client-go's reflector contract, end to end over HTTP: the informer lists, watches from the
list's resourceVersion, follows creates, updates and deletes in order, and when its watch
comes back after the server's history moved on (410 Expired, raised as ``Gone``) it lists
again and reconciles its cache, telling its handlers about what changed in the gap. The
store keeps a history of only four events so the gap is easy to force: a gate around the
list-watcher holds the informer's re-watch until the test has written past the history.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.client.http import HttpApi, HttpListWatcher
from podscale.client.informer import EventHandler, Informer
from podscale.client.kubeconfig import Connection
from podscale.store import MemoryStore, SqliteStore, Store, SystemClock

JSON = dict[str, Any]
NS = "default"
POD = kind_for("v1", "Pod")
HISTORY = 4
WAIT_SECONDS = 20.0


@pytest.fixture(params=["memory", "sqlite"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunningServer]:
    clock = SystemClock()
    store: Store
    if request.param == "memory":
        store = MemoryStore(clock, history=HISTORY)
    else:
        store = SqliteStore(tmp_path / "data" / "store.db", clock, history=HISTORY)
    running = start_in_thread(create_app(store, clock=clock))
    try:
        yield running
    finally:
        running.stop()
        store.close()


def make_pod(name: str) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


@dataclass
class GatedListWatcher:
    """Delegates to ``inner``; after ``cut()``, the current watch ends at its next event and
    the following watch waits for ``reopen`` (so the test can write past the history)."""

    inner: HttpListWatcher
    lists: list[str] = field(default_factory=list)
    watched_from: list[str] = field(default_factory=list)
    held: asyncio.Event = field(default_factory=asyncio.Event)
    reopen: asyncio.Event = field(default_factory=asyncio.Event)
    _cut: bool = False

    def cut(self) -> None:
        self._cut = True
        self.reopen.clear()

    async def list(self) -> tuple[list[JSON], str]:
        items, resource_version = await self.inner.list()
        self.lists.append(resource_version)
        return items, resource_version

    async def watch(self, resource_version: str) -> AsyncIterator[tuple[str, JSON]]:
        if self._cut:
            self._cut = False
            self.held.set()
            await self.reopen.wait()
        self.watched_from.append(resource_version)
        async for event in self.inner.watch(resource_version):
            yield event
            if self._cut:
                return


@dataclass
class Recorder:
    seen: list[tuple[str, str]] = field(default_factory=list)

    def handler(self) -> EventHandler:
        return EventHandler(
            on_add=lambda obj: self.seen.append(("add", obj["metadata"]["name"])),
            on_update=lambda old, new: self.seen.append(("update", new["metadata"]["name"])),
            on_delete=lambda obj: self.seen.append(("delete", obj["metadata"]["name"])),
        )

    def take(self) -> list[tuple[str, str]]:
        seen, self.seen = self.seen, []
        return seen


async def wait_for(condition: Callable[[], bool]) -> None:
    """Bounded polling: the informer runs in the same loop, so yield to it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while not condition():
        assert loop.time() < deadline, "the informer did not catch up"
        await asyncio.sleep(0.01)


async def server_state(api: HttpApi) -> tuple[dict[str, str], str]:
    listed = await api.list(POD, NS)
    items = {p["metadata"]["name"]: p["metadata"]["resourceVersion"] for p in listed["items"]}
    return items, listed["metadata"]["resourceVersion"]


def cached(informer: Informer) -> dict[str, str]:
    return {p["metadata"]["name"]: p["metadata"]["resourceVersion"] for p in informer.lister.list()}


async def caught_up(api: HttpApi, informer: Informer) -> dict[str, str]:
    """Wait until the informer reflects the server's latest write; returns the cache."""
    expected, revision = await server_state(api)
    await wait_for(lambda: int(informer.resource_version or 0) >= int(revision))
    assert cached(informer) == expected
    return expected


def test_informer_tracks_the_server_and_relists_after_410(server: RunningServer) -> None:
    async def scenario() -> None:
        async with HttpApi(Connection(server=server.url)) as api:
            for name in ("p0", "p1", "p2"):
                await api.create(POD, NS, make_pod(name))
            gate = GatedListWatcher(HttpListWatcher(api, POD, NS))
            informer = Informer(source=gate, clock=SystemClock())
            recorder = Recorder()
            informer.add_handler(recorder.handler())
            running = asyncio.create_task(informer.run())
            try:
                await asyncio.wait_for(informer.wait_synced(), WAIT_SECONDS)
                assert sorted(cached(informer)) == ["p0", "p1", "p2"]
                assert recorder.take() == [("add", "p0"), ("add", "p1"), ("add", "p2")]

                # Creates, updates and deletes arrive through the watch, in order.
                await api.create(POD, NS, make_pod("p3"))
                await api.patch(POD, NS, "p0", {"metadata": {"annotations": {"a": "1"}}})
                await api.delete(POD, NS, "p1")
                await caught_up(api, informer)
                assert recorder.take() == [("add", "p3"), ("update", "p0"), ("delete", "p1")]
                assert gate.lists == [gate.watched_from[0]], "one list, then one watch"

                # Cut the watch and write past the history while it is away: 410 -> relist.
                gate.cut()
                await api.patch(POD, NS, "p2", {"metadata": {"annotations": {"a": "1"}}})
                await asyncio.wait_for(gate.held.wait(), WAIT_SECONDS)
                assert recorder.take() == [("update", "p2")]
                stale = informer.resource_version
                for name in ("p4", "p5", "p6"):
                    await api.create(POD, NS, make_pod(name))
                await api.delete(POD, NS, "p0")
                await api.patch(POD, NS, "p3", {"metadata": {"annotations": {"a": "1"}}})
                assert int((await server_state(api))[1]) - int(stale) > HISTORY
                gate.reopen.set()
                await caught_up(api, informer)
                assert len(gate.lists) == 2, "the 410 made the informer list again"
                assert gate.watched_from[-2:] == [stale, gate.lists[1]]
                assert sorted(recorder.take()) == [
                    ("add", "p4"),
                    ("add", "p5"),
                    ("add", "p6"),
                    ("delete", "p0"),
                    ("update", "p3"),
                ]

                # And it watches on from the relist.
                await api.create(POD, NS, make_pod("p7"))
                await caught_up(api, informer)
                assert recorder.take() == [("add", "p7")]
                assert len(gate.lists) == 2
            finally:
                informer.stop()
                running.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await running

    asyncio.run(scenario())
