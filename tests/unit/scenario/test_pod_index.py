"""``scenario.pod_index``: one LIST per namespace; the same pods as filtering every pod."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.selectors import parse_selector
from podscale.scenario.pod_index import KeptSelections, PodIndex

JSON = dict[str, Any]


def _pod(name: str, labels: dict[str, str]) -> JSON:
    return {"metadata": {"name": name, "labels": labels}}


def _index(pods: dict[str, list[JSON]], calls: list[str]) -> PodIndex:
    async def list_pods(namespace: str) -> list[JSON]:
        calls.append(namespace)
        return pods.get(namespace, [])

    return PodIndex(list_pods)


PODS = {
    "default": [
        _pod("web-1", {"app": "web", "tier": "front"}),
        _pod("web-2", {"app": "web"}),
        _pod("api-1", {"app": "api", "tier": "back"}),
        _pod("bare", {}),
    ],
    "other": [_pod("web-9", {"app": "web"})],
}


@pytest.mark.parametrize(
    ("namespace", "selector", "expected"),
    [
        ("default", "app=web", ["web-1", "web-2"]),
        ("default", "app=web,tier=front", ["web-1"]),
        ("default", "app in (web,api)", ["web-1", "web-2", "api-1"]),
        ("default", "app notin (web)", ["api-1", "bare"]),
        ("default", "tier", ["web-1", "api-1"]),
        ("default", "app=nothing", []),
        ("other", "app=web", ["web-9"]),
        ("missing", "app=web", []),
    ],
    ids=["exact", "two-exact", "set", "notin", "exists", "no-match", "other-namespace", "empty"],
)
def test_select(namespace: str, selector: str, expected: list[str]) -> None:
    index = _index(PODS, [])
    found = asyncio.run(index.select(namespace, parse_selector(selector)))
    assert [pod["metadata"]["name"] for pod in found] == expected


def test_each_namespace_is_listed_once() -> None:
    calls: list[str] = []
    index = _index(PODS, calls)

    async def many() -> None:
        for selector in ("app=web", "app=api", "tier", "app=web"):
            await index.select("default", parse_selector(selector))
        await index.select("other", parse_selector("app=web"))

    asyncio.run(many())
    assert calls == ["default", "other"]


_VALUES = st.sampled_from(["a", "b", "c"])
_LABELS = st.dictionaries(st.sampled_from(["app", "tier", "zone"]), _VALUES, max_size=3)
_SELECTORS = st.sampled_from(
    ["app=a", "app=a,tier=b", "app in (a,b)", "zone notin (c)", "tier", "!zone", "app!=a"]
)


@given(st.lists(_LABELS, max_size=12), _SELECTORS)
def test_the_index_finds_what_filtering_every_pod_finds(
    labels: list[dict[str, str]], text: str
) -> None:
    pods = [_pod(f"p{i}", dict(value)) for i, value in enumerate(labels)]
    selector = parse_selector(text)
    found = asyncio.run(_index({"ns": pods}, []).select("ns", selector))
    assert found == [pod for pod in pods if selector.matches(pod["metadata"]["labels"])]


def _kept_index(pods: dict[str, list[JSON]], kept: KeptSelections) -> PodIndex:
    async def list_pods(namespace: str) -> list[JSON]:
        return pods.get(namespace, [])

    return PodIndex(list_pods, kept)


@pytest.mark.parametrize(
    "new_list",
    [False, True],
    ids=["same-list-kept", "new-list-recomputed"],
)
def test_kept_selections_answer_as_the_general_path(new_list: bool) -> None:
    kept = KeptSelections()
    selector = parse_selector("app=web")
    first = asyncio.run(_kept_index(PODS, kept).select("default", selector))
    # The next snapshot: the same LIST object (nothing written), or a new one where a pod
    # lost its label (a write).
    pods = dict(PODS)
    if new_list:
        pods["default"] = [_pod("web-1", {"app": "api"}), *PODS["default"][1:]]
    second = asyncio.run(_kept_index(pods, kept).select("default", selector))
    expected = asyncio.run(_index(pods, []).select("default", selector))
    assert second == expected
    assert (second is first) is not new_list


@given(st.lists(_LABELS, max_size=12), st.lists(_SELECTORS, max_size=6))
def test_kept_selections_find_what_filtering_finds(
    labels: list[dict[str, str]], texts: list[str]
) -> None:
    pods = {"ns": [_pod(f"p{i}", dict(value)) for i, value in enumerate(labels)]}
    kept = KeptSelections()
    for text in texts * 2:
        selector = parse_selector(text)
        found = asyncio.run(_kept_index(pods, kept).select("ns", selector))
        assert found == [p for p in pods["ns"] if selector.matches(p["metadata"]["labels"])]
