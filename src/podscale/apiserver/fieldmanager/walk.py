"""The ground the typed walks stand on: absent values, type errors, value equality, shapes.

``typed`` (field sets, merge, removal) and ``compare`` walk a decoded JSON object alongside
its ``schema.TypeInfo``; this module holds what both need: ``ABSENT`` (a missing value, apart
from null), ``MergeError`` (an object that does not fit its type), ``same_value`` (upstream's
value equality), ``shape_of`` (whether a value is walked as a map, a list or a leaf),
``field_type`` (a map entry's type), and the naming of list items (``item_element``,
``index_items``): by their ``x-kubernetes-list-map-keys`` values (``k:``), by value for a
set (``v:``), by position otherwise. Paths come from ``fieldpath``.
"""

from __future__ import annotations

from typing import Any, Final

from podscale.apiserver.fieldmanager.fieldpath import Path, PathElement, format_path
from podscale.apiserver.fieldmanager.schema import TypeInfo

__all__ = [
    "ABSENT",
    "MergeError",
    "field_type",
    "index_items",
    "is_empty",
    "item_element",
    "same_value",
    "shape_of",
]


class _Absent:
    """A missing value, distinct from JSON null."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()


class MergeError(ValueError):
    """An object does not fit its merge type (upstream's typed validation errors)."""

    def __init__(self, path: Path, message: str) -> None:
        self.path = path
        self.detail = message
        super().__init__(f"{format_path(path)}: {message}" if path else message)


def same_value(left: Any, right: Any) -> bool:
    """Upstream's value equality: numbers by value (1 == 1.0), booleans apart from numbers."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_value(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_value, left, right))
    return type(left) is type(right) and bool(left == right)


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "list"
    return "null" if value is None else type(value).__name__


def shape_of(t: TypeInfo, value: Any, path: Path) -> str:
    """How a value is walked under type ``t``: ``map``, ``list`` or ``leaf``."""
    if value is ABSENT or value is None:
        return {"map": "map", "list": "list"}.get(t.kind, "leaf")
    if t.kind == "deduced":
        return "map" if isinstance(value, dict) else "leaf"
    if t.kind == "untyped":
        return "leaf"
    if t.kind == "map" and not isinstance(value, dict):
        raise MergeError(path, f"expected map, got {_type_name(value)}")
    if t.kind == "list" and not isinstance(value, list):
        raise MergeError(path, f"expected list, got {_type_name(value)}")
    if t.kind == "scalar" and isinstance(value, dict | list):
        raise MergeError(path, f"expected scalar, got {_type_name(value)}")
    return "leaf" if t.kind == "scalar" else t.kind


def field_type(t: TypeInfo, name: str, path: Path) -> TypeInfo:
    child = t.child(name)
    if child is None:
        raise MergeError((*path, PathElement.field(name)), "field not declared in schema")
    return child


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, dict | list)


def item_element(t: TypeInfo, item: Any, index: int, path: Path) -> PathElement:
    """The path element naming a list item (upstream's ``listItemToPathElement``)."""
    if t.list_type == "map":
        if not isinstance(item, dict):
            raise MergeError(path, "associative list with keys has an element that is not a map")
        element = t.element()
        fields: dict[str, Any] = {}
        for key in t.keys:
            if key in item:
                value = item[key]
            else:
                key_type = element.field(key) if element is not None else None
                if key_type is None or not key_type.has_default:
                    raise MergeError(
                        path,
                        f'associative list with keys has an element that omits key field "{key}"'
                        " (and doesn't have default value)",
                    )
                value = key_type.default
            if not _is_scalar(value):
                raise MergeError(path, f'key field "{key}" of a list item must be a scalar')
            fields[key] = value
        return PathElement.key(fields)
    if t.list_type == "set":
        if not _is_scalar(item):
            raise MergeError(path, "associative list without keys has an element that's a map type")
        return PathElement.of_value(item)
    return PathElement.index(index)


def index_items(
    t: TypeInfo, items: Any, path: Path, *, allow_duplicates: bool
) -> list[tuple[PathElement, Any]]:
    if not isinstance(items, list):
        return []
    out = [(item_element(t, item, i, path), item) for i, item in enumerate(items)]
    if not allow_duplicates:
        seen: set[PathElement] = set()
        for pe, _ in out:
            if pe in seen:
                raise MergeError(path, f"duplicate entries for key {pe}")
            seen.add(pe)
    return out


def is_empty(value: Any) -> bool:
    return value is ABSENT or value is None or (isinstance(value, dict | list) and not value)
