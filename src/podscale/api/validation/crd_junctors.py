"""The value validations of a structural schema: ``allOf``, ``anyOf``, ``oneOf`` and ``not``.

Upstream's ``validateValueValidation`` and ``validateNestedValueValidation`` (with the
``pattern`` check) as ``value_validation``: under a junctor a schema may only restrict
values, never introduce types, defaults, descriptions or extensions, nor mention
``metadata``; the int-or-string ``anyOf`` (directly or as the first ``allOf``) is the one
exception. ``completeness`` is upstream's ``validateStructuralCompleteness``: every field a
value validation mentions is also specified structurally. ``crd_structural`` runs both from
``validate_structural``; the node reads and ``Level`` are ``crd_schema_nodes``'. Pure.
"""

from __future__ import annotations

import re
from typing import Any, Final

from podscale.api.field_errors import FieldError, FieldPath, forbidden, invalid, required
from podscale.api.validation.crd_schema_nodes import (
    JSON,
    Level,
    as_schema,
    is_set,
    properties_of,
    schemas_in,
)

__all__ = ["completeness", "value_validation"]

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


def _is_int_or_string_any_of(value: Any) -> bool:
    return isinstance(value, list) and value == _INT_OR_STRING_ANY_OF


def value_validation(
    schema: JSON, level: Level, path: FieldPath, *, top: bool, skip_any_of: bool = False
) -> list[FieldError]:
    """The junctors of one schema: ``anyOf``, ``allOf``, ``oneOf``, ``not`` and ``pattern``.

    ``top`` is the structural schema itself, whose int-or-string ``anyOf`` (directly or as
    the first ``allOf``) is the one allowed type-carrying value validation."""
    errors: list[FieldError] = []
    all_of = schemas_in(schema.get("allOf"))
    skip_first_all_of = top and bool(all_of) and _is_int_or_string_any_of(all_of[0].get("anyOf"))
    if not (skip_any_of or (top and _is_int_or_string_any_of(schema.get("anyOf")))):
        for index, nested in enumerate(schemas_in(schema.get("anyOf"))):
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
    for index, nested in enumerate(schemas_in(schema.get("oneOf"))):
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
    errors = value_validation(schema, level, path, top=False, skip_any_of=skip_any_of)
    items = as_schema(schema.get("items"))
    if items is not None:
        errors.extend(_nested(items, level, path.child("items")))
    props = properties_of(schema)
    for key, child in sorted(props.items()):
        errors.extend(_nested(child, Level.FIELD, path.child("properties").key(key)))
    for key, detail in _FORBIDDEN_IN_VALUE_VALIDATION:
        if is_set(schema, key) or (key == "additionalProperties" and key in schema):
            errors.append(forbidden(path.child(key), detail))
    if "metadata" in props:
        errors.append(
            forbidden(
                path.child("properties").key("metadata"),
                "must not be specified in a nested context",
            )
        )
    return errors


def completeness(schema: JSON, path: FieldPath) -> list[FieldError]:
    """Every field a value validation mentions is also specified structurally."""
    errors: list[FieldError] = []
    items = as_schema(schema.get("items"))
    if items is not None:
        errors.extend(completeness(items, path.child("items")))
    for key, child in sorted(properties_of(schema).items()):
        errors.extend(completeness(child, path.child("properties").key(key)))
    return errors + _junctors_complete(schema, schema, path, path)


def _junctors_complete(
    value: JSON, structural: JSON | None, s_path: FieldPath, v_path: FieldPath
) -> list[FieldError]:
    errors: list[FieldError] = []
    negated = as_schema(value.get("not"))
    if negated is not None:
        errors.extend(_nested_complete(negated, structural, s_path, v_path.child("not")))
    for junctor in ("allOf", "anyOf", "oneOf"):
        for index, nested in enumerate(schemas_in(value.get(junctor))):
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
    specified = properties_of(structural)
    for key, child in sorted(properties_of(value).items()):
        s_child = s_path.child("properties").key(key)
        v_child = v_path.child("properties").key(key)
        if key not in specified:
            errors.append(required(s_child, f"because it is defined in {v_child}"))
        else:
            errors.extend(_nested_complete(child, specified[key], s_child, v_child))
    return errors
