"""Evaluating a parsed Kubernetes JSONPath template (client-go ``util/jsonpath``'s ``FindResults``).

``find_results`` walks the syntax tree ``customresources.jsonpath.parse`` builds over plain
decoded JSON (dicts, lists, str, int, float, bool, None): fields, wildcards, recursive
descent, slices and indexes with Go's bounds errors, unions, and filters compared as Go's
text/template compares (same kind only; bools only for equality). Missing keys give no result
(``AllowMissingKeys``, as the table convertor sets it). ``customresources.columns`` reads a
column's cells with it. Pure.
"""

from __future__ import annotations

from typing import Any

from podscale.apiserver.customresources.jsonpath_nodes import (
    Action,
    Field,
    Filter,
    JsonPathError,
    Literal,
    Node,
    Recursive,
    Slice,
    Template,
    Text,
    Union,
    Wildcard,
)

__all__ = ["find_results"]


def find_results(template: Template, data: Any) -> list[list[Any]]:
    """The values each part of the template selects (client-go ``FindResults``).

    One list per part: a text part gives its text, an action the values it selects (JSON null
    included, as None). Raises JsonPathError where upstream reports an error.
    """
    results: list[list[Any]] = []
    for part in template.parts:
        if isinstance(part, Text):
            results.append([part.text])
        else:
            results.append(_walk_all([data], part.nodes))
    return results


def _walk_all(values: list[Any], nodes: tuple[Node, ...]) -> list[Any]:
    for node in nodes:
        values = _walk(values, node)
    return values


def _walk(values: list[Any], node: Node) -> list[Any]:
    if isinstance(node, Field):
        return [v[node.name] for v in values if isinstance(v, dict) and node.name in v]
    if isinstance(node, Text):
        return [node.text]
    if isinstance(node, Literal):
        return [node.value for _ in values]
    if isinstance(node, Slice):
        return [item for v in values if v is not None for item in _slice(v, node)]
    if isinstance(node, Wildcard):
        return [child for v in values for child in _children(v)]
    if isinstance(node, Recursive):
        return _recursive(values)
    if isinstance(node, Union):
        return [item for branch in node.branches for item in _walk_all(values, branch)]
    if isinstance(node, Filter):
        return [item for v in values for item in _filter(v, node)]
    if isinstance(node, Action):
        return _walk_all(values, node.nodes)
    # range / end: loops print several blocks; a table cell never needs them.
    raise JsonPathError(f"unsupported identifier {node.name}")


def _slice(value: Any, node: Slice) -> list[Any]:
    if not isinstance(value, list):
        raise JsonPathError(f"{_go_type(value)} is not array or slice")
    length = len(value)
    start = 0 if node.start is None else node.start
    if start < 0:
        start += length
    if node.derived:  # [i] is [i:i+1] after a negative i is counted from the end
        end = start + 1
    else:
        end = length if node.end is None else node.end
        if end < 0:
            end += length
    if end != start:
        if start >= length:
            raise JsonPathError(f"array index out of bounds: index {start}, length {length}")
        if end > length:
            raise JsonPathError(f"array index out of bounds: index {end - 1}, length {length}")
    # Go would panic on these; an error (no cell) is the sane reading.
    if start < 0 or end < start or (node.cap is not None and not end <= node.cap <= length):
        raise JsonPathError(f"slice bounds out of range [{start}:{end}]")
    return value[start:end]


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):  # Go indexes a string by its bytes
        return list(value.encode())
    return []


def _recursive(values: list[Any]) -> list[Any]:
    found: list[Any] = []
    for value in values:
        children = _children(value)
        if children:
            found.append(value)
            found.extend(_recursive(children))
    return found


def _filter(value: Any, node: Filter) -> list[Any]:
    if not isinstance(value, list):
        raise JsonPathError(f"{_go_type(value)} is not array or slice and cannot be filtered")
    passed: list[Any] = []
    for item in value:
        if node.operator == "exists":
            try:
                lefts = _walk_all([item], node.left)
            except JsonPathError:
                lefts = []
            if lefts:
                passed.append(item)
            continue
        lefts = _walk_all([item], node.left)
        if len(lefts) != 1:
            raise JsonPathError("can only compare one element at a time")
        rights = _walk_all([item], node.right)
        if len(rights) != 1:
            raise JsonPathError("can only compare one element at a time")
        if _compare(node.operator, lefts[0], rights[0]):
            passed.append(item)
    return passed


def _kind(value: Any) -> str:
    """text/template's basicKind: the comparison class of a value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    raise JsonPathError("invalid type for comparison")


def _compare(operator: str, left: Any, right: Any) -> bool:
    left_kind, right_kind = _kind(left), _kind(right)
    if left_kind != right_kind:
        raise JsonPathError("incompatible types for comparison")
    if operator in ("==", "!="):
        return bool(left == right) == (operator == "==")
    if left_kind == "bool":
        raise JsonPathError("invalid type for comparison")
    if operator == "<":
        return bool(left < right)
    if operator == ">":
        return bool(left > right)
    if operator == "<=":
        return bool(left <= right)
    if operator == ">=":
        return bool(left >= right)
    raise JsonPathError(f"unrecognized filter operator {operator}")


def _go_type(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}"
    if value is None:
        return "<invalid reflect.Value>"
    return {bool: "bool", int: "int64", float: "float64", str: "string"}.get(
        type(value), type(value).__name__
    )
