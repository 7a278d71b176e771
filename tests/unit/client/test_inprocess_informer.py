"""An informer over ``InProcessListWatcher`` keeps its cache in step with the store, and the
list-watcher gives the informer the list's resourceVersion and the 410 as ``Gone``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.apiserver.registry.bootstrap import SYSTEM_NAMESPACES
from podscale.client.informer import EventHandler, Gone, Informer
from podscale.client.inprocess import InProcessApi, InProcessListWatcher
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
RS = kind_for("apps/v1", "ReplicaSet")


def rv(writes: int) -> str:
    """The resourceVersion of the ``writes``-th write after the API's system namespaces."""
    return str(len(SYSTEM_NAMESPACES) + writes)


def rs(name: str, replicas: int = 1, tier: str = "web") -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "labels": {"app": name, "tier": tier}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def make_api(history: int = 10_000) -> tuple[InProcessApi, FakeClock]:
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    store = MemoryStore(clock, history=history)
    return InProcessApi.for_store(store, clock, bookmark_interval=0.001), clock


class OpenedSignal:
    """Wraps a list-watcher; ``opened`` is set at the first watch event (BOOKMARKs included),
    so a test knows later writes reach the informer as live events."""

    def __init__(self, inner: InProcessListWatcher) -> None:
        self.inner = inner
        self.opened = asyncio.Event()

    async def list(self) -> tuple[list[JSON], str]:
        return await self.inner.list()

    async def watch(self, resource_version: str) -> AsyncIterator[tuple[str, JSON]]:
        async for event in self.inner.watch(resource_version):
            self.opened.set()
            yield event


async def _settle(informer: Informer, revision: str) -> None:
    while informer.resource_version != revision:
        await asyncio.sleep(0)


def test_informer_sees_creates_updates_and_deletes() -> None:
    api, clock = make_api()
    seen: list[tuple[str, str, int]] = []

    def record(kind: str, obj: JSON) -> None:
        seen.append((kind, obj["metadata"]["name"], obj["spec"]["replicas"]))

    async def scenario() -> list[str]:
        await api.create(RS, "default", rs("before"))
        informer = Informer(InProcessListWatcher(api, RS, "default"), clock)
        informer.add_handler(
            EventHandler(
                on_add=lambda o: record("add", o),
                on_update=lambda _, n: record("update", n),
                on_delete=lambda o: record("delete", o),
            )
        )
        task = asyncio.create_task(informer.run())
        await informer.wait_synced()
        await api.create(RS, "default", rs("new"))
        await api.patch(RS, "default", "new", {"spec": {"replicas": 4}})
        await api.delete(RS, "default", "before")
        await asyncio.wait_for(_settle(informer, rv(4)), 5.0)
        informer.stop()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return [obj["metadata"]["name"] for obj in informer.lister.list()]

    cached = asyncio.run(scenario())
    assert seen == [("add", "before", 1), ("add", "new", 1), ("update", "new", 4), (
        "delete", "before", 1)]  # fmt: skip
    assert cached == ["new"]


def test_selector_informer_drops_objects_that_leave_the_selector() -> None:
    api, clock = make_api()

    async def scenario() -> list[str]:
        await api.create(RS, "default", rs("a"))
        await api.create(RS, "default", rs("b", tier="db"))
        source = OpenedSignal(InProcessListWatcher(api, RS, "default", label_selector="tier=web"))
        informer = Informer(source, clock)
        task = asyncio.create_task(informer.run())
        await source.opened.wait()
        await api.patch(RS, "default", "a", {"metadata": {"labels": {"tier": "db"}}})
        await asyncio.wait_for(_settle(informer, rv(3)), 5.0)
        informer.stop()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return [obj["metadata"]["name"] for obj in informer.lister.list()]

    assert asyncio.run(scenario()) == []


def test_list_watcher_lists_with_the_snapshot_version_and_watches_gone_when_expired() -> None:
    api, _ = make_api(history=1)
    source = InProcessListWatcher(api, RS, "default")

    async def scenario() -> tuple[list[str], str]:
        await api.create(RS, "default", rs("a"))
        items, version = await source.list()
        await api.create(RS, "default", rs("b"))
        await api.create(RS, "default", rs("c"))
        with pytest.raises(Gone):
            async for _ in source.watch(version):
                pass
        return [i["metadata"]["name"] for i in items], version

    assert asyncio.run(scenario()) == (["a"], rv(1))
