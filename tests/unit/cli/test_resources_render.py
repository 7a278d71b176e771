"""Rendering of the resource commands: tabwriter alignment, get tables, YAML/JSON, kubectl's
error texts and the HPA description. Expected layouts were checked against real kubectl
output for the same objects (see tests/integration/cli for the live comparison)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.kind_discovery import find_resource
from podscale.cli.describe_hpa import describe_hpa
from podscale.cli.printer import align_columns, render_json, render_table, render_yaml
from podscale.cli.resources_core import describe_api_error, qualified_name
from podscale.cli.resources_get import render_objects
from podscale.client.http import ApiError

JSON = dict[str, Any]


@pytest.mark.parametrize(
    ("text", "min_width", "padding", "expected"),
    [
        ("a\tbb\nccc\td", 0, 2, "a    bb\nccc  d"),
        ("a\tb", 6, 3, "a     b"),
        # A line without a cell ends the block: the next block has its own widths.
        ("long-name:\tx\nbreak\ns:\ty", 0, 2, "long-name:  x\nbreak\ns:  y"),
        # Cells of later columns align only within lines that have them.
        ("a\tb\tc\nxx\ty", 0, 1, "a  b c\nxx y"),
    ],
    ids=["two-columns", "min-width", "block-break", "ragged"],
)
def test_align_columns_matches_go_tabwriter(
    text: str, min_width: int, padding: int, expected: str
) -> None:
    assert align_columns(text, min_width=min_width, padding=padding) == expected


@given(st.lists(st.lists(st.text("abc xyz", max_size=6), min_size=2, max_size=4), max_size=6))
def test_align_columns_keeps_every_cell_in_order(rows: list[list[str]]) -> None:
    text = "\n".join("\t".join(row) for row in rows)
    rendered = align_columns(text).split("\n")
    assert len(rendered) == len(text.split("\n"))
    for row, line in zip(rows, rendered, strict=False):
        assert line.split() == " ".join(row).split()


def _table(priorities: list[int], rows: list[list[Any]], namespace: str = "default") -> JSON:
    names = ["Name", "Desired", "Age", "Images"][: len(priorities)]
    return {
        "kind": "Table",
        "columnDefinitions": [
            {"name": n, "priority": p} for n, p in zip(names, priorities, strict=True)
        ],
        "rows": [
            {"cells": cells, "object": {"metadata": {"namespace": namespace}}} for cells in rows
        ],
    }


@pytest.mark.parametrize(
    ("wide", "with_namespace", "expected"),
    [
        (False, False, "NAME   DESIRED   AGE\nweb    2         5s"),
        (True, False, "NAME   DESIRED   AGE   IMAGES\nweb    2         5s    nginx"),
        (False, True, "NAMESPACE   NAME   DESIRED   AGE\ndefault     web    2         5s"),
    ],
    ids=["default", "wide", "all-namespaces"],
)
def test_render_table_like_kubectl_get(wide: bool, with_namespace: bool, expected: str) -> None:
    table = _table([0, 0, 0, 1], [["web", 2, "5s", "nginx"]])
    assert render_table([table], wide=wide, with_namespace=with_namespace) == expected


def test_render_table_one_header_for_several_tables() -> None:
    first = _table([0, 0], [["a", 1]])
    second = _table([0, 0], [["longer-name", None]])
    assert render_table([first, second]) == (
        "NAME          DESIRED\na             1\nlonger-name   <none>"
    )


def test_render_yaml_sorted_double_quoted_and_literal_blocks() -> None:
    obj = {"b": {"v": "1", "list": [{"x": "y: z"}]}, "a": "line\n"}
    assert render_yaml(obj) == 'a: |\n  line\nb:\n  list:\n  - x: "y: z"\n  v: "1"\n'


def test_render_json_four_spaces_sorted_go_escaping() -> None:
    assert render_json({"b": 1, "a": "<&>"}) == (
        '{\n    "a": "\\u003c\\u0026\\u003e",\n    "b": 1\n}\n'
    )


@pytest.mark.parametrize(
    ("resource", "output", "single", "expected_start"),
    [
        ("rs", "name", False, "replicaset.apps/web\n"),
        ("po", "name", False, "pod/web\n"),
        ("rs", "yaml", True, "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:"),
        ("rs", "yaml", False, "apiVersion: v1\nitems:\n- apiVersion: apps/v1"),
    ],
    ids=["name-grouped", "name-core", "yaml-object", "yaml-list"],
)
def test_render_objects(resource: str, output: str, single: bool, expected_start: str) -> None:
    kind = find_resource(resource)[0]
    text = render_objects(kind, [{"metadata": {"name": "web"}}], output, single=single)
    assert text.startswith(expected_start)
    if output == "yaml" and not single:
        assert text.endswith('kind: List\nmetadata:\n  resourceVersion: ""\n')


@pytest.mark.parametrize(
    ("resource", "expected"),
    [
        ("hpa", "horizontalpodautoscaler.autoscaling"),
        ("deploy", "deployment.apps"),
        ("ns", "namespace"),
    ],
    ids=["hpa", "deploy", "core"],
)
def test_qualified_name(resource: str, expected: str) -> None:
    assert qualified_name(find_resource(resource)[0]) == expected


_INVALID_DETAILS: JSON = {
    "name": "neg",
    "group": "apps",
    "kind": "ReplicaSet",
    "causes": [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: -1: must be greater than or equal to 0",
            "field": "spec.replicas",
        }
    ],
}


@pytest.mark.parametrize(
    ("status", "body", "context", "expected"),
    [
        (
            404,
            {"reason": "NotFound", "message": 'replicasets.apps "x" not found'},
            "",
            'Error from server (NotFound): replicasets.apps "x" not found',
        ),
        (
            409,
            {"reason": "AlreadyExists", "message": 'replicasets.apps "x" already exists'},
            'error when creating "f.yaml":',
            'Error from server (AlreadyExists): error when creating "f.yaml": '
            'replicasets.apps "x" already exists',
        ),
        (
            422,
            {"reason": "Invalid", "message": "ignored", "details": _INVALID_DETAILS},
            'error when creating "f.yaml":',
            'The ReplicaSet "neg" is invalid: spec.replicas: Invalid value: -1: '
            "must be greater than or equal to 0",
        ),
        (
            422,
            {
                "reason": "Invalid",
                "details": {**_INVALID_DETAILS, "causes": _INVALID_DETAILS["causes"] * 2},
            },
            "",
            'The ReplicaSet "neg" is invalid: \n'
            "* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"
            "* spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            422,
            {"reason": "Invalid", "details": {"name": "p", "kind": "Pod"}},
            "",
            'The Pod "p" is invalid',
        ),
        (
            422,
            {"reason": "Invalid", "message": "bad"},
            "",
            "The request is invalid: bad",
        ),
        (
            400,
            {"reason": "BadRequest", "message": "nope"},
            "",
            "Error from server (BadRequest): nope",
        ),
        (500, {"message": "boom"}, "", "Error from server (InternalError): boom"),
    ],
    ids=[
        "not-found",
        "already-exists",
        "invalid-one-cause",
        "invalid-many-causes",
        "invalid-no-causes",
        "invalid-no-details",
        "bad-request",
        "no-reason",
    ],
)
def test_describe_api_error_like_kubectl(
    status: int, body: JSON, context: str, expected: str
) -> None:
    assert describe_api_error(ApiError(status, body), context) == expected


NOW = datetime(2026, 1, 1, 1, 0, tzinfo=UTC)


def _hpa(**status: Any) -> JSON:
    return {
        "metadata": {
            "name": "web",
            "namespace": "default",
            "labels": {"b": "2", "a": "1"},
            "creationTimestamp": "2026-01-01T00:00:00Z",
        },
        "spec": {
            "scaleTargetRef": {"kind": "ReplicaSet", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 5,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 50},
                    },
                },
                {
                    "type": "Pods",
                    "pods": {
                        "metric": {"name": "qps"},
                        "target": {"type": "AverageValue", "averageValue": "10"},
                    },
                },
            ],
        },
        "status": {"currentReplicas": 2, "desiredReplicas": 3, **status},
    }


def test_describe_hpa_without_current_metrics() -> None:
    text = describe_hpa(_hpa(), [], NOW)
    lines = text.splitlines()
    assert lines[2] == "Labels:                                                a=1"
    assert lines[3] == "                                                       b=2"
    assert "  resource cpu on pods  (as a percentage of request):  <unknown> / 50%" in lines
    assert '  "qps" on pods:                                       <unknown> / 10' in lines
    assert "ReplicaSet pods:                                       2 current / 3 desired" in lines
    assert lines[-1] == "Events:                                                <none>"


def test_describe_hpa_with_metrics_conditions_and_events() -> None:
    current = [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "current": {"averageUtilization": 75, "averageValue": "75m"},
            },
        },
        {"type": "Pods", "pods": {"metric": {"name": "qps"}, "current": {"averageValue": "12"}}},
    ]
    conditions = [{"type": "AbleToScale", "status": "True", "reason": "R", "message": "m"}]
    event = {
        "type": "Normal",
        "reason": "SuccessfulRescale",
        "message": "New size: 3",
        "source": {"component": "horizontal-pod-autoscaler"},
        "firstTimestamp": "2026-01-01T00:00:00Z",
        "lastTimestamp": "2026-01-01T00:50:00Z",
        "count": 2,
    }
    text = describe_hpa(_hpa(currentMetrics=current, conditions=conditions), [event], NOW)
    assert "75% (75m) / 50%" in text
    assert '"qps" on pods:' in text
    assert "12 / 10" in text
    assert text.endswith(
        "Conditions:\n"
        "  Type         Status  Reason  Message\n"
        "  ----         ------  ------  -------\n"
        "  AbleToScale  True    R       m\n"
        "Events:\n"
        "  Type    Reason             Age                From                       Message\n"
        "  ----    ------             ----               ----                       -------\n"
        "  Normal  SuccessfulRescale  10m (x2 over 60m)  horizontal-pod-autoscaler  New size: 3\n"
    )


def test_describe_hpa_behavior_block() -> None:
    hpa = _hpa()
    hpa["spec"]["behavior"] = {
        "scaleDown": {
            "stabilizationWindowSeconds": 300,
            "selectPolicy": "Min",
            "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
        }
    }
    text = describe_hpa(hpa, [], NOW)
    assert (
        "Behavior:\n  Scale Down:\n    Stabilization Window: 300 seconds\n"
        "    Select Policy: Min\n    Policies:\n"
        "      - Type: Percent  Value: 100  Period: 15 seconds\n"
    ) in text
    assert "Scale Up" not in text
