"""``scenario.pod_index.KeptReads``: a namespace's pods LIST is reused only while the
store's pods revision is the one it was read at, and listed again once any pod is written
(created, updated, deleted); keys (namespaces) are kept apart. The store's side: every pod
write moves ``resource_revision("pods")`` and no other resource's write does."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.scenario.pod_index import KeptReads
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]


class Clock:
    def now(self) -> datetime:
        return datetime(2026, 1, 1, tzinfo=UTC)


def pod(name: str, namespace: str = "default") -> JSON:
    return {"metadata": {"name": name, "namespace": namespace}, "spec": {}}


def test_a_list_is_reused_until_a_pod_is_written() -> None:
    store = MemoryStore(Clock())
    kept = KeptReads()
    calls: list[str] = []

    async def list_pods(namespace: str) -> list[JSON]:
        calls.append(namespace)
        return list(store.list("pods", namespace).items)

    async def read(namespace: str = "default") -> list[str]:
        revision = store.resource_revision("pods")
        pods = await kept.read(namespace, revision, lambda: list_pods(namespace))
        return [p["metadata"]["name"] for p in pods]

    async def main() -> list[Any]:
        store.create("pods", pod("a"))
        seen: list[Any] = [await read(), await read()]
        store.create("configmaps", {"metadata": {"name": "c", "namespace": "default"}})
        seen.append(await read())  # another resource's write: still kept
        store.create("pods", pod("b"))
        seen.append(await read())
        current = store.get("pods", "default", "a")
        store.update("pods", {**current, "spec": {"nodeName": "n"}})
        seen.append(await read())
        store.delete("pods", "default", "b")
        seen.append(await read())
        seen.append(await read("other"))
        seen.append(await read("other"))
        return seen

    seen = asyncio.run(main())
    assert seen == [["a"], ["a"], ["a"], ["a", "b"], ["a", "b"], ["a"], [], []]
    # Listed: first read, after the create, the update, the delete, and "other" once.
    assert calls == ["default", "default", "default", "default", "other"]


@pytest.mark.parametrize(
    "write",
    [
        lambda s: s.create("pods", pod("x")),
        lambda s: s.update("pods", {**s.get("pods", "default", "a"), "spec": {"x": 1}}),
        lambda s: s.delete("pods", "default", "a"),
    ],
    ids=["create", "update", "delete"],
)
def test_every_pod_write_moves_the_pods_revision(write: Any) -> None:
    store = MemoryStore(Clock())
    store.create("pods", pod("a"))
    before = store.resource_revision("pods")
    store.create("nodes", {"metadata": {"name": "n"}})
    assert store.resource_revision("pods") == before
    write(store)
    assert store.resource_revision("pods") > before
