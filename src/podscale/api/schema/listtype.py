"""Uniqueness of ``x-kubernetes-list-type: set`` and ``map`` lists, as kube-apiserver checks it.

Upstream (apiextensions-apiserver ``pkg/apiserver/schema/listtype``) reports each value
that repeats once, at the index of its second appearance:

- a set item: ``spec.tags[2]: Duplicate value: "a"``;
- a map item by its key fields: ``spec.ports[1]: Duplicate value:
  map[string]interface {}{"name":"http"}`` (a missing key counts as its own value and
  prints as ``map[string]interface {}{}``);
- a map item that is not an object: ``Invalid value: …: must be an object for an array of
  list-type map``.

Paths are ``field.Path`` style (properties ``.name``, items ``[i]``, map entries ``[key]``).
``validation.validate`` runs this after the schema checks.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, duplicate, invalid
from podscale.api.schema.facts import facts
from podscale.api.schema.gofmt import bad_value, go_json
from podscale.api.schema.nodes import (
    Schema,
    additional_schema,
    as_schema,
    items_schema,
    list_map_keys,
    list_type,
    properties,
)

__all__ = ["validate_list_types"]


class _Unspecified:
    """A map-list item without its key (or a null item): equal only to its own kind."""


_UNSPECIFIED: Final = _Unspecified()


def _identity(value: Any) -> Hashable:
    # Go keys scalars by dynamic type and value (int64 1 != float64 1) and compounds by
    # their JSON encoding.
    if isinstance(value, (dict, list)):
        return ("json", go_json(value))
    if value is _UNSPECIFIED:
        return ("unspecified",)
    return (type(value).__name__, value)


def _second_appearances(values: list[Any]) -> list[int]:
    seen: dict[Hashable, int] = {}
    repeated: list[int] = []
    for i, value in enumerate(values):
        key = _identity(value)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 2:
            repeated.append(i)
    return repeated


def _map_list_errors(items: list[Any], keys: tuple[str, ...], path: FieldPath) -> list[FieldError]:
    for i, item in enumerate(items):
        if item is not None and not isinstance(item, dict):
            return [
                invalid(
                    path.index(i),
                    bad_value(item),
                    "must be an object for an array of list-type map",
                )
            ]
    if len(items) <= 1:
        return []
    if len(keys) == 1:
        (key,) = keys
        singles = [
            item[key] if isinstance(item, dict) and key in item else _UNSPECIFIED for item in items
        ]
        return [
            duplicate(
                path.index(i),
                bad_value({} if singles[i] is _UNSPECIFIED else {key: singles[i]}),
            )
            for i in _second_appearances(singles)
        ]
    composite = [
        {k: item[k] for k in keys if k in item} if isinstance(item, dict) else {} for item in items
    ]
    return [
        duplicate(path.index(i), bad_value(composite[i])) for i in _second_appearances(composite)
    ]


def _walk(value: Any, schema: Schema | None, path: FieldPath) -> list[FieldError]:
    if schema is None or not facts(schema).list_types:
        return []
    errors: list[FieldError] = []
    if isinstance(value, dict):
        extra = additional_schema(schema)
        props = properties(schema)
        if extra is not None:
            for key, item in value.items():
                errors.extend(_walk(item, extra, path.key(key)))
        for key, item in value.items():
            sub = as_schema(props.get(key))
            if sub is not None:
                errors.extend(_walk(item, sub, path.child(key)))
    elif isinstance(value, list):
        kind = list_type(schema)
        if kind == "set":
            errors.extend(
                duplicate(path.index(i), bad_value(value[i])) for i in _second_appearances(value)
            )
        elif kind == "map":
            errors.extend(_map_list_errors(value, list_map_keys(schema), path))
        items = items_schema(schema)
        for i, item in enumerate(value):
            errors.extend(_walk(item, items, path.index(i)))
    return errors


def validate_list_types(value: Any, schema: Schema, path: FieldPath) -> list[FieldError]:
    """Duplicate items of set and map lists anywhere in ``value``."""
    return _walk(value, schema, path)
