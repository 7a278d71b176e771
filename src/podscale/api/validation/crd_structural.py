"""Structural-schema rules for a CRD's ``openAPIV3Schema``, as apiextensions-apiserver has them.

A structural schema says what every field is (``type`` everywhere, except under
``x-kubernetes-int-or-string`` or ``x-kubernetes-preserve-unknown-fields``) outside of the
value validations (``allOf``/``anyOf``/``oneOf``/``not``); those may only restrict values,
never introduce types, defaults, descriptions or extensions, and every field they mention
must also be specified structurally. At the root (and in embedded resources) ``metadata``
may only constrain ``name`` and ``generateName``. ``crd_schema`` calls ``validate_structural``
for every schema of a CRD; like upstream, errors come back sorted by their text.
Pure functions over the schema's JSON; values of the wrong shape are skipped (the type check
of ``podscale.apiserver.openapi.types`` refuses them before validation runs).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, required

__all__ = ["as_list", "as_schema", "validate_structural"]

JSON = Mapping[str, Any]

# The one anyOf an int-or-string field may carry besides value validations.
_INT_OR_STRING_ANY_OF: Final = [{"type": "integer"}, {"type": "string"}]
# Generic fields and extensions a value validation must leave alone: (key, detail, "set" test).
_FORBIDDEN_IN_VALUE_VALIDATION: Final = (
    ("type", "must be empty to be structural"),
    ("additionalProperties", "must be undefined to be structural"),
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)
# What a root metadata schema may hold: its type, a default, and name/generateName properties.
_METADATA_ALLOWED: Final = frozenset({"type", "default", "properties"})


class Level(enum.Enum):
    ROOT = "must not be empty at the root"
    ITEM = "must not be empty for specified array items"
    FIELD = "must not be empty for specified object fields"


def as_schema(value: Any) -> JSON | None:
    """``value`` when it is a schema object, else None (absent, null, boolean, list)."""
    return value if isinstance(value, Mapping) else None


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list, else empty (absent, null or another JSON type)."""
    return value if isinstance(value, list) else []


def _properties(schema: JSON) -> dict[str, JSON]:
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return {}
    return {key: value for key, value in props.items() if isinstance(value, Mapping)}


def _schemas(value: Any) -> list[JSON]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _set(schema: JSON, key: str) -> bool:
    """Whether a field is set as Go would see it: not null, false, empty string or empty list."""
    value = schema.get(key)
    return value is not None and value is not False and value != "" and value != []


def validate_structural(schema: JSON, path: FieldPath) -> list[FieldError]:
    """Every structural-schema violation of ``schema`` (a CRD's root schema), sorted."""
    errors = _invariants(schema, Level.ROOT, path) + _completeness(schema, path)
    return sorted(errors, key=str)


def _invariants(schema: JSON, level: Level, path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = schema.get("type") or ""
    items = as_schema(schema.get("items"))
    if kind == "array" and schema.get("items") is None:
        errors.append(required(path.child("items"), "must be specified"))
    if items is not None:
        errors.extend(_invariants(items, Level.ITEM, path.child("items")))
    for key, child in sorted(_properties(schema).items()):
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
    errors.extend(_value_validation(schema, level, path, top=True))
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
    if level is Level.ROOT and "metadata" in _properties(schema):
        errors.extend(_root_metadata(_properties(schema)["metadata"], path))
    if embedded and not preserve and not _properties(schema):
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
    props = _properties(schema)
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
    names = set(_properties(metadata))
    restricted = {key for key in metadata if _set(metadata, key)} - _METADATA_ALLOWED
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


def _is_int_or_string_any_of(value: Any) -> bool:
    return isinstance(value, list) and value == _INT_OR_STRING_ANY_OF


def _value_validation(
    schema: JSON, level: Level, path: FieldPath, *, top: bool, skip_any_of: bool = False
) -> list[FieldError]:
    """The junctors of one schema: ``anyOf``, ``allOf``, ``oneOf``, ``not`` and ``pattern``.

    ``top`` is the structural schema itself, whose int-or-string ``anyOf`` (directly or as
    the first ``allOf``) is the one allowed type-carrying value validation."""
    errors: list[FieldError] = []
    all_of = _schemas(schema.get("allOf"))
    skip_first_all_of = top and bool(all_of) and _is_int_or_string_any_of(all_of[0].get("anyOf"))
    if not (skip_any_of or (top and _is_int_or_string_any_of(schema.get("anyOf")))):
        for index, nested in enumerate(_schemas(schema.get("anyOf"))):
            errors.extend(_nested(nested, level, path.child("anyOf").index(index)))
    for index, nested in enumerate(all_of):
        errors.extend(
            _nested(
                nested,
                level,
                path.child("allOf").index(index),
                skip_any_of=skip_first_all_of and index == 0,
            )
        )
    for index, nested in enumerate(_schemas(schema.get("oneOf"))):
        errors.extend(_nested(nested, level, path.child("oneOf").index(index)))
    negated = as_schema(schema.get("not"))
    if negated is not None:
        errors.extend(_nested(negated, level, path.child("not")))
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern:
        try:
            re.compile(pattern)
        except re.error as err:
            # Upstream compiles with Go's RE2; the reason wording here is Python's.
            errors.append(
                invalid(
                    path.child("pattern"),
                    pattern,
                    f"must be a valid regular expression, but isn't: {err}",
                )
            )
    return errors


def _nested(
    schema: JSON, level: Level, path: FieldPath, *, skip_any_of: bool = False
) -> list[FieldError]:
    """A schema under a junctor: value validation only."""
    errors = _value_validation(schema, level, path, top=False, skip_any_of=skip_any_of)
    items = as_schema(schema.get("items"))
    if items is not None:
        errors.extend(_nested(items, level, path.child("items")))
    props = _properties(schema)
    for key, child in sorted(props.items()):
        errors.extend(_nested(child, Level.FIELD, path.child("properties").key(key)))
    for key, detail in _FORBIDDEN_IN_VALUE_VALIDATION:
        if _set(schema, key) or (key == "additionalProperties" and key in schema):
            errors.append(forbidden(path.child(key), detail))
    if "metadata" in props:
        errors.append(
            forbidden(
                path.child("properties").key("metadata"),
                "must not be specified in a nested context",
            )
        )
    return errors


def _completeness(schema: JSON, path: FieldPath) -> list[FieldError]:
    """Every field a value validation mentions is also specified structurally."""
    errors: list[FieldError] = []
    items = as_schema(schema.get("items"))
    if items is not None:
        errors.extend(_completeness(items, path.child("items")))
    for key, child in sorted(_properties(schema).items()):
        errors.extend(_completeness(child, path.child("properties").key(key)))
    return errors + _junctors_complete(schema, schema, path, path)


def _junctors_complete(
    value: JSON, structural: JSON | None, s_path: FieldPath, v_path: FieldPath
) -> list[FieldError]:
    errors: list[FieldError] = []
    negated = as_schema(value.get("not"))
    if negated is not None:
        errors.extend(_nested_complete(negated, structural, s_path, v_path.child("not")))
    for junctor in ("allOf", "anyOf", "oneOf"):
        for index, nested in enumerate(_schemas(value.get(junctor))):
            errors.extend(
                _nested_complete(nested, structural, s_path, v_path.child(junctor).index(index))
            )
    return errors


def _nested_complete(
    value: JSON, structural: JSON | None, s_path: FieldPath, v_path: FieldPath
) -> list[FieldError]:
    if structural is None:
        return [required(s_path, f"because it is defined in {v_path}")]
    errors = _junctors_complete(value, structural, s_path, v_path)
    items = as_schema(value.get("items"))
    if items is not None:
        errors.extend(
            _nested_complete(
                items,
                as_schema(structural.get("items")),
                s_path.child("items"),
                v_path.child("items"),
            )
        )
    specified = _properties(structural)
    for key, child in sorted(_properties(value).items()):
        s_child = s_path.child("properties").key(key)
        v_child = v_path.child("properties").key(key)
        if key not in specified:
            errors.append(required(s_child, f"because it is defined in {v_child}"))
        else:
            errors.extend(_nested_complete(child, specified[key], s_child, v_child))
    return errors
