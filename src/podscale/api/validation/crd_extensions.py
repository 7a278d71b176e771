"""The ``x-kubernetes-*`` extensions and CEL rule shapes of one node of a CRD schema.

``crd_schema`` walks a CRD's ``openAPIV3Schema`` and calls these at every node: the list and
map types (``x-kubernetes-list-type`` on arrays only, set members atomic, map lists keyed by
required scalar properties that are never null), ``x-kubernetes-preserve-unknown-fields``
(true or unset) and the static shape of each ``x-kubernetes-validations`` entry (rule set,
message on one line, a supported reason, a field path on one line); compiling the rules is
``podscale.api.cel``'s job. Texts and paths are upstream's. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    forbidden,
    invalid,
    not_supported,
    required,
)
from podscale.api.validation.crd_schema_nodes import as_list, as_schema

__all__ = ["extension_errors", "list_key_errors", "rule_shape_errors"]

JSON = Mapping[str, Any]


def _dict(value: Any) -> JSON:
    return value if isinstance(value, Mapping) else {}


_RULE_REASONS: Final = (
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
)


def _type_for(schema: JSON, path: FieldPath, wanted: str, extension: str) -> list[FieldError]:
    kind = schema.get("type") or ""
    if kind == wanted:
        return []
    detail = f"must be {wanted} if {extension} is specified"
    if not kind:
        return [required(path.child("type"), detail)]
    return [invalid(path.child("type"), kind, detail)]


def extension_errors(schema: JSON, path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    if schema.get("x-kubernetes-preserve-unknown-fields") is False:
        errors.append(
            invalid(
                path.child("x-kubernetes-preserve-unknown-fields"),
                False,
                "must be true or undefined",
            )
        )
    map_type = schema.get("x-kubernetes-map-type")
    if map_type is not None:
        errors.extend(_type_for(schema, path, "object", "x-kubernetes-map-type"))
        if map_type not in ("atomic", "granular"):
            errors.append(
                not_supported(path.child("x-kubernetes-map-type"), map_type, ("atomic", "granular"))
            )
    list_type = schema.get("x-kubernetes-list-type")
    items = as_schema(schema.get("items"))
    if list_type is not None and schema.get("type") != "array":
        errors.extend(_type_for(schema, path, "array", "x-kubernetes-list-type"))
    elif list_type == "set" and items is not None:
        # Set members are compared whole: nested lists and maps must be atomic.
        detail = "must be atomic as item of a list with x-kubernetes-list-type=set"
        item_list_type = items.get("x-kubernetes-list-type")
        if items.get("type") == "array" and item_list_type not in (None, "atomic"):
            errors.append(
                invalid(path.child("items", "x-kubernetes-list-type"), item_list_type, detail)
            )
        elif items.get("type") == "object" and items.get("x-kubernetes-map-type") != "atomic":
            # Upstream reports the item's list type here (usually unset), not its map type.
            errors.append(
                invalid(path.child("items", "x-kubernetes-map-type"), item_list_type, detail)
            )
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errors.append(
            not_supported(path.child("x-kubernetes-list-type"), list_type, ("atomic", "set", "map"))
        )
    return errors


def list_key_errors(schema: JSON, path: FieldPath) -> list[FieldError]:
    """``x-kubernetes-list-map-keys``: only on map lists, naming scalar item properties that
    are required (or defaulted) and never null."""
    errors: list[FieldError] = []
    list_type = schema.get("x-kubernetes-list-type")
    keys = [
        key for key in as_list(schema.get("x-kubernetes-list-map-keys")) if isinstance(key, str)
    ]
    keys_path = path.child("x-kubernetes-list-map-keys")
    if keys and list_type is None:
        errors.append(
            required(
                path.child("x-kubernetes-list-type"),
                "must be map if x-kubernetes-list-map-keys is non-empty",
            )
        )
    elif keys and list_type != "map":
        errors.append(
            invalid(
                path.child("x-kubernetes-list-type"),
                list_type,
                "must be map if x-kubernetes-list-map-keys is non-empty",
            )
        )
    raw_items = schema.get("items")
    items = as_schema(raw_items)
    if list_type == "map":
        if not keys:
            errors.append(required(keys_path, "must not be empty if x-kubernetes-list-type is map"))
        if raw_items is None:
            errors.append(
                required(path.child("items"), "must have a schema if x-kubernetes-list-type is map")
            )
        elif items is None:
            errors.append(
                invalid(
                    path.child("items"),
                    raw_items,
                    "must only have a single schema if x-kubernetes-list-type is map",
                )
            )
        elif items.get("type") != "object":
            errors.append(
                invalid(
                    path.child("items", "type"),
                    items.get("type") or "",
                    "must be object if parent array's x-kubernetes-list-type is map",
                )
            )
        else:
            errors.extend(_map_keys_errors(items, keys, path))
    if items is not None and list_type in ("set", "map"):
        errors.extend(_keyed_item_errors(items, keys, list_type, path))
    return errors


def _map_keys_errors(items: JSON, keys: list[str], path: FieldPath) -> list[FieldError]:
    errors: list[FieldError] = []
    props = _dict(items.get("properties"))
    seen: set[str] = set()
    for key in keys:
        prop = props.get(key)
        if isinstance(prop, Mapping):
            if prop.get("type") in ("array", "object"):
                errors.append(
                    invalid(
                        path.child("items", "properties").key(key).child("type"),
                        items.get("type"),
                        "must be a scalar type if parent array's x-kubernetes-list-type is map",
                    )
                )
        else:
            errors.append(
                invalid(
                    path.child("x-kubernetes-list-map-keys"),
                    keys,
                    "entries must all be names of item properties",
                )
            )
        if key in seen:
            errors.append(
                invalid(
                    path.child("x-kubernetes-list-map-keys"),
                    keys,
                    "must not contain duplicate entries",
                )
            )
        seen.add(key)
    return errors


def _keyed_item_errors(
    items: JSON, keys: list[str], list_type: str, path: FieldPath
) -> list[FieldError]:
    errors: list[FieldError] = []
    if items.get("nullable") is True:
        errors.append(
            forbidden(
                path.child("items", "nullable"),
                f"cannot be nullable when x-kubernetes-list-type is {list_type}",
            )
        )
    if list_type != "map":
        return errors
    required_keys = {key for key in as_list(items.get("required")) if isinstance(key, str)}
    props = _dict(items.get("properties"))
    for key in keys:
        prop = props.get(key)
        if not isinstance(prop, Mapping):
            continue  # reported by _map_keys_errors
        prop_path = path.child("items", "properties").key(key)
        if key not in required_keys and prop.get("default") is None:
            errors.append(
                required(
                    prop_path.child("default"),
                    "this property is in x-kubernetes-list-map-keys, so it must have a default "
                    "or be a required property",
                )
            )
        if prop.get("nullable") is True:
            errors.append(
                forbidden(
                    prop_path.child("nullable"),
                    "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                )
            )
    return errors


def _has_newline(text: str) -> bool:
    return "\n" in text or "\r" in text


def rule_shape_errors(schema: JSON, path: FieldPath) -> list[FieldError]:
    """The static shape of each ``x-kubernetes-validations`` entry (compiling is CEL's)."""
    errors: list[FieldError] = []
    for index, rule in enumerate(as_list(schema.get("x-kubernetes-validations"))):
        if not isinstance(rule, Mapping):
            continue
        base = path.child("x-kubernetes-validations").index(index)
        expression = str(rule.get("rule") or "")
        message = str(rule.get("message") or "")
        if not expression.strip():
            errors.append(required(base.child("rule"), "rule is not specified"))
        elif message and not message.strip():
            errors.append(
                invalid(base.child("message"), message, "message must be non-empty if specified")
            )
        elif _has_newline(message.strip()):
            errors.append(
                invalid(base.child("message"), message, "message must not contain line breaks")
            )
        elif _has_newline(expression.strip()) and not message.strip():
            errors.append(
                required(
                    base.child("message"), "message must be specified if rule contains line breaks"
                )
            )
        message_expression = str(rule.get("messageExpression") or "")
        if message_expression and not message_expression.strip():
            errors.append(
                required(
                    base.child("messageExpression"),
                    "messageExpression must be non-empty if specified",
                )
            )
        reason = rule.get("reason")
        if reason is not None and reason not in _RULE_REASONS:
            errors.append(not_supported(base.child("reason"), reason, _RULE_REASONS))
        field_path = str(rule.get("fieldPath") or "")
        if field_path and not field_path.strip():
            errors.append(
                invalid(
                    base.child("fieldPath"), field_path, "fieldPath must be non-empty if specified"
                )
            )
        if _has_newline(field_path):
            errors.append(
                invalid(
                    base.child("fieldPath"), field_path, "fieldPath must not contain line breaks"
                )
            )
    return errors
