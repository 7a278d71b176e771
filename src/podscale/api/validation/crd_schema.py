"""A CRD's ``openAPIV3Schema``: what apiextensions-apiserver accepts in the schema language.

``validate_crd_schema`` checks one ``CustomResourceValidation`` (``{openAPIV3Schema: ...}``)
at the path it lives under (``spec.validation`` when every version shares it, else
``spec.versions[i].schema``; ``crd_versions`` decides): the root restrictions when the status
subresource is on, the structural rules (``crd_structural``), then the walk over every nested
schema: unsupported JSON-Schema keywords, ``uniqueItems``, ``properties`` with
``additionalProperties``, defaults where metadata lives, the ``x-kubernetes-*`` extensions
(list and map types, list-map keys) and the shape of ``x-kubernetes-validations`` rules.
Pure; values of the wrong JSON type never get here (``openapi.types`` refuses them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    forbidden,
    invalid,
    not_supported,
    required,
)
from podscale.api.validation.crd_structural import as_schema, validate_structural

__all__ = ["validate_crd_schema"]

JSON = Mapping[str, Any]

_OPENAPI_TYPES: Final = ("array", "boolean", "integer", "number", "object", "string")
_META_FIELDS: Final = frozenset({"metadata", "kind", "apiVersion"})
_RULE_REASONS: Final = (
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
)
# JSONSchemaProps in Go field order, with the Go names upstream's root check prints.
_GO_FIELDS: Final = (
    ("id", "ID"),
    ("$schema", "Schema"),
    ("$ref", "Ref"),
    ("description", "Description"),
    ("type", "Type"),
    ("nullable", "Nullable"),
    ("format", "Format"),
    ("title", "Title"),
    ("default", "Default"),
    ("maximum", "Maximum"),
    ("exclusiveMaximum", "ExclusiveMaximum"),
    ("minimum", "Minimum"),
    ("exclusiveMinimum", "ExclusiveMinimum"),
    ("maxLength", "MaxLength"),
    ("minLength", "MinLength"),
    ("pattern", "Pattern"),
    ("maxItems", "MaxItems"),
    ("minItems", "MinItems"),
    ("uniqueItems", "UniqueItems"),
    ("multipleOf", "MultipleOf"),
    ("enum", "Enum"),
    ("maxProperties", "MaxProperties"),
    ("minProperties", "MinProperties"),
    ("required", "Required"),
    ("items", "Items"),
    ("allOf", "AllOf"),
    ("oneOf", "OneOf"),
    ("anyOf", "AnyOf"),
    ("not", "Not"),
    ("properties", "Properties"),
    ("additionalProperties", "AdditionalProperties"),
    ("patternProperties", "PatternProperties"),
    ("dependencies", "Dependencies"),
    ("additionalItems", "AdditionalItems"),
    ("definitions", "Definitions"),
    ("externalDocs", "ExternalDocs"),
    ("example", "Example"),
    ("x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields"),
    ("x-kubernetes-embedded-resource", "XEmbeddedResource"),
    ("x-kubernetes-int-or-string", "XIntOrString"),
    ("x-kubernetes-list-map-keys", "XListMapKeys"),
    ("x-kubernetes-list-type", "XListType"),
    ("x-kubernetes-map-type", "XMapType"),
    ("x-kubernetes-validations", "XValidations"),
)
_ALLOWED_AT_STATUS_ROOT: Final = [
    "Description",
    "Type",
    "Format",
    "Title",
    "Maximum",
    "ExclusiveMaximum",
    "Minimum",
    "ExclusiveMinimum",
    "MaxLength",
    "MinLength",
    "Pattern",
    "MaxItems",
    "MinItems",
    "UniqueItems",
    "MultipleOf",
    "Required",
    "Items",
    "Properties",
    "ExternalDocs",
    "Example",
    "XPreserveUnknownFields",
    "XValidations",
]
# Go pointers (set even when false or empty) among the fields above; the rest are values.
_POINTERS: Final = frozenset({"$ref", "x-kubernetes-preserve-unknown-fields"})


@dataclass(frozen=True)
class _Context:
    """upstream's specStandardValidator state as the walk descends."""

    allow_defaults: bool = True
    defaults_reason: str = ""
    inside_resource_meta: bool = False


def _is_zero(key: str, value: Any) -> bool:
    if value is None:
        return True
    if key in _POINTERS:
        return False
    return value is False or value == ""


def validate_crd_schema(validation: Any, status_enabled: bool, path: FieldPath) -> list[FieldError]:
    """Errors of one ``{openAPIV3Schema: ...}`` under ``path``; None has none."""
    if not isinstance(validation, Mapping):
        return []
    schema = as_schema(validation.get("openAPIV3Schema"))
    if schema is None:
        return []
    root = path.child("openAPIV3Schema")
    errors: list[FieldError] = []
    if status_enabled:
        errors.extend(_status_root(schema, path))
    if schema.get("nullable") is True:
        errors.append(forbidden(root.child("nullable"), "nullable cannot be true at the root"))
    errors.extend(validate_structural(schema, root))
    # The defaults of a structural schema are checked next upstream (each must validate
    # against its schema and be pruned): podscale.api.schema's validate/prune do that.
    errors.extend(_walk(schema, root, _Context(), is_root=True))
    return errors


def _status_root(schema: JSON, path: FieldPath) -> list[FieldError]:
    """With /status, status is validated as ``properties.status``: the root may only hold
    what keeps meaning when cut that way (upstream stops at the first offending field)."""
    for key, go_name in _GO_FIELDS:
        if _is_zero(key, schema.get(key)):
            continue
        if go_name == "Type":
            if schema.get("type") != "object":
                return [
                    invalid(
                        path.child("openAPIV3Schema", "type"),
                        schema.get("type"),
                        'only "object" is allowed as the type at the root of the schema if the '
                        "status subresource is enabled",
                    )
                ]
            continue
        if go_name not in _ALLOWED_AT_STATUS_ROOT:
            allowed = " ".join(_ALLOWED_AT_STATUS_ROOT)
            return [
                invalid(
                    path.child("openAPIV3Schema"),
                    dict(schema),
                    f"only [{allowed}] fields are allowed at the root of the schema if the "
                    "status subresource is enabled",
                )
            ]
    return []


def _keyword_errors(schema: JSON, path: FieldPath, ctx: _Context) -> list[FieldError]:
    """JSON-Schema features the apiserver does not support, and misplaced defaults."""
    errors: list[FieldError] = []
    kind = schema.get("type") or ""
    if kind and kind not in _OPENAPI_TYPES:
        errors.append(not_supported(path.child("type"), kind, _OPENAPI_TYPES))
    if schema.get("default") is not None and not ctx.allow_defaults:
        detail = "must not be set" + (f" {ctx.defaults_reason}" if ctx.defaults_reason else "")
        errors.append(forbidden(path.child("default"), detail))
    if schema.get("id"):
        errors.append(forbidden(path.child("id"), "id is not supported"))
    if schema.get("additionalItems") is not None:
        errors.append(forbidden(path.child("additionalItems"), "additionalItems is not supported"))
    for key in ("patternProperties", "definitions"):
        if schema.get(key):
            errors.append(forbidden(path.child(key), f"{key} is not supported"))
    if schema.get("dependencies") is not None:
        errors.append(forbidden(path.child("dependencies"), "dependencies is not supported"))
    if schema.get("$ref") is not None:
        errors.append(forbidden(path.child("$ref"), "$ref is not supported"))
    if kind == "null":
        errors.append(
            forbidden(
                path.child("type"), "type cannot be set to null, use nullable as an alternative"
            )
        )
    if isinstance(schema.get("items"), list) and schema["items"]:
        errors.append(
            forbidden(path.child("items"), "items must be a schema object and not an array")
        )
    if ctx.inside_resource_meta and schema.get("x-kubernetes-embedded-resource") is True:
        errors.append(
            forbidden(
                path.child("x-kubernetes-embedded-resource"),
                "must not be used inside of resource meta",
            )
        )
    if schema.get("uniqueItems") is True:
        errors.append(
            forbidden(
                path.child("uniqueItems"),
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            )
        )
    return errors


def _walk(schema: JSON, path: FieldPath, ctx: _Context, *, is_root: bool) -> list[FieldError]:
    errors = _keyword_errors(schema, path, ctx)
    props = {k: v for k, v in (schema.get("properties") or {}).items() if isinstance(v, Mapping)}
    additional = schema.get("additionalProperties")
    if additional is not None:
        if props and (additional is False or isinstance(additional, Mapping)):
            errors.append(
                forbidden(
                    path.child("additionalProperties"),
                    "additionalProperties and properties are mutual exclusive",
                )
            )
        if isinstance(additional, Mapping):
            sub = ctx
            if ctx.inside_resource_meta:
                # Pruning cannot tell which map entries a default would apply to.
                sub = replace(
                    ctx,
                    allow_defaults=False,
                    defaults_reason="inside additionalProperties applying to object metadata",
                )
            errors.extend(_walk(additional, path.child("additionalProperties"), sub, is_root=False))
    embedded = schema.get("x-kubernetes-embedded-resource") is True
    for key, child in sorted(props.items()):
        sub = ctx
        if (is_root or embedded) and key in _META_FIELDS:
            sub = replace(sub, inside_resource_meta=True)
            if is_root:
                sub = replace(sub, allow_defaults=False, defaults_reason=f"in top-level {key}")
        errors.extend(_walk(child, path.child("properties").key(key), sub, is_root=False))
    negated = as_schema(schema.get("not"))
    if negated is not None:
        errors.extend(_walk(negated, path.child("not"), ctx, is_root=False))
    for junctor in ("allOf", "oneOf", "anyOf"):
        for index, nested in enumerate(schema.get(junctor) or []):
            if isinstance(nested, Mapping):
                errors.extend(_walk(nested, path.child(junctor).index(index), ctx, is_root=False))
    items = schema.get("items")
    if isinstance(items, Mapping):
        errors.extend(_walk(items, path.child("items"), ctx, is_root=False))
    elif isinstance(items, list):
        for index, nested in enumerate(items):
            if isinstance(nested, Mapping):
                errors.extend(_walk(nested, path.child("items").index(index), ctx, is_root=False))
    errors.extend(_extension_errors(schema, path))
    errors.extend(_list_key_errors(schema, path))
    errors.extend(_rule_shape_errors(schema, path))
    # CEL: the compile errors of this schema's x-kubernetes-validations rules belong here,
    # after the rule shapes and only when no schema error was found at or below this node
    # (upstream's order): podscale.api.cel.check_rules(schema, path).
    return errors


def _type_for(schema: JSON, path: FieldPath, wanted: str, extension: str) -> list[FieldError]:
    kind = schema.get("type") or ""
    if kind == wanted:
        return []
    detail = f"must be {wanted} if {extension} is specified"
    if not kind:
        return [required(path.child("type"), detail)]
    return [invalid(path.child("type"), kind, detail)]


def _extension_errors(schema: JSON, path: FieldPath) -> list[FieldError]:
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


def _list_key_errors(schema: JSON, path: FieldPath) -> list[FieldError]:
    """``x-kubernetes-list-map-keys``: only on map lists, naming scalar item properties that
    are required (or defaulted) and never null."""
    errors: list[FieldError] = []
    list_type = schema.get("x-kubernetes-list-type")
    keys = [key for key in schema.get("x-kubernetes-list-map-keys") or [] if isinstance(key, str)]
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
    props = items.get("properties") or {}
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
    required_keys = set(items.get("required") or [])
    props = items.get("properties") or {}
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


def _rule_shape_errors(schema: JSON, path: FieldPath) -> list[FieldError]:
    """The static shape of each ``x-kubernetes-validations`` entry (compiling is CEL's)."""
    errors: list[FieldError] = []
    for index, rule in enumerate(schema.get("x-kubernetes-validations") or []):
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
