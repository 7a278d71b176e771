"""NameSelection (podscale.runtime.simulated.pod_names): a kept answer is the general path's
(``select_names`` over the lister) after every kind of cache change, and unhashable
selectors are answered afresh."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from podscale.api.selectors import Requirement, Selector, selector_from_label_selector
from podscale.client.cache import Cache, Lister
from podscale.runtime.simulated.pod_names import NameSelection, select_names

WEB = selector_from_label_selector({"matchLabels": {"app": "web"}})
API = selector_from_label_selector({"matchLabels": {"app": "api"}})


def pod(name: str, app: str, namespace: str = "default", **extra: str) -> dict[str, Any]:
    labels = {"app": app, **extra}
    return {"metadata": {"name": name, "namespace": namespace, "labels": labels}}


def filled() -> Cache:
    cache = Cache()
    for name, app in (("web-b", "web"), ("web-a", "web"), ("api-a", "api")):
        cache.upsert(pod(name, app))
    cache.upsert(pod("web-x", "web", namespace="other"))
    return cache


CHANGES: list[tuple[str, Callable[[Cache], object]]] = [
    ("nothing", lambda cache: None),
    ("a pod added", lambda cache: cache.upsert(pod("web-c", "web"))),
    ("a pod removed", lambda cache: cache.remove(pod("web-a", "web"))),
    ("a pod relabelled", lambda cache: cache.upsert(pod("web-b", "api"))),
    ("a pod rewritten, same labels", lambda cache: cache.upsert(pod("web-b", "web", v="2"))),
    ("a relist", lambda cache: cache.replace([pod("web-z", "web"), pod("api-z", "api")])),
    ("another namespace", lambda cache: cache.upsert(pod("web-y", "web", namespace="other"))),
]


@pytest.mark.parametrize("change", [c[1] for c in CHANGES], ids=[c[0] for c in CHANGES])
def test_a_kept_answer_is_the_listers_after_a_change(change: Callable[[Cache], object]) -> None:
    cache = filled()
    lister = Lister(cache)
    names = NameSelection(lister)
    questions = [("default", WEB), ("default", API), ("other", WEB), ("none", WEB)]
    before = [names.select(ns, sel) for ns, sel in questions]
    assert before == [select_names(lister, ns, sel) for ns, sel in questions]
    assert before[0] == ("web-a", "web-b")
    change(cache)
    after = [names.select(ns, sel) for ns, sel in questions]
    assert after == [select_names(lister, ns, sel) for ns, sel in questions]
    # Asked again without a change: the same answer.
    assert [names.select(ns, sel) for ns, sel in questions] == after


def test_an_equal_selector_built_anew_is_answered_alike() -> None:
    lister = Lister(filled())
    names = NameSelection(lister)
    first = names.select("default", WEB)
    again = names.select("default", selector_from_label_selector({"matchLabels": {"app": "web"}}))
    assert again == first == select_names(lister, "default", WEB)
    assert again is first  # kept, not read again


def test_an_unhashable_selector_is_answered_afresh() -> None:
    cache = filled()
    lister = Lister(cache)
    names = NameSelection(lister)
    odd = Selector((Requirement("app", "in", ["web"]),))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        hash(odd)
    assert names.select("default", odd) == ("web-a", "web-b")
    cache.upsert(pod("web-c", "web"))
    assert names.select("default", odd) == ("web-a", "web-b", "web-c")
