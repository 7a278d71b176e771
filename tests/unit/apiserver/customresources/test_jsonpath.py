"""Kubernetes JSONPath: parsing, finding results and Go's printing of them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.customresources.jsonpath import parse
from podscale.apiserver.customresources.jsonpath_find import find_results
from podscale.apiserver.customresources.jsonpath_nodes import JsonPathError
from podscale.apiserver.customresources.jsonpath_text import go_float, go_json, print_value

GADGET: dict[str, Any] = {
    "apiVersion": "toys.podscale.test/v1",
    "kind": "Gadget",
    "metadata": {
        "name": "sprocket",
        "labels": {"app.kubernetes.io/name": "sprocket", "tier": "gold"},
    },
    "spec": {
        "size": 4,
        "ratio": 0.25,
        "paused": False,
        "owner": None,
        "parts": [
            {"name": "gear", "count": 2},
            {"name": "spring", "count": 5},
            {"name": "bolt"},
        ],
    },
    "status": {
        "conditions": [
            {"type": "Assembled", "status": "True"},
            {"type": "Painted", "status": "False"},
        ]
    },
}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{.spec.size}", [[4]]),
        ("{.spec.ratio}", [[0.25]]),
        ("{.spec.paused}", [[False]]),
        ("{.spec.owner}", [[None]]),
        ("{.spec.missing}", [[]]),
        ("{.spec.missing.deeper}", [[]]),
        ("{.metadata.labels.app\\.kubernetes\\.io/name}", [["sprocket"]]),
        ("{.metadata.labels['tier']}", [["gold"]]),
        ("{.spec.parts[0].name}", [["gear"]]),
        ("{.spec.parts[-1].name}", [["bolt"]]),
        ("{.spec.parts[1:].name}", [["spring", "bolt"]]),
        ("{.spec.parts[:2].name}", [["gear", "spring"]]),
        ("{.spec.parts[0:-1].name}", [["gear", "spring"]]),
        ("{.spec.parts[*].name}", [["gear", "spring", "bolt"]]),
        ("{.spec.parts[0,2].name}", [["gear", "bolt"]]),
        ("{.spec.parts[*].count}", [[2, 5]]),
        ("{.spec.parts[?(@.count)].name}", [["gear", "spring"]]),
        ("{.spec.parts[?(@.name > 'c')].name}", [["gear", "spring"]]),
        ('{.status.conditions[?(@.status != "True")].type}', [["Painted"]]),
        ("{.spec.parts[?(@.name != 'gear')].name}", [["spring", "bolt"]]),
        ('{.status.conditions[?(@.type=="Painted")].status}', [["False"]]),
        ("{.status.conditions[?(@.type=='Assembled')].status}", [["True"]]),
        ('{.status.conditions[?(@.type=="Missing")].status}', [[]]),
        ("{..count}", [[2, 5]]),
        ("{.metadata.name}/{.spec.size}", [["sprocket"], ["/"], [4]]),
        ("{.spec.parts[0].*}", [["gear", 2]]),
        ('{"literal"}', [["literal"]]),
        ("{.spec.paused}{true}", [[False], [True]]),
        ("{$.spec.size}", [[4]]),
        ("{@.spec.size}", [[4]]),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_find_results(template: str, expected: list[list[Any]]) -> None:
    assert find_results(parse(template), GADGET) == expected


@pytest.mark.parametrize(
    "template",
    [
        "{.spec.size",
        "{.spec.parts[0}",
        "{.spec.parts[x]}",
        "{.spec.parts[?(@.count>1}",
        "{#}",
        "{....size}",
        "{'unterminated}",
    ],
    ids=[
        "unclosed-action",
        "unterminated-array",
        "bad-index",
        "unclosed-filter",
        "bad-char",
        "double-recursive",
        "unterminated-quote",
    ],
)
def test_malformed_templates_do_not_parse(template: str) -> None:
    with pytest.raises(JsonPathError):
        parse(template)


@pytest.mark.parametrize(
    "template",
    [
        "{.spec.parts[3]}",
        "{.spec.size[0]}",
        "{.metadata[?(@.x)]}",
        # bolt has no count: upstream cannot compare "nothing" and fails the whole filter.
        "{.spec.parts[?(@.count==2)].name}",
        "{.status.conditions[?(@.type==1)].status}",
        "{.spec.parts[?(@.count>1.5)]}",
        "{range .spec.parts[*]}{.name}{end}",
    ],
    ids=[
        "index-out-of-range",
        "index-on-number",
        "filter-on-object",
        "compare-missing",
        "compare-string-int",
        "compare-int-float",
        "range-unsupported",
    ],
)
def test_evaluation_errors(template: str) -> None:
    with pytest.raises(JsonPathError):
        find_results(parse(template), GADGET)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", "plain"),
        (7, "7"),
        (True, "true"),
        (None, "<no value>"),
        (2.5, "2.5"),
        (1e6, "1e+06"),
        (123456.0, "123456"),
        (1e-5, "1e-05"),
        ({"b": 1, "a": [1, "<&>"]}, '{"a":[1,"\\u003c\\u0026\\u003e"],"b":1}'),
        ([], "[]"),
        ([1.0, 1e21, 1e-7], "[1,1e+21,1e-7]"),
    ],
    ids=[
        "string",
        "int",
        "bool",
        "null",
        "float",
        "float-exp",
        "float-large-fixed",
        "float-small-exp",
        "object-sorted-escaped",
        "empty-list",
        "json-floats",
    ],
)
def test_print_value(value: Any, text: str) -> None:
    assert print_value(value) == text


def test_go_float_and_json_agree_on_round_trip() -> None:
    for value in (0.1, 1 / 3, 2.0**60, -7.75, 5e-324):
        assert float(go_float(value)) == value
        assert float(go_json(value)) == value


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_go_float_spellings_round_trip(value: float) -> None:
    assert float(go_float(value)) == value
    assert float(go_json(value)) == value
    assert "e" not in go_json(value) or not 1e-6 <= abs(value) < 1e21


_KEYS = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-/", min_size=1
)
_SCALARS = st.none() | st.booleans() | st.integers() | st.text()


@given(st.dictionaries(_KEYS, st.dictionaries(_KEYS, _SCALARS, min_size=1), min_size=1))
def test_dotted_paths_read_nested_fields(data: dict[str, dict[str, Any]]) -> None:
    for outer, inner in data.items():
        for key, value in inner.items():
            assert find_results(parse(f"{{.{outer}.{key}}}"), data) == [[value]]
            assert find_results(parse(f"{{.{outer}['{key}']}}"), data) == [[value]]
