"""Helpers over decoded JSON values shared by the PATCH engines.

``patch.json_patch``, ``patch.merge`` and ``patch.strategic`` compare, hash and print values the way
Go does after ``encoding/json`` decoding: an integer, a float and a boolean are different
values even when Python says ``1 == 1.0 == True``. ``go_format`` renders a value like Go's
``%v`` so error texts copied from upstream read the same (``map[name:web]``).
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["go_format", "go_type", "nesting_depth", "same_json", "scalar_key"]


def same_json(left: Any, right: Any) -> bool:
    """Deep JSON equality that keeps 1, 1.0 and true apart."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(same_json(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(same_json, left, right))
    return bool(left == right)


def scalar_key(value: Any) -> tuple[str, Any]:
    """A hashable, type-strict identity for a list element or merge-key value."""
    if isinstance(value, dict | list):
        return (type(value).__name__, orjson.dumps(value, option=orjson.OPT_SORT_KEYS))
    return (type(value).__name__, value)


def go_format(value: Any) -> str:
    """Go's ``fmt`` ``%v`` of a decoded JSON value (map keys sorted, as fmt prints them)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, dict):
        inner = " ".join(f"{k}:{go_format(value[k])}" for k in sorted(value))
        return f"map[{inner}]"
    if isinstance(value, list):
        return "[" + " ".join(go_format(v) for v in value) + "]"
    return str(value)


def nesting_depth(value: Any, limit: int) -> int:
    """How deeply ``value`` nests objects and arrays, counting stops once past ``limit``.

    Iterative, so it is safe on any document the decoder accepted.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict | list):
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children)
    return deepest


def go_type(value: Any) -> str:
    """Go's ``reflect.TypeOf`` name of a decoded JSON value, for upstream's type errors."""
    if value is None:
        return "<nil>"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    return "int64" if isinstance(value, int) else "float64"
