"""Apply a structural schema's ``default`` values to a custom resource, in place.

``apply_defaults(obj, schema)`` does what kube-apiserver does to a decoded custom
resource (apiextensions-apiserver ``pkg/apiserver/schema/defaulting``):

1. ``drop_non_nullable_nulls``: a ``null`` whose schema is neither ``nullable`` nor
   defaulted is removed (its key dropped), so it reads as absent;
2. ``default``: a missing property with a ``default`` gets a deep copy of it, and so does
   a ``null`` that is not ``nullable`` (properties, ``additionalProperties`` values and list
   items alike); defaulted values are then defaulted inside in turn.

Fields of unknown keys (no schema) are left alone. Both steps are idempotent. The
``pipeline`` runs this after ``pruning`` and before ``validation``, and again on reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podscale.api.schema.facts import facts
from podscale.api.schema.nodes import (
    Schema,
    additional_schema,
    as_schema,
    is_nullable,
    items_schema,
    properties,
)
from podscale.api.schema.values import copy_json

__all__ = ["apply_defaults", "default", "drop_non_nullable_nulls"]


def _field_schema(schema: Schema | None, key: str) -> Schema | None:
    if schema is None:
        return None
    sub = as_schema(properties(schema).get(key))
    return sub if sub is not None else additional_schema(schema)


def _non_nullable_null(value: Any, schema: Schema | None) -> bool:
    return value is None and schema is not None and not is_nullable(schema)


def drop_non_nullable_nulls(value: Any, schema: Schema | None) -> None:
    """Remove nulls that are neither nullable nor defaulted (upstream's
    ``PruneNonNullableNullsWithoutDefaults``); defaulted ones wait for ``default``."""
    if schema is None:
        return  # nothing below a node without a schema has one: no null to drop there
    # Only nulls and containers can hold something to drop: other values are passed over
    # without a call (this walk runs on every read of a custom resource).
    if isinstance(value, dict):
        for key in list(value):
            item = value[key]
            if item is None:
                sub = _field_schema(schema, key)
                if sub is not None and not is_nullable(sub) and "default" not in sub:
                    del value[key]
            elif isinstance(item, dict | list):
                drop_non_nullable_nulls(item, _field_schema(schema, key))
    elif isinstance(value, list):
        items = items_schema(schema)
        for item in value:
            if isinstance(item, dict | list):
                drop_non_nullable_nulls(item, items)


def default(value: Any, schema: Schema | None) -> None:
    """Fill in defaults below ``value`` (upstream's ``defaulting.Default``)."""
    if schema is None or not facts(schema).defaults:
        return
    if isinstance(value, dict):
        props = properties(schema)
        for key, raw in props.items():
            sub = as_schema(raw)
            if sub is None or "default" not in sub:
                continue
            if key not in value or _non_nullable_null(value[key], sub):
                value[key] = copy_json(sub["default"])
        extra = additional_schema(schema)
        for key in list(value):
            sub = as_schema(props.get(key))
            if sub is not None:
                default(value[key], sub)
            elif extra is not None:
                if _non_nullable_null(value[key], extra) and "default" in extra:
                    value[key] = copy_json(extra["default"])
                default(value[key], extra)
    elif isinstance(value, list):
        items = items_schema(schema)
        if items is None:
            return
        for i, item in enumerate(value):
            if _non_nullable_null(item, items) and "default" in items:
                value[i] = copy_json(items["default"])
            default(value[i], items)


def apply_defaults(obj: Any, schema: Mapping[str, Any]) -> None:
    """Drop non-nullable nulls, then apply defaults; both in place."""
    drop_non_nullable_nulls(obj, schema)
    default(obj, schema)
