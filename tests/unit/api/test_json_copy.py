"""``podscale.api.json_copy``: a deep copy equal to its input that shares no container."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.json_copy import copy_json

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


def _containers(value: Any) -> list[int]:
    found: list[int] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.append(id(node))
            stack.extend(node.values())
        elif isinstance(node, list):
            found.append(id(node))
            stack.extend(node)
    return found


@given(JSON_VALUES)
def test_a_copy_is_equal_and_shares_no_container(value: Any) -> None:
    copied = copy_json(value)
    assert copied == value
    assert not set(_containers(copied)) & set(_containers(value))


def _deep(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {}
    root = node
    for _ in range(depth):
        node["a"] = {}
        node = node["a"]
    return root


@pytest.mark.parametrize(
    "value",
    [
        {"big": 2**70, "list": [2**64]},
        {1: "non-string key"},
        {"at": datetime(2026, 1, 1, tzinfo=UTC)},
        _deep(300),
    ],
    ids=["integers-beyond-64-bits", "non-string-keys", "datetimes", "deeper-than-orjson-nests"],
)
def test_what_orjson_refuses_is_copied_by_the_walk(value: dict[Any, Any]) -> None:
    copied = copy_json(value)
    assert copied == value
    assert copied is not value
    assert not set(_containers(copied)) & set(_containers(value))
