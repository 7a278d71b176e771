"""Store contract: lists as of an exact past revision, and waiting for a revision, on both
backends (upstream's ``resourceVersionMatch=Exact`` and "not older than" reads)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from podscale.runtime import VirtualTimeLoop
from podscale.store.engine import VersionedStore
from podscale.store.errors import TooLargeResourceVersionError
from podscale.store.interface import ExpiredError, StoreError
from podscale.store.listing import LIST_EXPIRED
from podscale.store.memory import MemoryStore

Pod = Callable[..., dict[str, Any]]
T = TypeVar("T")


def state_of(items: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """(namespace, name) -> the phase each item had (what the writes below change)."""
    return {
        (o["metadata"]["namespace"], o["metadata"]["name"]): o["status"]["phase"] for o in items
    }


def run_virtual(main: Callable[[], Coroutine[Any, Any, T]]) -> tuple[T, float]:
    """Run ``main()`` on a fresh virtual-time loop; returns its result and the virtual time
    that passed (waits cost no wall time)."""
    loop = VirtualTimeLoop()
    try:
        return loop.run_until_complete(main()), loop.time()
    finally:
        loop.close()


@pytest.fixture
def history(store: VersionedStore, make_pod: Pod) -> VersionedStore:
    """Revisions 1-6: a, b created; a Running; c created; b deleted; a Succeeded."""
    store.create("pods", make_pod("a"))
    store.create("pods", make_pod("b"))
    a = store.get("pods", "default", "a")
    a["status"]["phase"] = "Running"
    store.update("pods", a)
    store.create("pods", make_pod("c", "other"))
    store.delete("pods", "default", "b")
    a = store.get("pods", "default", "a")
    a["status"]["phase"] = "Succeeded"
    store.update("pods", a)
    return store


_EXPECTED = {
    1: {("default", "a"): "Pending"},
    2: {("default", "a"): "Pending", ("default", "b"): "Pending"},
    3: {("default", "a"): "Running", ("default", "b"): "Pending"},
    4: {("default", "a"): "Running", ("default", "b"): "Pending", ("other", "c"): "Pending"},
    5: {("default", "a"): "Running", ("other", "c"): "Pending"},
    6: {("default", "a"): "Succeeded", ("other", "c"): "Pending"},
}


@pytest.mark.parametrize("revision", sorted(_EXPECTED), ids=lambda r: f"rev-{r}")
def test_exact_list_is_the_state_at_that_revision(history: VersionedStore, revision: int) -> None:
    result = history.list("pods", revision=revision)
    assert result.revision == revision
    assert state_of(result.items) == _EXPECTED[revision]
    # The objects are as they were then, resourceVersion included.
    for item in result.items:
        assert int(item["metadata"]["resourceVersion"]) <= revision


def test_exact_list_of_one_namespace(history: VersionedStore) -> None:
    assert state_of(history.list("pods", "other", revision=3).items) == {}
    assert state_of(history.list("pods", "default", revision=4).items) == {
        ("default", "a"): "Running",
        ("default", "b"): "Pending",
    }


def test_exact_list_ahead_of_the_store_is_too_large(history: VersionedStore) -> None:
    with pytest.raises(TooLargeResourceVersionError) as info:
        history.list("pods", revision=9)
    assert str(info.value) == "Too large resource version: 9, current: 6"
    assert (info.value.requested, info.value.current) == (9, 6)


def test_exact_list_older_than_the_history_expires(clock: Any, make_pod: Pod) -> None:
    store = MemoryStore(clock, history=2)
    for name in "abcd":
        store.create("pods", make_pod(name))
    assert len(store.list("pods", revision=2).items) == 2  # rev 3, 4 kept: 2 is reachable
    with pytest.raises(ExpiredError) as info:
        store.list("pods", revision=1)
    assert str(info.value) == LIST_EXPIRED


@pytest.mark.parametrize(
    "options",
    [{"revision": 0}, {"revision": -1}, {"revision": 2, "continue_token": "x"}],
    ids=["zero", "negative", "with-continue"],
)
def test_exact_revision_must_be_positive_and_alone(
    history: VersionedStore, options: dict[str, Any]
) -> None:
    with pytest.raises(ValueError, match="revision must be positive"):
        history.list("pods", **options)


def test_exact_pages_stay_on_their_revision(history: VersionedStore, make_pod: Pod) -> None:
    first = history.list("pods", revision=4, limit=2)
    assert first.revision == 4
    assert first.continue_token is not None
    # Writes between the pages do not leak into them.
    history.create("pods", make_pod("aa"))
    history.delete("pods", "other", "c")
    rest = history.list("pods", continue_token=first.continue_token)
    assert rest.revision == 4
    assert state_of(first.items + rest.items) == _EXPECTED[4]


def test_wait_returns_at_once_for_a_reached_revision(history: VersionedStore) -> None:
    async def main() -> int:
        return await history.wait_for_revision(6, timeout=3.0)

    assert run_virtual(main) == (6, 0.0)


def test_wait_ends_when_a_write_reaches_the_revision(
    history: VersionedStore, make_pod: Pod
) -> None:
    async def main() -> int:
        waiting = asyncio.ensure_future(history.wait_for_revision(8, timeout=3.0))
        await asyncio.sleep(1.0)
        history.create("pods", make_pod("d"))
        await asyncio.sleep(0.5)
        assert not waiting.done()
        history.create("pods", make_pod("e"))
        return await waiting

    revision, elapsed = run_virtual(main)
    assert revision == 8
    assert elapsed == 1.5


def test_wait_wakes_for_a_write_from_another_thread(history: VersionedStore, make_pod: Pod) -> None:
    async def main() -> int:
        waiting = asyncio.ensure_future(history.wait_for_revision(7, timeout=60.0))
        await asyncio.sleep(0)
        writer = threading.Thread(target=history.create, args=("pods", make_pod("t")))
        writer.start()
        writer.join()
        return await waiting

    loop = asyncio.new_event_loop()
    try:
        assert loop.run_until_complete(main()) == 7
    finally:
        loop.close()


def test_wait_times_out_too_large_in_virtual_time(history: VersionedStore) -> None:
    async def main() -> str:
        with pytest.raises(TooLargeResourceVersionError) as info:
            await history.wait_for_revision(10, timeout=3.0)
        return str(info.value)

    message, elapsed = run_virtual(main)
    assert message == "Too large resource version: 10, current: 6"
    assert elapsed == 3.0


def test_closing_the_store_ends_waits(history: VersionedStore) -> None:
    async def main() -> None:
        waiting = asyncio.ensure_future(history.wait_for_revision(10, timeout=3.0))
        await asyncio.sleep(0)
        history.close()
        with pytest.raises(StoreError, match="store is closed"):
            await waiting

    assert run_virtual(main)[1] == 0.0


# -- the invariant: an exact list equals replaying the writes up to its revision ----------
_OPS = st.lists(
    st.tuples(
        st.sampled_from(["create", "update", "delete"]),
        st.sampled_from(["default", "kube-system"]),
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from(["Pending", "Running", "Failed"]),
    ),
    max_size=30,
)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_OPS, limit=st.integers(min_value=0, max_value=4))
def test_exact_list_equals_replaying_the_writes(
    make_store: Callable[..., VersionedStore], make_pod: Pod, ops: list[Any], limit: int
) -> None:
    store = make_store()
    model: dict[tuple[str, str], str] = {}
    states = {0: dict(model)}  # revision -> (namespace, name) -> phase
    for verb, namespace, name, phase in ops:
        key = (namespace, name)
        if verb == "create" and key not in model:
            pod = make_pod(name, namespace)
            pod["status"]["phase"] = phase
            store.create("pods", pod)
            model[key] = phase
        elif verb == "update" and key in model and model[key] != phase:
            current = store.get("pods", namespace, name)
            current["status"]["phase"] = phase
            store.update("pods", current)
            model[key] = phase
        elif verb == "delete" and key in model:
            store.delete("pods", namespace, name)
            del model[key]
        else:
            continue  # not a write: the revision did not move
        states[store.revision] = dict(model)
    for revision in range(1, store.revision + 1):
        items: list[dict[str, Any]] = []
        page = store.list("pods", revision=revision, limit=limit or None)
        items += page.items
        while page.continue_token is not None:
            page = store.list("pods", continue_token=page.continue_token, limit=limit or None)
            assert page.revision == revision
            items += page.items
        assert state_of(items) == states[revision]
