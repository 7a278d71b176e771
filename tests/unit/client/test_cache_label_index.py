"""The informer cache's label index: ``Lister.list`` with a selector returns exactly what a
scan of every object would, in the same order, whatever the history of writes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.api import parse_selector
from podscale.client.cache import Cache, Lister, object_key

NAMESPACES = ("a", "b")
KEYS = ("app", "tier")
VALUES = ("x", "y", "z")

labels = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=2)
objects = st.builds(
    lambda ns, name, lbls: {"metadata": {"namespace": ns, "name": name, "labels": lbls}},
    st.sampled_from(NAMESPACES),
    st.sampled_from(("p1", "p2", "p3", "p4")),
    labels,
)
requirements = st.one_of(
    st.builds(lambda k, v: f"{k}={v}", st.sampled_from(KEYS), st.sampled_from(VALUES)),
    st.builds(lambda k, v: f"{k}!={v}", st.sampled_from(KEYS), st.sampled_from(VALUES)),
    st.builds(lambda k: f"{k}", st.sampled_from(KEYS)),
    st.builds(lambda k: f"!{k}", st.sampled_from(KEYS)),
    st.builds(lambda k: f"{k} in (x,y)", st.sampled_from(KEYS)),
)
selectors = st.lists(requirements, max_size=3).map(",".join)
writes = st.lists(st.tuples(st.booleans(), objects), max_size=25)


def scan(cache: Cache, namespace: str | None, selector: Any) -> list[dict[str, Any]]:
    found = [
        obj
        for obj in cache.values()
        if (namespace is None or obj["metadata"]["namespace"] == namespace)
        and selector.matches(obj["metadata"].get("labels") or {})
    ]
    return sorted(found, key=object_key)


@settings(max_examples=300, deadline=None)
@given(writes, selectors, st.sampled_from((None, *NAMESPACES)))
def test_indexed_list_equals_a_scan(
    history: list[tuple[bool, dict[str, Any]]], text: str, namespace: str | None
) -> None:
    cache = Cache()
    for keep, obj in history:
        if keep:
            cache.upsert(obj)
        else:
            cache.remove(obj)
    selector = parse_selector(text)
    assert Lister(cache).list(namespace, selector) == scan(cache, namespace, selector)
