"""``store.decode_memo``: a list through a ``DecodeMemo`` is the list, decoding only what
changed since the previous listing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.store.decode_memo import DecodeMemo
from podscale.store.engine import VersionedStore
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
START = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


def pod(name: str, namespace: str = "default") -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        "status": {"phase": "Pending"},
    }


def _counting() -> tuple[DecodeMemo[JSON], list[bytes]]:
    made: list[bytes] = []

    def make(data: bytes) -> JSON:
        made.append(data)
        decoded: JSON = orjson.loads(data)
        return decoded

    return DecodeMemo(make), made


def test_the_same_bytes_are_made_once_and_shared() -> None:
    memo, made = _counting()
    first = memo(b'{"a":1}')
    assert memo(b'{"a":1}') is first
    memo.turn()
    assert memo(b'{"a":1}') is first
    assert made == [b'{"a":1}']


def test_a_turn_keeps_only_what_the_listing_used() -> None:
    memo, made = _counting()
    memo(b'{"a":1}')
    memo(b'{"b":2}')
    memo.turn()
    assert memo.kept() == 2
    memo(b'{"b":2}')
    memo.turn()
    assert memo.kept() == 1
    memo(b'{"a":1}')  # dropped by the last turn: made anew
    assert made == [b'{"a":1}', b'{"b":2}', b'{"a":1}']


def test_a_falsy_result_is_remembered_too() -> None:
    calls: list[bytes] = []

    def make(data: bytes) -> int:
        calls.append(data)
        return 0

    memo = DecodeMemo(make)
    assert memo(b"0") == 0
    assert memo(b"0") == 0
    assert calls == [b"0"]


def test_an_updated_object_is_decoded_again_and_a_deleted_one_disappears(
    store: VersionedStore,
) -> None:
    memo, made = _counting()
    for name in ("a", "b", "c"):
        store.create("pods", pod(name))
    first = store.list("pods", decode=memo).items
    memo.turn()
    assert len(made) == 3
    changed = store.get("pods", "default", "b")
    changed["status"]["phase"] = "Running"
    store.update("pods", changed)
    store.delete("pods", "default", "c")
    second = store.list("pods", decode=memo).items
    memo.turn()
    assert second == store.list("pods").items
    assert [p["status"]["phase"] for p in second] == ["Pending", "Running"]
    assert second[0] is first[0]  # unchanged: the same item, not decoded again
    assert len(made) == 4
    assert memo.kept() == 2


READS: list[tuple[str | None, Callable[[JSON], bool] | None, int | None]] = [
    (None, None, None),
    ("default", None, None),
    ("other", None, None),
    (None, lambda obj: obj["status"]["phase"] == "Running", None),
    (None, None, 2),
]
NAMES = st.sampled_from(["a", "b", "c", "d"])
NAMESPACES = st.sampled_from(["default", "other"])
STEP = st.tuples(st.sampled_from(["create", "update", "finalize", "delete"]), NAMES, NAMESPACES)


def _apply(store: VersionedStore, verb: str, name: str, namespace: str) -> None:
    exists = store.revision_of("pods", namespace, name) is not None
    if verb == "create" and not exists:
        store.create("pods", pod(name, namespace))
    elif verb in ("update", "finalize") and exists:
        obj = store.get("pods", namespace, name)
        obj["status"]["phase"] = "Running" if obj["status"]["phase"] == "Pending" else "Pending"
        obj["metadata"]["finalizers"] = ["x"] if verb == "finalize" else []
        store.update("pods", obj)
    elif verb == "delete" and exists:
        store.delete("pods", namespace, name)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(STEP, max_size=4), min_size=1, max_size=6))
def test_a_memo_list_is_the_list(rounds: list[list[tuple[str, str, str]]]) -> None:
    """Each read (scope, selector, limit) through its own memo after each round of writes
    equals the plain read, item for item and page for page."""
    store = MemoryStore(FakeClock(START))
    memos = [DecodeMemo(orjson.loads) for _ in READS]
    for steps in rounds:
        for step in steps:
            _apply(store, *step)
        for (namespace, predicate, limit), memo in zip(READS, memos, strict=True):
            plain = store.list("pods", namespace, predicate=predicate, limit=limit)
            shared = store.list("pods", namespace, predicate=predicate, limit=limit, decode=memo)
            memo.turn()
            assert shared == plain
