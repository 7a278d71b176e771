"""Ownership graph and reference classification (``podscale.controllers.garbagecollector``)."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.controllers.garbagecollector import (
    ObjectRef,
    OwnerRef,
    build_graph,
    classify_references,
    registry_scope,
)


def obj(
    uid: str,
    kind: str = "Pod",
    namespace: str | None = "default",
    owners: list[dict[str, Any]] | None = None,
    **meta: Any,
) -> dict[str, Any]:
    api_version = "v1" if kind in ("Pod", "Node") else "apps/v1"
    metadata: dict[str, Any] = {"name": uid, "uid": uid, **meta}
    if namespace is not None:
        metadata["namespace"] = namespace
    if owners:
        metadata["ownerReferences"] = owners
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata}


def owner(uid: str, kind: str = "ReplicaSet", **extra: Any) -> dict[str, Any]:
    api_version = "v1" if kind in ("Pod", "Node") else "apps/v1"
    return {"apiVersion": api_version, "kind": kind, "name": uid, "uid": uid, **extra}


def test_build_graph_indexes_nodes_and_dependents() -> None:
    graph = build_graph(
        [
            obj("rs", "ReplicaSet"),
            obj("p1", owners=[owner("rs", blockOwnerDeletion=True, controller=True)]),
            obj("p2", owners=[owner("rs"), owner("ghost")]),
            {"metadata": {"name": "no-uid"}},
        ]
    )
    assert sorted(graph.nodes) == ["p1", "p2", "rs"]
    assert graph.dependents["rs"] == ("p1", "p2")
    assert graph.dependents["ghost"] == ("p2",)
    assert graph.nodes["p1"].owner_references == (
        OwnerRef("apps/v1", "ReplicaSet", "rs", "rs", controller=True, block_owner_deletion=True),
    )
    assert [d.ref.uid for d in graph.blocking_dependents("rs")] == ["p1"]


def test_node_reads_deletion_state() -> None:
    graph = build_graph(
        [
            obj("fg", "ReplicaSet", finalizers=["foregroundDeletion"], deletionTimestamp="t"),
            obj("or", "ReplicaSet", finalizers=["orphan"], deletionTimestamp="t"),
            obj("pre", "ReplicaSet", finalizers=["foregroundDeletion"]),
        ]
    )
    fg, orphan, pre = graph.nodes["fg"], graph.nodes["or"], graph.nodes["pre"]
    assert (fg.deleting_dependents, fg.orphaning_dependents) == (True, False)
    assert (orphan.deleting_dependents, orphan.orphaning_dependents) == (False, True)
    # A finalizer without a deletionTimestamp is only an intent, not a deletion in progress.
    assert (pre.being_deleted, pre.deleting_dependents) == (False, False)


def test_object_ref_prints_like_upstream() -> None:
    ref = ObjectRef("apps/v1", "ReplicaSet", "a", "web", "u1")
    assert str(ref) == "[apps/v1/ReplicaSet, namespace: a, name: web, uid: u1]"


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    [
        ("v1", "Pod", True),
        ("v1", "Node", False),
        ("v1", "Namespace", False),
        ("apps/v1", "ReplicaSet", True),
        ("apps/v1beta2", "Deployment", True),
        ("example.com/v1", "Widget", None),
        ("v1", "Scale", None),
    ],
    ids=["pod", "node", "namespace", "replicaset", "other-version", "unknown", "subresource"],
)
def test_registry_scope(api_version: str, kind: str, expected: bool | None) -> None:
    assert registry_scope(api_version, kind) is expected


FG: dict[str, Any] = {"finalizers": ["foregroundDeletion"], "deletionTimestamp": "t"}

CLASSIFY_CASES: list[tuple[str, list[dict[str, Any]], tuple[list[str], list[str], list[str]]]] = [
    ("solid", [obj("rs", "ReplicaSet")], (["rs"], [], [])),
    ("missing-uid", [], ([], ["rs"], [])),
    ("other-namespace", [obj("rs", "ReplicaSet", namespace="other")], ([], ["rs"], [])),
    ("waiting", [obj("rs", "ReplicaSet", **FG)], ([], [], ["rs"])),
    (
        "background-deleting-is-solid",
        [obj("rs", "ReplicaSet", finalizers=["x"], deletionTimestamp="t")],
        (["rs"], [], []),
    ),
    (
        "orphaning-is-solid",
        [obj("rs", "ReplicaSet", finalizers=["orphan"], deletionTimestamp="t")],
        (["rs"], [], []),
    ),
    ("uid-reused-by-other-kind", [obj("rs", "Deployment")], ([], ["rs"], [])),
    (
        "uid-reused-by-other-name",
        [
            {
                **obj("rs", "ReplicaSet"),
                "metadata": {"name": "x", "uid": "rs", "namespace": "default"},
            }
        ],
        ([], ["rs"], []),
    ),
]


@pytest.mark.parametrize(
    ("others", "expected"),
    [(c[1], c[2]) for c in CLASSIFY_CASES],
    ids=[c[0] for c in CLASSIFY_CASES],
)
def test_classify_one_reference(
    others: list[dict[str, Any]], expected: tuple[list[str], list[str], list[str]]
) -> None:
    graph = build_graph([*others, obj("pod", owners=[owner("rs")])])
    refs = classify_references(graph, graph.nodes["pod"])
    got = (
        [r.uid for r in refs.solid],
        [r.uid for r in refs.dangling],
        [r.uid for r in refs.waiting],
    )
    assert (got, refs.undecidable) == (expected, False)


@pytest.mark.parametrize(
    "objects",
    [
        [obj("n1", "Node", namespace=None, owners=[owner("p", "Pod")]), obj("p", "Pod")],
        [obj("n1", "Node", namespace=None, owners=[owner("p", "Pod")])],
        [obj("pod", owners=[owner("w", apiVersion="example.com/v1", kind="Widget")])],
    ],
    ids=["cluster-scoped-dependent", "cluster-scoped-dependent-owner-missing", "unknown-kind"],
)
def test_classify_undecidable(objects: list[dict[str, Any]]) -> None:
    graph = build_graph(objects)
    assert classify_references(graph, graph.nodes[objects[0]["metadata"]["uid"]]).undecidable


def test_namespaced_dependent_may_have_cluster_scoped_owner() -> None:
    graph = build_graph(
        [obj("n1", "Node", namespace=None), obj("pod", owners=[owner("n1", "Node")])]
    )
    assert [r.uid for r in classify_references(graph, graph.nodes["pod"]).solid] == ["n1"]
