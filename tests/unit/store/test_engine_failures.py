"""A persistence failure leaves the engine exactly as before: nothing applied or published."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from podscale.store.committed import LoadedState
from podscale.store.engine import VersionedStore
from podscale.store.errors import BackendError
from podscale.store.interface import NotFoundError
from podscale.store.records import EventRecord

Pod = Callable[..., dict[str, Any]]


class FlakyPersistence:
    """Commits succeed until ``failing`` is set."""

    def __init__(self) -> None:
        self.failing = False
        self.committed: list[int] = []

    def load(self) -> LoadedState:
        return LoadedState()

    def commit(self, record: EventRecord) -> None:
        if self.failing:
            raise BackendError("storage backend failure while writing: SQLITE_FULL")
        self.committed.append(record.revision)

    def close(self) -> None:
        return None


@pytest.mark.parametrize(
    "write",
    [
        lambda s, p: s.create("pods", p("new")),
        lambda s, p: s.update("pods", dict(s.get("pods", "default", "web"), spec={"x": 1})),
        lambda s, p: s.delete("pods", "default", "web"),
    ],
    ids=["create", "update", "delete"],
)
def test_failed_commit_changes_nothing(
    clock: Any, make_pod: Pod, write: Callable[[VersionedStore, Pod], object]
) -> None:
    persistence = FlakyPersistence()
    store = VersionedStore(persistence, clock, history=10, watch_buffer=10)
    before = store.create("pods", make_pod("web"))

    async def scenario() -> None:
        watch = store.watch("pods", since=1)
        persistence.failing = True
        with pytest.raises(BackendError, match="SQLITE_FULL"):
            write(store, make_pod)
        assert await watch.next(0) is None, "nothing was published"
        watch.close()

    asyncio.run(scenario())
    assert store.revision == 1
    assert store.get("pods", "default", "web") == before
    with pytest.raises(NotFoundError):
        store.get("pods", "default", "new")
    persistence.failing = False
    assert store.create("pods", make_pod("later"))["metadata"]["resourceVersion"] == "2"
    assert persistence.committed == [1, 2]
