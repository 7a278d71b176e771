"""Table assembly: columns per kind, rows[].object per includeObject, watch rows, Accept."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.kinds import KindInfo, all_kinds, kind_for
from podscale.apiserver.printing.tables import table_for, table_row_event, wants_table

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)

# (apiVersion, kind, [(column, type, priority)...]): what kubectl renders as headers.
COLUMNS = [
    (
        "v1",
        "Pod",
        [
            ("Name", "string", 0),
            ("Ready", "string", 0),
            ("Status", "string", 0),
            ("Restarts", "string", 0),
            ("Age", "string", 0),
            ("IP", "string", 1),
            ("Node", "string", 1),
            ("Nominated Node", "string", 1),
            ("Readiness Gates", "string", 1),
        ],
    ),
    (
        "v1",
        "Node",
        [
            ("Name", "string", 0),
            ("Status", "string", 0),
            ("Roles", "string", 0),
            ("Age", "string", 0),
            ("Version", "string", 0),
            ("Internal-IP", "string", 1),
            ("External-IP", "string", 1),
            ("OS-Image", "string", 1),
            ("Kernel-Version", "string", 1),
            ("Container-Runtime", "string", 1),
        ],
    ),
    ("v1", "Namespace", [("Name", "string", 0), ("Status", "string", 0), ("Age", "string", 0)]),
    (
        "v1",
        "Event",
        [
            ("Last Seen", "string", 0),
            ("Type", "string", 0),
            ("Reason", "string", 0),
            ("Object", "string", 0),
            ("Subobject", "string", 1),
            ("Source", "string", 1),
            ("Message", "string", 0),
            ("First Seen", "string", 1),
            ("Count", "string", 1),
            ("Name", "string", 1),
        ],
    ),
    (
        "apps/v1",
        "ReplicaSet",
        [
            ("Name", "string", 0),
            ("Desired", "integer", 0),
            ("Current", "integer", 0),
            ("Ready", "integer", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ],
    ),
    (
        "apps/v1",
        "Deployment",
        [
            ("Name", "string", 0),
            ("Ready", "string", 0),
            ("Up-to-date", "string", 0),
            ("Available", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ],
    ),
    (
        "apps/v1",
        "StatefulSet",
        [
            ("Name", "string", 0),
            ("Ready", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
        ],
    ),
    (
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        [
            ("Name", "string", 0),
            ("Reference", "string", 0),
            ("Targets", "string", 0),
            ("MinPods", "string", 0),
            ("MaxPods", "string", 0),
            ("Replicas", "string", 0),
            ("Age", "string", 0),
        ],
    ),
    (
        "autoscaling/v1",
        "HorizontalPodAutoscaler",
        [
            ("Name", "string", 0),
            ("Reference", "string", 0),
            ("Targets", "string", 0),
            ("MinPods", "string", 0),
            ("MaxPods", "string", 0),
            ("Replicas", "string", 0),
            ("Age", "string", 0),
        ],
    ),
    ("autoscaling/v1", "Scale", [("Name", "string", 0), ("Age", "string", 0)]),
]


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    COLUMNS,
    ids=[f"{api_version}-{kind}" for api_version, kind, _ in COLUMNS],
)
def test_column_definitions(
    api_version: str, kind: str, expected: list[tuple[str, str, int]]
) -> None:
    table = table_for(kind_for(api_version, kind), [], resource_version="1", now=NOW)
    columns = table["columnDefinitions"]
    assert [(c["name"], c["type"], c["priority"]) for c in columns] == expected
    assert all(set(c) == {"name", "type", "format", "description", "priority"} for c in columns)
    assert all(c["description"] for c in columns)
    assert [c["name"] for c in columns if c["format"] == "name"] == ["Name"]


def replica_set(name: str, rv: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "resourceVersion": rv,
            "creationTimestamp": "2026-11-22T11:59:57Z",
            "labels": {"app": name},
            "annotations": {"note": "kept"},
            "ownerReferences": [
                {"kind": "Deployment", "name": name, "uid": "u", "apiVersion": "apps/v1"}
            ],
        },
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}},
        },
        "status": {"replicas": 0},
    }


RS = kind_for("apps/v1", "ReplicaSet")
OBJECTS = [replica_set("foo", "101"), replica_set("bar", "102")]


def test_list_table_shape() -> None:
    table = table_for(RS, OBJECTS, resource_version="105", now=NOW)
    assert {k: v for k, v in table.items() if k != "columnDefinitions"} == {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": "105"},
        "rows": [
            {
                "cells": ["foo", 2, 0, 0, "3s", "c", "nginx", "app=foo"],
                "object": {
                    "kind": "PartialObjectMetadata",
                    "apiVersion": "meta.k8s.io/v1",
                    "metadata": OBJECTS[0]["metadata"],
                },
            },
            {
                "cells": ["bar", 2, 0, 0, "3s", "c", "nginx", "app=bar"],
                "object": {
                    "kind": "PartialObjectMetadata",
                    "apiVersion": "meta.k8s.io/v1",
                    "metadata": OBJECTS[1]["metadata"],
                },
            },
        ],
    }


@pytest.mark.parametrize(
    ("include_object", "expected"),
    [
        (
            "Metadata",
            {
                "kind": "PartialObjectMetadata",
                "apiVersion": "meta.k8s.io/v1",
                "metadata": OBJECTS[0]["metadata"],
            },
        ),
        (
            "",
            {
                "kind": "PartialObjectMetadata",
                "apiVersion": "meta.k8s.io/v1",
                "metadata": OBJECTS[0]["metadata"],
            },
        ),
        ("Object", OBJECTS[0]),
    ],
    ids=["metadata", "empty-means-metadata", "object"],
)
def test_include_object(include_object: str, expected: dict[str, Any]) -> None:
    table = table_for(RS, OBJECTS[:1], include_object=include_object, resource_version="1", now=NOW)
    assert table["rows"][0]["object"] == expected


def test_include_object_none_omits_the_object() -> None:
    table = table_for(RS, OBJECTS, include_object="None", resource_version="1", now=NOW)
    assert [set(row) for row in table["rows"]] == [{"cells"}, {"cells"}]


@pytest.mark.parametrize("value", ["metadata", "Full", "bogus\n"], ids=["case", "word", "newline"])
def test_unknown_include_object_is_rejected_with_upstream_message(value: str) -> None:
    quoted = '"' + value.replace("\n", "\\n") + '"'
    message = f"unrecognized includeObject value: {quoted}"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        table_for(RS, OBJECTS, include_object=value, resource_version="1", now=NOW)


def test_finished_pod_rows_keep_their_conditions() -> None:
    done = {"metadata": {"name": "job-1"}, "status": {"phase": "Succeeded"}}
    table = table_for(
        kind_for("v1", "Pod"), [done], include_object="None", resource_version="1", now=NOW
    )
    assert table["rows"][0]["conditions"][0]["reason"] == "Succeeded"


@pytest.mark.parametrize("with_columns", [True, False], ids=["first-event", "later-event"])
def test_watch_event_table(with_columns: bool) -> None:
    table = table_row_event(
        RS,
        OBJECTS[1],
        include_object="Metadata",
        resource_version="106",
        now=NOW,
        with_columns=with_columns,
    )
    assert table["kind"] == "Table"
    assert table["apiVersion"] == "meta.k8s.io/v1"
    assert table["metadata"] == {"resourceVersion": "106"}
    assert len(table["columnDefinitions"]) == (8 if with_columns else 0)
    assert [row["cells"][0] for row in table["rows"]] == ["bar"]
    assert table["rows"][0]["object"]["metadata"]["uid"] == "uid-bar"


def test_watch_event_honours_include_object() -> None:
    table = table_row_event(
        RS, OBJECTS[0], include_object="Object", resource_version="7", now=NOW, with_columns=False
    )
    assert table["rows"][0]["object"] is OBJECTS[0]


def test_inputs_are_not_modified() -> None:
    before = repr(OBJECTS)
    table_for(RS, OBJECTS, include_object="Object", resource_version="1", now=NOW)
    assert repr(OBJECTS) == before


TOP_LEVEL_KINDS = [info for info in all_kinds() if info.top_level]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "metadata",
                    "spec",
                    "status",
                    "name",
                    "containers",
                    "conditions",
                    "metrics",
                    "currentMetrics",
                    "type",
                    "resource",
                    "target",
                    "current",
                    "replicas",
                    "selector",
                    "containerStatuses",
                    "state",
                    "series",
                    "involvedObject",
                    "labels",
                    "apiVersion",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@given(
    kind=st.sampled_from(TOP_LEVEL_KINDS),
    obj=st.dictionaries(st.sampled_from(["metadata", "spec", "status"]), json_values, max_size=3),
)
def test_any_object_prints_one_cell_per_column(kind: KindInfo, obj: dict[str, Any]) -> None:
    """Malformed objects never crash the printer (no 500s) and rows stay rectangular."""
    obj = {**obj, "apiVersion": kind.api_version, "kind": kind.kind}
    table = table_for(kind, [obj], include_object="None", resource_version="1", now=NOW)
    assert len(table["rows"][0]["cells"]) == len(table["columnDefinitions"])


KUBECTL_TABLE = (
    "application/json;as=Table;v=v1;g=meta.k8s.io,"
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)
ACCEPTS = [
    ("kubectl-get", KUBECTL_TABLE, True),
    ("v1beta1-only", "application/json;as=Table;v=v1beta1;g=meta.k8s.io", True),
    ("spaces-and-case", "Application/JSON; as=Table; v=v1; g=meta.k8s.io", True),
    (
        "protobuf-table-first",
        "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,"
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
        True,
    ),
    ("kubectl-yaml-json", "application/json", False),
    ("python-client", "application/json", False),
    ("json-or-anything", "application/json, */*", False),
    ("kubectl-describe-protobuf", "application/vnd.kubernetes.protobuf,application/json", False),
    ("top-pods", "application/vnd.kubernetes.protobuf, */*", False),
    (
        "aggregated-discovery",
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
        "application/json",
        False,
    ),
    ("unknown-table-version", "application/json;as=Table;v=v2;g=meta.k8s.io", False),
    ("wrong-group", "application/json;as=Table;v=v1;g=example.com,application/json", False),
    (
        "quality-prefers-table",
        "application/json;q=0.5,application/json;as=Table;v=v1;g=meta.k8s.io",
        True,
    ),
    (
        "quality-prefers-plain",
        "application/json;as=Table;v=v1;g=meta.k8s.io;q=0.2,application/json",
        False,
    ),
    ("table-refused-by-q0", "application/json;as=Table;v=v1;g=meta.k8s.io;q=0", False),
    ("wildcard-table", "*/*;as=Table;v=v1;g=meta.k8s.io", True),
    ("nan-quality-ignored", "application/json;as=Table;v=v1;g=meta.k8s.io;q=nan", False),
    ("empty", "", False),
    ("garbage", ";;,,=", False),
]


@pytest.mark.parametrize(
    ("accept", "expected"), [c[1:] for c in ACCEPTS], ids=[c[0] for c in ACCEPTS]
)
def test_wants_table(accept: str, expected: bool) -> None:
    assert wants_table(accept) is expected


@given(st.text(max_size=60))
def test_wants_table_never_raises(accept: str) -> None:
    assert wants_table(accept) in (True, False)
