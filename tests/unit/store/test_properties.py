"""Invariants over random operation sequences: both backends agree, and a watch from the
start replays into exactly the listed state with strictly increasing revisions."""

from __future__ import annotations

import asyncio
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.store.engine import VersionedStore
from podscale.store.interface import StoreError
from podscale.store.memory import MemoryStore
from podscale.store.sqlite import SqliteStore

NAMES = st.sampled_from(["a", "b", "c"])
OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("create"), NAMES, st.booleans()),
        st.tuples(st.just("update"), NAMES, st.booleans()),
        st.tuples(st.just("finalize"), NAMES, st.booleans()),
        st.tuples(st.just("delete"), NAMES, st.booleans()),
    ),
    max_size=25,
)


class Clock:
    def now(self) -> datetime:
        return datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


def apply(store: VersionedStore, operation: tuple[str, str, bool]) -> object:
    """One operation; returns its result or the error's type and message."""
    verb, name, flag = operation
    try:
        if verb == "create":
            meta: dict[str, Any] = {"name": name, "namespace": "d"}
            if flag:
                meta["finalizers"] = ["keep"]
            return store.create("configmaps", {"metadata": meta, "data": {"n": "0"}})
        current = store.get("configmaps", "d", name)
        if verb == "update":
            current["data"] = {"n": str(int(current["data"]["n"]) + 1)}
            if flag:  # a stale version
                current["metadata"]["resourceVersion"] = "1"
            return store.update("configmaps", current)
        if verb == "finalize":
            current["metadata"]["finalizers"] = []
            return store.update("configmaps", current)
        return store.delete("configmaps", "d", name, finalizers_to_add=("orphan",) if flag else ())
    except StoreError as err:
        return (type(err).__name__, str(err))


@settings(max_examples=40)
@given(operations=OPERATIONS)
def test_backends_agree_and_watch_replays_to_the_list(
    operations: list[tuple[str, str, bool]],
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        uids = iter(range(1000))
        memory = MemoryStore(Clock(), new_uid=lambda: f"u{next(uids)}")
        uids2 = iter(range(1000))
        sqlite = SqliteStore(
            Path(directory) / "db" / "s.db", Clock(), new_uid=lambda: f"u{next(uids2)}"
        )

        async def scenario() -> dict[str, Any]:
            watch = memory.watch("configmaps", since=0)
            for operation in operations:
                assert apply(memory, operation) == apply(sqlite, operation)
            state: dict[str, Any] = {}
            last = 0
            while (event := await watch.next(0)) is not None:
                assert event.revision > last
                last = event.revision
                name = event.object["metadata"]["name"]
                if event.type == "DELETED":
                    del state[name]
                else:
                    state[name] = event.object
            watch.close()
            return state

        try:
            replayed = asyncio.run(scenario())
            listed = memory.list("configmaps")
            assert listed == sqlite.list("configmaps")
            assert memory.revision == sqlite.revision
            assert sorted(replayed.values(), key=lambda o: o["metadata"]["name"]) == listed.items
        finally:
            memory.close()
            sqlite.close()
