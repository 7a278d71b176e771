"""The pod GC's shortcut (podscale.controllers.podgc.bound_nodes and
``orphans.pass_has_work``): the nodes followed from the pod informer's events are those the
pod lister's pods are bound to, through adds, rebinds and deletes; and a pass the shortcut
skips is one the general pass would have left without any change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.client.cache import Cache, Lister
from podscale.controllers.podgc.bound_nodes import BoundNodes
from podscale.controllers.podgc.orphans import (
    node_name_of,
    orphaned_pods,
    pass_has_work,
    quarantine_missing_nodes,
)

JSON = dict[str, Any]
T0 = datetime(2026, 5, 1, tzinfo=UTC)
Q = timedelta(seconds=40)
NODES = ["", "a", "b", "c"]


def pod(name: str, node: str, namespace: str = "default") -> JSON:
    spec: JSON = {"containers": [{"name": "app"}]}
    if node:
        spec["nodeName"] = node
    return {"metadata": {"name": name, "namespace": namespace}, "spec": spec}


def listed_nodes(cache: Cache) -> set[str]:
    return {node_name_of(p) for p in Lister(cache).list()} - {""}


# An operation: ("put", pod name, node) as an ADDED/MODIFIED event, ("delete", pod name).
operations = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.sampled_from("pqrs"), st.sampled_from(NODES)),
        st.tuples(st.just("delete"), st.sampled_from("pqrs"), st.just("")),
    ),
    max_size=30,
)


@given(operations)
def test_followed_nodes_are_the_listed_pods_nodes(ops: list[tuple[str, str, str]]) -> None:
    # The informer's order: the cache changes, then the handler hears of it.
    cache, bound = Cache(), BoundNodes()
    handler = bound.handler()
    assert handler.on_update is not None
    for op, name, node in ops:
        if op == "put":
            old = cache.upsert(pod(name, node))
            if old is None:
                bound.seen(pod(name, node))
            else:
                handler.on_update(old, pod(name, node))
        else:
            gone = cache.remove(pod(name, ""))
            bound.gone(gone if gone is not None else pod(name, ""))
        assert set(bound.nodes()) == listed_nodes(cache)


@pytest.mark.parametrize(
    ("steps", "nodes"),
    [
        ([("put", "p", "a")], {"a"}),
        ([("put", "p", ""), ("put", "p", "a")], {"a"}),
        ([("put", "p", "a"), ("put", "p", "b")], {"b"}),
        ([("put", "p", "a"), ("put", "q", "a"), ("delete", "p", "")], {"a"}),
        ([("put", "p", "a"), ("delete", "p", "")], set()),
        ([("delete", "p", "")], set()),
        ([("put", "p", "a"), ("put", "p", "a")], {"a"}),
    ],
    ids=[
        "bound-on-add",
        "bound-by-update",
        "rebound-moves",
        "shared-node-kept",
        "deleted-forgotten",
        "unknown-delete",
        "repeated-update",
    ],
)
def test_followed_nodes(steps: list[tuple[str, str, str]], nodes: set[str]) -> None:
    bound = BoundNodes()
    for op, name, node in steps:
        if op == "put":
            bound.seen(pod(name, node))
        else:
            bound.gone(pod(name, node))
    assert set(bound.nodes()) == nodes


@pytest.mark.parametrize(
    ("quarantined", "bound", "existing", "work"),
    [
        ({}, [], set(), False),
        ({}, ["a", "b"], {"a", "b", "c"}, False),
        ({}, ["", "a"], {"a"}, False),
        ({}, ["a", "gone"], {"a"}, True),
        ({"gone": T0 + Q}, [], {"a"}, True),
        ({"a": T0 + Q}, ["a"], {"a"}, True),
    ],
    ids=[
        "no-pods",
        "all-nodes-exist",
        "unbound-pod-ignored",
        "missing-node",
        "quarantine-waiting",
        "quarantined-node-registered",
    ],
)
def test_pass_has_work(
    quarantined: dict[str, datetime], bound: list[str], existing: set[str], work: bool
) -> None:
    assert pass_has_work(quarantined, bound, existing) is work


@given(
    st.dictionaries(
        st.sampled_from(NODES[1:]), st.integers(0, 80).map(lambda s: T0 + timedelta(seconds=s))
    ),
    st.lists(st.sampled_from(NODES)),
    st.sets(st.sampled_from(NODES[1:])),
    st.integers(0, 100),
)
def test_a_skipped_pass_is_one_that_changes_nothing(
    quarantined: dict[str, datetime], bound: list[str], existing: set[str], seconds: int
) -> None:
    now = T0 + timedelta(seconds=seconds)
    waiting, due = quarantine_missing_nodes(quarantined, bound, existing, now, Q)
    if not pass_has_work(quarantined, bound, existing):
        assert (waiting, due) == ({}, [])
        pods = [pod(f"p{i}", node) for i, node in enumerate(bound)]
        assert orphaned_pods(pods, set(due)) == []
