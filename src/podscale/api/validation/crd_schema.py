"""A CRD's ``openAPIV3Schema``: what apiextensions-apiserver accepts in the schema language.

``validate_crd_schema`` checks one ``CustomResourceValidation`` (``{openAPIV3Schema: ...}``)
at the path it lives under (``spec.validation`` when every version shares it, else
``spec.versions[i].schema``; ``crd_versions`` decides): the root restrictions when the status
subresource is on, the structural rules (``crd_structural``), then the walk over every nested
schema: unsupported JSON-Schema keywords, ``uniqueItems``, ``properties`` with
``additionalProperties``, defaults where metadata lives, the ``x-kubernetes-*`` extensions
(list and map types, list-map keys) and the shape of ``x-kubernetes-validations`` rules,
the last three in ``crd_extensions``.
Pure; values of the wrong JSON type never get here (``openapi.types`` refuses them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from podscale.api.cel import check_rules
from podscale.api.field_errors import (
    FieldError,
    FieldPath,
    forbidden,
    invalid,
    not_supported,
)
from podscale.api.validation.crd_extensions import (
    extension_errors,
    list_key_errors,
    rule_shape_errors,
)
from podscale.api.validation.crd_schema_nodes import as_list, as_schema
from podscale.api.validation.crd_structural import validate_structural

__all__ = ["validate_crd_schema"]

JSON = Mapping[str, Any]

_OPENAPI_TYPES: Final = ("array", "boolean", "integer", "number", "object", "string")
_META_FIELDS: Final = frozenset({"metadata", "kind", "apiVersion"})
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
    if not errors:
        # Upstream compiles the x-kubernetes-validations rules only of an otherwise valid
        # schema; a rule's shape errors came from ``rule_shape_errors`` above.
        errors.extend(check_rules(dict(schema), root))
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


def _properties(schema: JSON) -> JSON:
    props = schema.get("properties")
    return props if isinstance(props, Mapping) else {}


def _walk(schema: JSON, path: FieldPath, ctx: _Context, *, is_root: bool) -> list[FieldError]:
    errors = _keyword_errors(schema, path, ctx)
    props = {k: v for k, v in _properties(schema).items() if isinstance(v, Mapping)}
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
        for index, nested in enumerate(as_list(schema.get(junctor))):
            if isinstance(nested, Mapping):
                errors.extend(_walk(nested, path.child(junctor).index(index), ctx, is_root=False))
    items = schema.get("items")
    if isinstance(items, Mapping):
        errors.extend(_walk(items, path.child("items"), ctx, is_root=False))
    elif isinstance(items, list):
        for index, nested in enumerate(items):
            if isinstance(nested, Mapping):
                errors.extend(_walk(nested, path.child("items").index(index), ctx, is_root=False))
    errors.extend(extension_errors(schema, path))
    errors.extend(list_key_errors(schema, path))
    errors.extend(rule_shape_errors(schema, path))
    return errors
