"""Structural-schema rules for a CRD's ``openAPIV3Schema``, as apiextensions-apiserver has them.

A structural schema says what every field is (``type`` everywhere, except under
``x-kubernetes-int-or-string`` or ``x-kubernetes-preserve-unknown-fields``) outside of the
value validations (``allOf``/``anyOf``/``oneOf``/``not``); those may only restrict values,
never introduce types, defaults, descriptions or extensions, and every field they mention
must also be specified structurally. At the root (and in embedded resources) ``metadata``
may only constrain ``name`` and ``generateName``. ``crd_schema`` calls ``validate_structural``
for every schema of a CRD; like upstream, errors come back sorted by their text. This
module has the invariants of the structural schema itself; the rules of the value
validations and their completeness are ``crd_junctors``', the lenient node reads and
``Level`` ``crd_schema_nodes``'. Pure functions over the schema's JSON; values of the wrong
shape are skipped (the type check of ``podscale.apiserver.openapi.types`` refuses them
before validation runs).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, required
from podscale.api.validation.crd_junctors import completeness, value_validation
from podscale.api.validation.crd_schema_nodes import (
    JSON,
    Level,
    as_schema,
    is_set,
    properties_of,
)

__all__ = ["validate_structural"]

# What a root metadata schema may hold: its type, a default, and name/generateName properties.
_METADATA_ALLOWED: Final = frozenset({"type", "default", "properties"})


def validate_structural(schema: JSON, path: FieldPath) -> list[FieldError]:
    """Every structural-schema violation of ``schema`` (a CRD's root schema), sorted."""
    errors = _invariants(schema, Level.ROOT, path) + completeness(schema, path)
    return sorted(errors, key=str)


def _invariants(schema: JSON, level: Level, path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = schema.get("type") or ""
    items = as_schema(schema.get("items"))
    if kind == "array" and schema.get("items") is None:
        errors.append(required(path.child("items"), "must be specified"))
    if items is not None:
        errors.extend(_invariants(items, Level.ITEM, path.child("items")))
    for key, child in sorted(properties_of(schema).items()):
        errors.extend(_invariants(child, Level.FIELD, path.child("properties").key(key)))
    additional = schema.get("additionalProperties")
    if additional is not None:
        if level is Level.ROOT:
            errors.append(
                forbidden(path.child("additionalProperties"), "must not be used at the root")
            )
        if isinstance(additional, Mapping):
            errors.extend(_invariants(additional, Level.FIELD, path.child("additionalProperties")))
    errors.extend(_extension_conflicts(schema, path))
    errors.extend(value_validation(schema, level, path, top=True))
    embedded = schema.get("x-kubernetes-embedded-resource") is True
    int_or_string = schema.get("x-kubernetes-int-or-string") is True
    preserve = schema.get("x-kubernetes-preserve-unknown-fields") is True
    if embedded and kind != "object":
        detail = "must be object if x-kubernetes-embedded-resource is true"
        errors.append(
            invalid(path.child("type"), kind, detail)
            if kind
            else required(path.child("type"), detail)
        )
    elif not kind and not int_or_string and not preserve:
        errors.append(required(path.child("type"), level.value))
    if embedded and additional is not None:
        errors.append(
            forbidden(
                path.child("additionalProperties"),
                "must not be used if x-kubernetes-embedded-resource is set",
            )
        )
    if level is Level.ROOT and kind and kind != "object":
        errors.append(invalid(path.child("type"), kind, "must be object at the root"))
    if level is Level.ROOT or embedded:
        errors.extend(_resource_meta_types(schema, path))
    if level is Level.ROOT and "metadata" in properties_of(schema):
        errors.extend(_root_metadata(properties_of(schema)["metadata"], path))
    if embedded and not preserve and not properties_of(schema):
        errors.append(
            required(
                path.child("properties"),
                "must not be empty if x-kubernetes-embedded-resource is true without "
                "x-kubernetes-preserve-unknown-fields",
            )
        )
    return errors


def _extension_conflicts(schema: JSON, path: FieldPath) -> list[FieldError]:
    if schema.get("x-kubernetes-int-or-string") is not True:
        return []
    errors: list[FieldError] = []
    for key in ("x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource"):
        if schema.get(key) is True:
            errors.append(
                invalid(
                    path.child(key), True, "must be false if x-kubernetes-int-or-string is true"
                )
            )
    return errors


def _resource_meta_types(schema: JSON, path: FieldPath) -> list[FieldError]:
    """apiVersion and kind of a resource are strings, its metadata an object."""
    errors: list[FieldError] = []
    props = properties_of(schema)
    for key, wanted in (("kind", "string"), ("apiVersion", "string"), ("metadata", "object")):
        if key in props and props[key].get("type", "") != wanted:
            errors.append(
                invalid(
                    path.child("properties").key(key).child("type"),
                    props[key].get("type", ""),
                    f"must be {wanted}",
                )
            )
    return errors


def _root_metadata(metadata: JSON, path: FieldPath) -> list[FieldError]:
    """ObjectMeta is the server's: a schema may only constrain name and generateName."""
    names = set(properties_of(metadata))
    restricted = {key for key in metadata if is_set(metadata, key)} - _METADATA_ALLOWED
    declared = metadata.get("properties")
    props_ok = declared is None or (
        isinstance(declared, Mapping)
        and bool(names)
        and names <= {"name", "generateName"}
        and len(names) == len(declared)
    )
    if restricted or not props_ok:
        return [
            forbidden(
                path.child("properties").key("metadata"),
                "must not specify anything other than name and generateName, but metadata is "
                "implicitly specified",
            )
        ]
    return []
