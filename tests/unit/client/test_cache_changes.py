"""``Lister.changes``: every change of the cache counts, and nothing else does, so a
reader holding an old count knows whether what it read can have changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from podscale.client.cache import Cache, Lister


def _rs(name: str, rv: str = "1") -> dict[str, Any]:
    return {"metadata": {"namespace": "ns", "name": name, "resourceVersion": rv}}


@pytest.mark.parametrize(
    ("change", "counts"),
    [
        (lambda cache: cache.upsert(_rs("a", "2")), True),
        (lambda cache: cache.upsert(_rs("c")), True),
        (lambda cache: cache.remove(_rs("b")), True),
        (lambda cache: cache.replace([_rs("a"), _rs("b")]), True),
        (lambda cache: cache.get("ns/a"), False),
        (lambda cache: Lister(cache).list("ns"), False),
        (lambda cache: cache.by_index("namespace", "ns"), False),
    ],
    ids=["update", "add", "delete", "relist", "get", "list", "index"],
)
def test_changes_count_writes_only(change: Callable[[Cache], object], counts: bool) -> None:
    cache = Cache()
    cache.upsert(_rs("a"))
    cache.upsert(_rs("b"))
    lister = Lister(cache)
    before, listed = lister.changes, lister.list("ns")
    change(cache)
    assert (lister.changes != before) is counts
    if not counts:  # the same count: the same objects, in the same order
        assert all(a is b for a, b in zip(lister.list("ns"), listed, strict=True))
