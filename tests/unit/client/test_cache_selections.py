"""The informer cache's memo of selector lists (``Cache.selections``): ``Lister.list`` with
a selector answers as a fresh computation would, in the same order, when lists and writes
interleave in any order; a write (an object added, changed, relabelled, removed, or the
whole content replaced) makes the next list see it; each caller gets its own list."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.api import parse_selector
from podscale.client.cache import Cache, Lister

from .test_cache_label_index import NAMESPACES, objects, scan, selectors

JSON = dict[str, Any]

steps = st.lists(
    st.one_of(
        st.tuples(st.just("upsert"), objects),
        st.tuples(st.just("remove"), objects),
        st.tuples(st.just("list"), st.tuples(selectors, st.sampled_from((None, *NAMESPACES)))),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_remembered_lists_equal_fresh_ones(history: list[tuple[str, Any]]) -> None:
    cache = Cache()
    lister = Lister(cache)
    for op, arg in history:
        if op == "upsert":
            cache.upsert(arg)
        elif op == "remove":
            cache.remove(arg)
        else:
            text, namespace = arg
            selector = parse_selector(text)
            assert lister.list(namespace, selector) == scan(cache, namespace, selector)


def pod(name: str, app: str, phase: str = "Pending") -> JSON:
    return {
        "metadata": {"namespace": "a", "name": name, "labels": {"app": app}},
        "status": {"phase": phase},
    }


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda c: c.upsert(pod("p3", "web")), ["p1", "p2", "p3"]),
        (lambda c: c.upsert(pod("p2", "db")), ["p1"]),
        (lambda c: c.remove(pod("p1", "web")), ["p2"]),
        (lambda c: c.replace([pod("p9", "web")]), ["p9"]),
        (lambda c: c.upsert(pod("p1", "web", "Running")), ["p1", "p2"]),
    ],
    ids=["added", "relabelled", "removed", "replaced", "changed-in-place-of"],
)
def test_a_write_is_seen_by_the_next_list(change: Any, expected: list[str]) -> None:
    cache = Cache()
    cache.upsert(pod("p1", "web"))
    cache.upsert(pod("p2", "web"))
    lister = Lister(cache)
    selector = parse_selector("app=web")
    first = lister.list("a", selector)
    assert [p["metadata"]["name"] for p in first] == ["p1", "p2"]
    change(cache)
    after = lister.list("a", selector)
    assert [p["metadata"]["name"] for p in after] == expected
    assert after == scan(cache, "a", selector)
    if expected == ["p1", "p2"]:  # the changed object, not the one it replaced
        assert after[0]["status"]["phase"] == "Running"


def test_each_caller_gets_a_list_of_its_own() -> None:
    cache = Cache()
    cache.upsert(pod("p1", "web"))
    lister = Lister(cache)
    selector = parse_selector("app=web")
    first = lister.list("a", selector)
    first.clear()
    assert [p["metadata"]["name"] for p in lister.list("a", selector)] == ["p1"]
    assert lister.list("a", parse_selector("app=web")) is not lister.list("a", selector)
