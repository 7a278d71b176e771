"""Table columns and cells of custom resources from a CRD version's printer columns."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.apiserver.customresources.columns import (
    column_definitions,
    print_row,
    row_cells,
    typed_cell,
)
from podscale.apiserver.printing.columns import AGE, NAME

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)

# A version of a made-up "Kiln" kind (a pottery kiln firing schedule).
KILN_VERSION: dict[str, Any] = {
    "name": "v1alpha1",
    "served": True,
    "storage": True,
    "additionalPrinterColumns": [
        {"name": "Cone", "type": "integer", "jsonPath": ".spec.cone"},
        {
            "name": "Temperature",
            "type": "number",
            "format": "double",
            "jsonPath": ".status.celsius",
            "description": "Current chamber temperature.",
        },
        {"name": "Lit", "type": "boolean", "jsonPath": ".status.lit"},
        {
            "name": "Phase",
            "type": "string",
            "jsonPath": '.status.conditions[?(@.type=="Firing")].reason',
        },
        {"name": "Loaded", "type": "date", "jsonPath": ".status.loadedAt", "priority": 1},
        {"name": "Shelves", "type": "string", "jsonPath": ".spec.shelves", "priority": 2},
    ],
}

KILN: dict[str, Any] = {
    "apiVersion": "ceramics.podscale.test/v1alpha1",
    "kind": "Kiln",
    "metadata": {"name": "big-blue", "creationTimestamp": "2026-11-20T09:00:00Z"},
    "spec": {"cone": 6, "shelves": [{"height": 12}, {"height": 9}]},
    "status": {
        "celsius": 1222,
        "lit": True,
        "loadedAt": "2026-11-22T11:15:00Z",
        "conditions": [
            {"type": "Loaded", "status": "True", "reason": "Full"},
            {"type": "Firing", "status": "True", "reason": "Ramping"},
        ],
    },
}


def test_column_definitions_start_with_name_and_follow_the_crd() -> None:
    definitions = column_definitions(KILN_VERSION)
    assert definitions[0] == NAME
    assert [(d["name"], d["type"], d["format"], d["priority"]) for d in definitions[1:]] == [
        ("Cone", "integer", "", 0),
        ("Temperature", "number", "double", 0),
        ("Lit", "boolean", "", 0),
        ("Phase", "string", "", 0),
        ("Loaded", "date", "", 1),
        ("Shelves", "string", "", 2),
    ]
    assert definitions[2]["description"] == "Current chamber temperature."
    assert definitions[1]["description"] == (
        "Custom resource definition column (in JSONPath format): .spec.cone"
    )


def test_a_version_without_printer_columns_gets_name_and_age() -> None:
    definitions = column_definitions({"name": "v1", "served": True, "storage": True})
    assert definitions == [
        NAME,
        {
            "name": "Age",
            "type": "date",
            "format": "",
            "description": AGE["description"],
            "priority": 0,
        },
    ]
    assert row_cells({"name": "v1"}, KILN, NOW) == ["big-blue", "2d3h"]


def test_row_cells_are_typed_per_column() -> None:
    assert row_cells(KILN_VERSION, KILN, NOW) == [
        "big-blue",
        6,
        1222.0,
        True,
        "Ramping",
        "45m",
        '[{"height":12},{"height":9}]',
    ]
    assert print_row(KILN_VERSION, KILN, NOW) == {"cells": row_cells(KILN_VERSION, KILN, NOW)}


def test_missing_values_are_null_cells() -> None:
    bare = {"apiVersion": "ceramics.podscale.test/v1alpha1", "kind": "Kiln", "metadata": {}}
    assert row_cells(KILN_VERSION, bare, NOW) == ["", None, None, None, None, None, None]


@pytest.mark.parametrize(
    ("kind", "value", "cell"),
    [
        ("integer", 3, 3),
        ("integer", 3.9, 3),
        ("integer", -3.9, -3),
        ("integer", "3", None),
        ("integer", True, None),
        ("number", 2, 2.0),
        ("number", 2.5, 2.5),
        ("number", "2.5", None),
        ("boolean", False, False),
        ("boolean", "true", None),
        ("boolean", 1, None),
        ("date", "2026-11-22T11:59:30Z", "30s"),
        ("date", "2026-11-22T13:59:30+02:00", "30s"),
        ("date", "2026-11-22T11:59:30.5Z", "29s"),
        ("date", "", "<unknown>"),
        ("date", "null", "<unknown>"),
        ("date", "0001-01-01T00:00:00Z", "<unknown>"),
        ("date", "yesterday", "<invalid>"),
        ("date", "2026-11-22", "<invalid>"),
        ("date", "2026-11-22t11:59:30z", "<invalid>"),
        ("date", "2026-11-22T12:00:30Z", "<invalid>"),
        ("date", 17, None),
        ("integer", None, None),
        ("mystery", "x", None),
    ],
    ids=lambda value: repr(value),
)
def test_typed_cell(kind: str, value: Any, cell: Any) -> None:
    assert typed_cell(kind, value, NOW) == cell
    assert type(typed_cell(kind, value, NOW)) is type(cell)


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("text", "text"),
        (12, "12"),
        (0.5, "0.5"),
        (False, "false"),
        (None, "<no value>"),
        ({"z": 1, "a": "<b>"}, '{"a":"\\u003cb\\u003e","z":1}'),
    ],
    ids=["string", "int", "float", "bool", "null", "object"],
)
def test_string_columns_print_any_value(value: Any, cell: str) -> None:
    version = {"additionalPrinterColumns": [{"name": "V", "type": "string", "jsonPath": ".v"}]}
    assert row_cells(version, {"metadata": {"name": "n"}, "v": value}, NOW) == ["n", cell]


@pytest.mark.parametrize(
    "path",
    [".spec.cone[0]", ".spec.cone[?(@.x)]", ".spec[", "spec.cone", ".status.conditions[9]"],
    ids=["index-on-number", "filter-on-number", "unparseable", "no-leading-dot", "out-of-range"],
)
def test_paths_that_fail_give_null_cells(path: str) -> None:
    version = {"additionalPrinterColumns": [{"name": "X", "type": "integer", "jsonPath": path}]}
    assert row_cells(version, KILN, NOW) == ["big-blue", None]


def test_only_the_first_match_is_shown() -> None:
    version = {
        "additionalPrinterColumns": [
            {"name": "Reason", "type": "string", "jsonPath": ".status.conditions[*].reason"}
        ]
    }
    assert row_cells(version, KILN, NOW) == ["big-blue", "Full"]
