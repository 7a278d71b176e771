"""The collector's incrementally kept graph equals the planner's graph built from scratch
over the same objects, after any sequence of informer adds, updates and deletes; and each
event names the uids whose decisions it can change."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.controllers.garbagecollector import build_graph
from podscale.controllers.garbagecollector.live_graph import LiveGraph

JSON = dict[str, Any]
UIDS = [f"uid-{i}" for i in range(5)]


def obj(uid: str, owners: list[str], *, version: int = 1, deleting: bool = False) -> JSON:
    meta: JSON = {
        "name": uid.replace("uid", "name"),
        "namespace": "default",
        "uid": uid,
        "resourceVersion": str(version),
        "ownerReferences": [
            {"apiVersion": "v1", "kind": "Pod", "name": o.replace("uid", "name"), "uid": o}
            for o in owners
        ],
    }
    if deleting:
        meta["deletionTimestamp"] = "2026-03-01T00:00:00Z"
        meta["finalizers"] = ["foregroundDeletion"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta}


def dependents_as_sets(dependents: Any) -> dict[str, set[str]]:
    return {owner: set(dependents[owner]) for owner in dependents}


events = st.lists(
    st.tuples(
        st.sampled_from(["observe", "forget"]),
        st.sampled_from(UIDS),
        st.lists(st.sampled_from(UIDS), max_size=3, unique=True),
        st.booleans(),
    ),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(events)
def test_incremental_graph_matches_a_rebuild(
    script: list[tuple[str, str, list[str], bool]],
) -> None:
    live = LiveGraph()
    current: dict[str, JSON] = {}
    for version, (verb, uid, owners, deleting) in enumerate(script, start=1):
        if verb == "observe":
            current[uid] = obj(uid, owners, version=version, deleting=deleting)
            live.observe(current[uid])
        elif uid in current:
            live.forget(current.pop(uid))
    rebuilt = build_graph(current.values())
    view = live.view()
    assert dict(view.nodes) == dict(rebuilt.nodes)
    assert dependents_as_sets(view.dependents) == dependents_as_sets(rebuilt.dependents)


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ([("observe", obj("uid-1", ["uid-0"]))], ["uid-1", "uid-0"]),
        (
            [("observe", obj("uid-1", ["uid-0"])), ("observe", obj("uid-1", ["uid-0"], version=2))],
            [],
        ),
        (
            [("observe", obj("uid-1", ["uid-0"])), ("observe", obj("uid-1", ["uid-2"], version=2))],
            ["uid-1", "uid-0", "uid-2"],
        ),
        (
            [("observe", obj("uid-1", ["uid-0"])), ("observe", obj("uid-0", [], deleting=True))],
            ["uid-0", "uid-1"],
        ),
        (
            [("observe", obj("uid-1", ["uid-0"])), ("forget", obj("uid-1", ["uid-0"]))],
            ["uid-0"],
        ),
        (
            [("observe", obj("uid-1", ["uid-0"])), ("forget", obj("uid-0", []))],
            ["uid-1"],
        ),
    ],
    ids=[
        "add-wakes-itself-and-owner",
        "resourceversion-only-wakes-nobody",
        "owner-change-wakes-old-and-new",
        "owner-deleting-wakes-dependents",
        "delete-wakes-owner",
        "owner-delete-wakes-dependents",
    ],
)
def test_each_event_wakes_the_affected_uids(
    steps: list[tuple[str, JSON]], expected: list[str]
) -> None:
    live = LiveGraph()
    woken: list[str] = []
    for verb, item in steps:
        woken = live.observe(item) if verb == "observe" else live.forget(item)
    assert woken == expected
