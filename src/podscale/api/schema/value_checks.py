"""The per-value checks of kube-openapi's schema validator, with kube-apiserver's texts.

``validation`` walks the value and calls these at each node. Each check gets the value,
the schema node, ``name`` (kube-openapi's path, which its messages quote, e.g.
``spec.replicas`` or ``spec.ports[1].name``) and ``field`` (the field path the error is
reported under) and returns upstream's errors as ``FieldError``:

- type: ``Invalid value: "string": spec.replicas in body must be of type integer: "string"``
- enum: ``Unsupported value: "x": supported values: "a", "b"`` (schema order, non-strings
  as JSON)
- string: ``Too long`` (maxLength), ``should be at least N chars long``, ``should match '…'``
- format: ``Invalid value: "x": spec.email in body must be of type email: "x"``
- number: ``should be less than or equal to N`` (and ``less than``, ``greater than…``,
  ``a multiple of``), the bound printed as Go prints it for the value's Go type
- array: ``should have at least N items``, ``Too many: 3: must have at most 2 items``,
  ``shouldn't contain duplicates``
- object: ``should have at least N properties``, ``Too many`` (maxProperties).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from podscale.api.field_errors import (
    ErrorType,
    FieldError,
    invalid,
    too_long,
    too_many,
)
from podscale.api.schema.formats import check_format, supported_format
from podscale.api.schema.gofmt import bad_value, go_float, go_json, go_quote
from podscale.api.schema.nodes import Schema, json_type
from podscale.api.schema.values import deep_equal, enum_matches, is_number

__all__ = [
    "check_array",
    "check_enum",
    "check_format_of",
    "check_number",
    "check_object_size",
    "check_string",
    "check_type",
]

_IN = "body"


def _type_error(field: str, name: str, expected: str, found: str) -> FieldError:
    detail = f"{name} in {_IN} must be of type {expected}: {go_quote(found)}"
    return FieldError(ErrorType.TYPE_INVALID, field, found, detail)


def check_type(
    value: Any, types: Sequence[str], fmt: str, name: str, field: str
) -> list[FieldError]:
    """kube-openapi's type validator (runs when the node has a type or a supported format)."""
    found = json_type(value)
    if value is None:
        return []  # nulls are judged by the caller, which knows about ``nullable``
    data_format = {"integer": "int64", "number": "float64"}.get(found, "")
    float_int = found == "number" and float(value).is_integer() and abs(value) < 2**53
    float_int = float_int and "integer" in types
    int_float = found == "integer" and "number" in types
    if (
        found not in ("string", "array")
        and fmt
        and not (found in types or data_format == fmt or float_int or int_float)
    ):
        return [_type_error(field, name, fmt, data_format)]
    if not ("number" in types or "integer" in types) and fmt and found in ("string", "array"):
        return []
    if not (found in types or float_int or int_float):
        return [_type_error(field, name, ",".join(types), found)]
    return []


def null_type_error(types: Sequence[str], name: str, field: str) -> FieldError:
    return _type_error(field, name, ",".join(types), "null")


def check_enum(value: Any, enum: Sequence[Any], field: str) -> list[FieldError]:
    if any(enum_matches(value, allowed) for allowed in enum):
        return []
    quoted = ", ".join(go_quote(v if isinstance(v, str) else go_json(v)) for v in enum)
    detail = f"supported values: {quoted}" if enum else ""
    return [FieldError(ErrorType.NOT_SUPPORTED, field, bad_value(value), detail)]


def _pattern_error(pattern: str, text: str) -> str | None:
    """None when ``text`` matches; otherwise what kube-openapi puts between the quotes."""
    try:
        compiled = re.compile(pattern, re.ASCII)
    except re.error as exc:
        return f"{pattern}, but pattern is invalid: error parsing regexp: {exc}"
    # Go's MatchString is an unanchored search.
    return None if compiled.search(text) else pattern


def check_string(value: str, schema: Schema, name: str, field: str) -> list[FieldError]:
    """maxLength, minLength, pattern: kube-openapi stops at the first failure."""
    length = len(value)  # runes, as utf8.RuneCount
    max_length = schema.get("maxLength")
    if is_number(max_length) and length > max_length:
        return [too_long(field, value, int(max_length))]
    min_length = schema.get("minLength")
    if is_number(min_length) and length < min_length:
        detail = f"{name} in {_IN} should be at least {int(min_length)} chars long"
        return [invalid(field, value, detail)]
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern:
        shown = _pattern_error(pattern, value)
        if shown is not None:
            return [invalid(field, value, f"{name} in {_IN} should match '{shown}'")]
    return []


def check_format_of(value: str, schema: Schema, name: str, field: str) -> list[FieldError]:
    declared = schema.get("format")
    registry = supported_format(declared)
    if not registry or check_format(registry, value):
        return []
    detail = f"{name} in {_IN} must be of type {declared}: {go_quote(value)}"
    return [FieldError(ErrorType.TYPE_INVALID, field, value, detail)]


def _bound(value: int | float, bound: float) -> str:
    # An int64 value is compared against int64(bound) and printed that way; a float64
    # value against the float64 bound.
    return str(int(bound)) if isinstance(value, int) else go_float(float(bound))


def _multiple_of(value: int | float, factor: float, name: str, field: str) -> list[FieldError]:
    if isinstance(value, int) and float(factor).is_integer() and factor >= 1:
        if value % int(factor) == 0:
            return []
        return [invalid(field, value, f"{name} in {_IN} should be a multiple of {int(factor)}")]
    ratio = (1 / factor) * value if factor < 1 else value / factor
    if float(ratio).is_integer():
        return []
    return [
        invalid(field, value, f"{name} in {_IN} should be a multiple of {go_float(float(factor))}")
    ]


def check_number(value: int | float, schema: Schema, name: str, field: str) -> list[FieldError]:
    errors: list[FieldError] = []
    factor = schema.get("multipleOf")
    if is_number(factor) and factor > 0:
        errors.extend(_multiple_of(value, factor, name, field))
    maximum = schema.get("maximum")
    if is_number(maximum):
        limit: float = int(maximum) if isinstance(value, int) else float(maximum)
        exclusive = schema.get("exclusiveMaximum") is True
        if value >= limit if exclusive else value > limit:
            words = "less than" if exclusive else "less than or equal to"
            errors.append(
                invalid(field, value, f"{name} in {_IN} should be {words} {_bound(value, maximum)}")
            )
    minimum = schema.get("minimum")
    if is_number(minimum):
        limit = int(minimum) if isinstance(value, int) else float(minimum)
        exclusive = schema.get("exclusiveMinimum") is True
        if value <= limit if exclusive else value < limit:
            words = "greater than" if exclusive else "greater than or equal to"
            errors.append(
                invalid(field, value, f"{name} in {_IN} should be {words} {_bound(value, minimum)}")
            )
    return errors


def check_array(value: list[Any], schema: Schema, name: str, field: str) -> list[FieldError]:
    errors: list[FieldError] = []
    size = len(value)
    min_items = schema.get("minItems")
    if is_number(min_items) and size < min_items:
        detail = f"{name} in {_IN} should have at least {int(min_items)} items"
        errors.append(invalid(field, size, detail))
    max_items = schema.get("maxItems")
    if is_number(max_items) and size > max_items:
        errors.append(too_many(field, size, int(max_items)))
    if schema.get("uniqueItems") is True:
        for i, item in enumerate(value):
            if any(deep_equal(item, earlier) for earlier in value[:i]):
                errors.append(invalid(field, "", f"{name} in {_IN} shouldn't contain duplicates"))
                break
    return errors


def check_object_size(
    value: dict[str, Any], schema: Schema, name: str, field: str
) -> list[FieldError]:
    """min/maxProperties; a failure here ends the object's validation, as upstream."""
    count = len(value)
    min_properties = schema.get("minProperties")
    if is_number(min_properties) and count < min_properties:
        detail = f"{name} in {_IN} should have at least {int(min_properties)} properties"
        return [invalid(field, count, detail)]
    max_properties = schema.get("maxProperties")
    if is_number(max_properties) and count > max_properties:
        return [too_many(field, count, int(max_properties))]
    return []
