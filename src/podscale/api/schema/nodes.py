"""Read one node of a structural OpenAPI v3 schema (a CRD's ``openAPIV3Schema`` JSON).

Every walker in this package (``validation``, ``listtype``, ``embedded``, ``pruning``,
``defaulting``) reads schema nodes through these helpers, so the meaning of the vendor
extensions lives in one place:

- ``x-kubernetes-int-or-string: true`` means the types ``integer`` and ``string``;
- ``additionalProperties`` is either a bool or a schema (``additional_schema`` and
  ``has_additional`` tell the two apart the way upstream's structural schema does);
- a missing node (``None``) is the empty schema.

Schemas are plain JSON dicts and are never modified.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "EMPTY",
    "Schema",
    "additional_schema",
    "allows_additional",
    "as_schema",
    "has_additional",
    "is_embedded",
    "is_nullable",
    "items_schema",
    "json_type",
    "list_map_keys",
    "list_type",
    "preserves_unknown",
    "properties",
    "schema_types",
    "sub_schemas",
]

Schema = Mapping[str, Any]
EMPTY: Final[Schema] = {}


def as_schema(node: Any) -> Schema | None:
    """A schema node, or None for anything that is not one (``true``, null, garbage)."""
    # Decoded schemas are dicts and absent nodes None: exact tests spare the ABC check on
    # the walkers' hot paths.
    if type(node) is dict:
        return node
    if node is None:
        return None
    return node if isinstance(node, Mapping) else None


def schema_types(schema: Schema) -> tuple[str, ...]:
    """The JSON types the node allows; empty when it does not constrain the type."""
    if schema.get("x-kubernetes-int-or-string") is True:
        return ("integer", "string")
    declared = schema.get("type")
    if isinstance(declared, str) and declared:
        return (declared,)
    return ()


def properties(schema: Schema) -> Mapping[str, Any]:
    found = schema.get("properties")
    return found if isinstance(found, Mapping) else EMPTY


def items_schema(schema: Schema) -> Schema | None:
    return as_schema(schema.get("items"))


def has_additional(schema: Schema) -> bool:
    """True when ``additionalProperties`` is set at all (a bool or a schema), as upstream's
    ``Structural.AdditionalProperties != nil``: pruning and defaulting then keep unknown keys."""
    found = schema.get("additionalProperties")
    return isinstance(found, (bool, Mapping))


def additional_schema(schema: Schema) -> Schema | None:
    return as_schema(schema.get("additionalProperties"))


def allows_additional(schema: Schema) -> bool:
    """False only for ``additionalProperties: false``."""
    return schema.get("additionalProperties") is not False


def preserves_unknown(schema: Schema | None) -> bool:
    return schema is not None and schema.get("x-kubernetes-preserve-unknown-fields") is True


def is_embedded(schema: Schema | None) -> bool:
    return schema is not None and schema.get("x-kubernetes-embedded-resource") is True


def is_nullable(schema: Schema) -> bool:
    return schema.get("nullable") is True


def list_type(schema: Schema) -> str:
    found = schema.get("x-kubernetes-list-type")
    return found if isinstance(found, str) else ""


def list_map_keys(schema: Schema) -> tuple[str, ...]:
    found = schema.get("x-kubernetes-list-map-keys")
    if not isinstance(found, list):
        return ()
    return tuple(k for k in found if isinstance(k, str))


def sub_schemas(schema: Schema, keyword: str) -> tuple[Schema, ...]:
    """The schemas of ``allOf``/``anyOf``/``oneOf`` (an empty tuple when absent)."""
    found = schema.get(keyword)
    if not isinstance(found, list):
        return ()
    return tuple(s for s in found if isinstance(s, Mapping))


def json_type(value: Any) -> str:
    """The JSON type name of a decoded value, as kube-openapi names it in its messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
