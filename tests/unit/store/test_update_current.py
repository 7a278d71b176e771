"""``Store.update(..., current=)``: the caller's decoding of the stored bytes, used only
while those bytes are still the ones the store holds.

A bogus decoding (another uid, which an update keeps from the stored object) tells which
object the store took: the caller's while no write came between ``get_encoded`` and the
update, its own once one did (the invalidation case), and its own for bytes that are equal
but not the ones it holds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
import pytest

from podscale.store.interface import ConflictError, NotFoundError
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
R = "configmaps"


def _store() -> tuple[MemoryStore, JSON]:
    store = MemoryStore(FakeClock(datetime(2026, 1, 1, tzinfo=UTC)), new_uid=lambda: "real")
    created = store.create(R, {"metadata": {"name": "a", "namespace": "ns"}, "data": {"k": "1"}})
    return store, created


def _bogus(data: bytes) -> JSON:
    decoded: JSON = orjson.loads(data)
    decoded["metadata"]["uid"] = "bogus"
    return decoded


def _write(store: MemoryStore, value: str) -> JSON:
    return {"metadata": {"name": "a", "namespace": "ns"}, "data": {"k": value}}


@pytest.mark.parametrize(
    ("between", "same_object", "uid"),
    [(False, True, "bogus"), (True, True, "real"), (False, False, "real")],
    ids=["current-taken", "write-between-ignored", "equal-bytes-not-held-ignored"],
)
def test_the_hint_is_taken_only_for_the_bytes_held(
    between: bool, same_object: bool, uid: str
) -> None:
    store, _ = _store()
    data = store.get_encoded(R, "ns", "a")
    if between:
        store.update(R, _write(store, "2"))
    held = data if same_object else bytes(bytearray(data))
    updated = store.update(R, _write(store, "3"), current=(held, _bogus(data)))
    assert updated["metadata"]["uid"] == uid
    assert updated["data"] == {"k": "3"}


def test_get_encoded_is_the_stored_object() -> None:
    store, created = _store()
    assert orjson.loads(store.get_encoded(R, "ns", "a")) == created == store.get(R, "ns", "a")
    with pytest.raises(NotFoundError):
        store.get_encoded(R, "ns", "b")


def test_a_stale_version_is_refused_with_or_without_the_hint() -> None:
    store, created = _store()
    data = store.get_encoded(R, "ns", "a")
    store.update(R, _write(store, "2"))
    stale = {**_write(store, "3"), "metadata": {**created["metadata"]}}
    with pytest.raises(ConflictError):
        store.update(R, stale, current=(data, orjson.loads(data)))


def test_a_write_that_changes_nothing_hands_back_the_stored_object() -> None:
    store, created = _store()
    data = store.get_encoded(R, "ns", "a")
    before = store.revision
    same = store.update(R, orjson.loads(data), current=(data, orjson.loads(data)))
    assert same == created
    assert store.revision == before
