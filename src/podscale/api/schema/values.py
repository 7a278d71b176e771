"""Comparing and copying decoded JSON values the way the Go code does.

Decoded JSON here is what ``json.loads`` gives: ``dict``, ``list``, ``str``, ``int``,
``float``, ``bool`` and ``None``. Go keeps integers (``int64``) and other numbers
(``float64``) apart, and so must we: ``deep_equal`` is ``reflect.DeepEqual`` (``1`` and
``1.0`` differ, ``True`` is not ``1``), ``enum_matches`` is kube-openapi's enum test
(a Go type conversion of the value to the enum member's type, then ``DeepEqual``), and
``copy_json`` is ``runtime.DeepCopyJSONValue``. Used by ``value_checks``, ``listtype``,
``defaulting`` and ``pipeline``.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

__all__ = ["copy_json", "deep_equal", "enum_matches", "is_number"]


def is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def deep_equal(a: Any, b: Any) -> bool:
    """``reflect.DeepEqual`` over unstructured values: dynamic types must match too."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def enum_matches(value: Any, allowed: Any) -> bool:
    """Whether kube-openapi accepts ``value`` as the enum member ``allowed``.

    Go converts the value to the member's type when that conversion exists: a float
    truncates to an int64 member, an int widens to a float64 member and even becomes a
    one-rune string for a string member. A null value never matches (upstream skips it).
    """
    if value is None or allowed is None:
        return False
    if isinstance(value, bool) or isinstance(allowed, bool):
        return isinstance(value, bool) and isinstance(allowed, bool) and value == allowed
    if isinstance(allowed, int) and isinstance(value, float):
        return math.isfinite(value) and int(value) == allowed
    if isinstance(allowed, float) and isinstance(value, int):
        return float(value) == allowed
    if isinstance(allowed, str) and isinstance(value, int):
        return 0 <= value <= 0x10FFFF and chr(value) == allowed
    return deep_equal(value, allowed)


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value (defaults must never alias the schema)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value
