"""Store contract: list order, namespaces, predicates, limit and continue, on both backends."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from podscale.store.engine import VersionedStore
from podscale.store.errors import InvalidContinueError
from podscale.store.interface import ExpiredError
from podscale.store.listing import CONTINUE_EXPIRED, encode_continue
from podscale.store.memory import MemoryStore

Pod = Callable[..., dict[str, Any]]


def names(items: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in items]


@pytest.fixture
def filled(store: VersionedStore, make_pod: Pod) -> VersionedStore:
    for namespace, name in [("b", "x"), ("a", "z"), ("a", "y"), ("c", "a"), ("b", "a")]:
        store.create("pods", make_pod(name, namespace))
    store.create("replicasets.apps", make_pod("other", "a"))
    return store


@pytest.mark.parametrize(
    ("namespace", "expected"),
    [
        (None, [("a", "y"), ("a", "z"), ("b", "a"), ("b", "x"), ("c", "a")]),
        ("a", [("a", "y"), ("a", "z")]),
        ("missing", []),
    ],
    ids=["all-namespaces", "one-namespace", "empty-namespace"],
)
def test_list_sorted_by_namespace_then_name(
    filled: VersionedStore, namespace: str | None, expected: list[tuple[str, str]]
) -> None:
    result = filled.list("pods", namespace)
    assert names(result.items) == expected
    assert result.revision == 6
    assert result.continue_token is None


def test_list_of_unknown_resource_is_empty(filled: VersionedStore) -> None:
    assert filled.list("deployments.apps").items == []


def test_predicate_filters(filled: VersionedStore) -> None:
    result = filled.list("pods", predicate=lambda o: o["metadata"]["name"] == "a")
    assert names(result.items) == [("b", "a"), ("c", "a")]


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 5, 6], ids=lambda n: f"limit-{n}")
def test_pages_cover_the_list_once(filled: VersionedStore, limit: int) -> None:
    seen: list[tuple[str, str]] = []
    token: str | None = None
    pages = 0
    while True:
        page = filled.list("pods", limit=limit, continue_token=token)
        assert page.revision == 6
        seen += names(page.items)
        pages += 1
        if page.continue_token is None:
            assert page.remaining is None
            break
        assert page.remaining == 5 - len(seen)
        token = page.continue_token
    assert seen == names(filled.list("pods").items)
    assert pages == -(-5 // limit)


def test_continue_with_predicate_leaves_remaining_unknown(filled: VersionedStore) -> None:
    page = filled.list("pods", predicate=lambda o: o["metadata"]["name"] != "x", limit=1)
    assert names(page.items) == [("a", "y")]
    assert page.remaining is None
    assert page.continue_token is not None
    rest = filled.list(
        "pods", predicate=lambda o: o["metadata"]["name"] != "x", continue_token=page.continue_token
    )
    assert names(rest.items) == [("a", "z"), ("b", "a"), ("c", "a")]


def test_continue_serves_the_first_page_snapshot(filled: VersionedStore, make_pod: Pod) -> None:
    before = names(filled.list("pods").items)
    page = filled.list("pods", limit=2)
    filled.create("pods", make_pod("zz", "c"))
    filled.delete("pods", "b", "x")
    changed = filled.get("pods", "c", "a")
    changed["status"] = {"phase": "Running"}
    filled.update("pods", changed)
    rest = filled.list("pods", continue_token=page.continue_token)
    assert rest.revision == 6
    assert names(page.items) + names(rest.items) == before
    assert rest.items[-1]["status"] == {"phase": "Pending"}
    assert rest.items[-1]["metadata"]["resourceVersion"] == "4"


def test_snapshot_survives_delete_and_recreate(filled: VersionedStore, make_pod: Pod) -> None:
    page = filled.list("pods", limit=1)
    old_uid = filled.get("pods", "b", "x")["metadata"]["uid"]
    filled.delete("pods", "b", "x")
    filled.create("pods", make_pod("x", "b"))
    rest = filled.list("pods", continue_token=page.continue_token)
    recreated = [o for o in rest.items if o["metadata"]["name"] == "x"]
    assert [o["metadata"]["uid"] for o in recreated] == [old_uid]


@pytest.mark.parametrize(
    "token",
    [
        "!!!",
        base64.urlsafe_b64encode(b"not json").decode(),
        base64.urlsafe_b64encode(json.dumps({"v": 1, "rv": "x"}).encode()).decode(),
        encode_continue("pods", "a", 6, ("a", "y")),
        encode_continue("nodes", None, 6, ("", "y")),
        encode_continue("pods", None, 0, ("a", "y")),
    ],
    ids=["not-base64", "not-json", "bad-fields", "other-namespace", "other-resource", "rv-zero"],
)
def test_foreign_continue_tokens_are_invalid(filled: VersionedStore, token: str) -> None:
    with pytest.raises(InvalidContinueError, match=r"^invalid continue token: "):
        filled.list("pods", continue_token=token)


def test_continue_token_expires_with_the_watch_history(clock: Any, make_pod: Pod) -> None:
    store = MemoryStore(clock, history=3)
    for index in range(4):
        store.create("pods", make_pod(f"p{index}"))
    page = store.list("pods", limit=1)
    for index in range(3):
        store.create("pods", make_pod(f"q{index}"))
    assert len(store.list("pods", continue_token=page.continue_token).items) == 3
    store.create("pods", make_pod("last"))  # now the first page's revision is gone
    with pytest.raises(ExpiredError) as info:
        store.list("pods", continue_token=page.continue_token)
    assert str(info.value) == CONTINUE_EXPIRED


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    keys=st.sets(
        st.tuples(st.sampled_from(["a", "b", "kube-system"]), st.text("abcxyz-", min_size=1)),
        max_size=25,
    ),
    limit=st.integers(min_value=1, max_value=30),
)
def test_paging_concatenates_to_the_full_list(
    clock: Any, make_pod: Pod, keys: set[tuple[str, str]], limit: int
) -> None:
    store = MemoryStore(clock)
    for namespace, name in keys:
        store.create("pods", make_pod(name, namespace))
    collected: list[tuple[str, str]] = []
    token: str | None = None
    while True:
        page = store.list("pods", limit=limit, continue_token=token)
        assert len(page.items) <= limit
        collected += names(page.items)
        token = page.continue_token
        if token is None:
            break
    assert collected == sorted(keys)
