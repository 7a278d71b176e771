"""``SelectorIndex.target_pods`` keeps each HPA's last ``controlling`` answer while its pods
are the same objects and no selector changed: held equal, step after step, to asking
``controlling`` afresh, through pod replacements, selector changes and removals."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.selectors import parse_selector
from podscale.client.cache import Cache, Lister
from podscale.controllers.hpa.selector_index import SelectorIndex

_SELECTORS = ["app=web", "tier=front", "app!=web", "tier", "app in (web,api),tier=back"]
_HPAS = ["ns/a", "ns/b", "ns/c"]


def _pod(name: str, **labels: str) -> dict[str, Any]:
    return {"metadata": {"namespace": "ns", "name": name, "labels": labels}}


def _scale(selector: str) -> dict[str, Any]:
    return {"status": {"selector": selector}}


def _fresh(index: SelectorIndex, lister: Lister, selector: str) -> list[str]:
    """The general path: ``controlling`` over the same listed pods."""
    return index.controlling("ns", lister.list("ns", parse_selector(selector)))


_STEP = st.one_of(
    st.tuples(  # a pod created or replaced by a new object (perhaps other labels)
        st.just("pod"),
        st.sampled_from(["p0", "p1", "p2", "p3"]),
        st.dictionaries(st.sampled_from(["app", "tier"]), st.sampled_from(["web", "front"])),
    ),
    st.tuples(st.just("delete"), st.sampled_from(["p0", "p1", "p2", "p3"]), st.just({})),
    st.tuples(st.just("register"), st.sampled_from(_HPAS), st.just({})),
    st.tuples(st.just("remove"), st.sampled_from(_HPAS), st.just({})),
    st.tuples(  # an HPA's sync: its target's selector (which also updates the index)
        st.just("sync"), st.sampled_from(_HPAS), st.sampled_from(_SELECTORS)
    ),
)


@given(steps=st.lists(_STEP, max_size=25))
def test_kept_answer_is_controlling_afresh(steps: list[tuple[str, str, Any]]) -> None:
    cache = Cache()
    lister = Lister(cache)
    index = SelectorIndex()
    for verb, name, arg in steps:
        if verb == "pod":
            cache.upsert(_pod(name, **arg))
        elif verb == "delete":
            cache.remove(_pod(name))
        elif verb == "register":
            index.register("ns", name)
        elif verb == "remove":
            index.remove("ns", name)
        else:
            found, controlling = index.target_pods(lister, name, "ns", _scale(arg))
            assert found == lister.list("ns", parse_selector(arg))
            assert controlling == _fresh(index, lister, arg)


@pytest.mark.parametrize(
    "change",
    ["same pods", "pod replaced", "pod added", "pod deleted", "selector changed", "hpa removed"],
)
def test_invalidation(change: str) -> None:
    cache = Cache()
    lister = Lister(cache)
    index = SelectorIndex()
    for name in ("p0", "p1"):
        cache.upsert(_pod(name, app="web", tier="front"))
    for key in ("ns/a", "ns/b"):
        index.register("ns", key)
    index.target_pods(lister, "ns/b", "ns", _scale("tier=front"))
    first = index.target_pods(lister, "ns/a", "ns", _scale("app=web"))[1]
    assert first == ["ns/a", "ns/b"]
    if change == "pod replaced":
        cache.upsert(_pod("p0", app="web"))
        cache.upsert(_pod("p1", app="web"))
    elif change == "pod added":
        cache.upsert(_pod("p2", app="web", tier="back"))
        index.target_pods(lister, "ns/b", "ns", _scale("tier=back"))
    elif change == "pod deleted":
        cache.remove(_pod("p1"))
    elif change == "selector changed":
        index.target_pods(lister, "ns/b", "ns", _scale("tier=back"))
    elif change == "hpa removed":
        index.remove("ns", "ns/b")
    again = index.target_pods(lister, "ns/a", "ns", _scale("app=web"))[1]
    assert again == _fresh(index, lister, "app=web")
    expected = {
        "same pods": ["ns/a", "ns/b"],
        "pod replaced": ["ns/a"],
        "pod added": ["ns/a", "ns/b"],
        "pod deleted": ["ns/a", "ns/b"],
        "selector changed": ["ns/a"],
        "hpa removed": ["ns/a"],
    }[change]
    assert again == expected
    again.append("mutated")  # each caller gets its own list
    assert index.target_pods(lister, "ns/a", "ns", _scale("app=web"))[1] == expected
