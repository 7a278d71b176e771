"""A CRD version's published OpenAPI schema, derived from its structural ``openAPIV3Schema``.

As apiextensions-apiserver's OpenAPI builder does it: only the structural keywords survive
(``example``, ``externalDocs`` and the like are dropped), ``x-kubernetes-int-or-string`` is
unfolded into ``anyOf: [integer, string]``, the root gets ``apiVersion``, ``kind`` and an
ObjectMeta ``metadata`` (whatever the CRD says there) and so does every
``x-kubernetes-embedded-resource`` object, which also requires ``apiVersion`` and ``kind``.

For the Swagger 2.0 document (``v2=True``) the schema is further cut to what kubectl <= 1.28's
client-side validation copes with: no ``allOf``/``anyOf``/``oneOf``/``not``; a ``nullable``
field loses its type, properties and items (and is no longer required); a
``x-kubernetes-preserve-unknown-fields`` node loses its properties and items, and its type if
``object``; an array left without items loses its type; defaults are pruned. A root that
preserves unknown fields is published as a bare ``object`` there.

``customresources.openapi`` builds the documents from ``kind_schema``. References use
``openapi.dsl``'s v3 form; ``openapi.v2`` rewrites them for 2.0. Pure: inputs are not mutated.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from podscale.apiserver.openapi.dsl import Schema, kind_header

__all__ = ["kind_schema", "published_schema", "v2_schema"]

# The keywords of a structural schema (Generic, Extensions, ValueValidation) upstream republishes.
_KEPT: Final = frozenset(
    {
        "description",
        "type",
        "title",
        "default",
        "nullable",
        "format",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "multipleOf",
        "enum",
        "maxProperties",
        "minProperties",
        "required",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-list-type",
        "x-kubernetes-map-type",
        "x-kubernetes-validations",
    }
)
# Published only when true.
_FLAGS: Final = (
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
)
_JUNCTORS: Final = ("allOf", "anyOf", "oneOf")
_INT_OR_STRING: Final = [{"type": "integer"}, {"type": "string"}]


def published_schema(schema: Any) -> Schema:
    """The structural part of a schema node, int-or-string unfolded (a new value)."""
    if not isinstance(schema, dict):
        return {}
    out: Schema = {key: copy.deepcopy(schema[key]) for key in _KEPT if key in schema}
    for flag in _FLAGS:
        if schema.get(flag) is True:
            out[flag] = True
    properties = schema.get("properties")
    if isinstance(properties, dict):
        out["properties"] = {name: published_schema(sub) for name, sub in properties.items()}
    if isinstance(schema.get("items"), dict):
        out["items"] = published_schema(schema["items"])
    additional = schema.get("additionalProperties")
    if isinstance(additional, bool):
        out["additionalProperties"] = additional
    elif isinstance(additional, dict):
        out["additionalProperties"] = published_schema(additional)
    for junctor in _JUNCTORS:
        if isinstance(schema.get(junctor), list):
            out[junctor] = [published_schema(sub) for sub in schema[junctor]]
    if isinstance(schema.get("not"), dict):
        out["not"] = published_schema(schema["not"])
    if out.get("x-kubernetes-int-or-string"):
        _unfold_int_or_string(out)
    return out


def _unfold_int_or_string(out: Schema) -> None:
    """Spell out int-or-string as ``anyOf`` unless the schema already does (upstream's Unfold)."""
    any_of = out.get("anyOf")
    all_of = out.get("allOf")
    if any_of == _INT_OR_STRING:
        return
    if isinstance(all_of, list) and all_of and all_of[0].get("anyOf") == _INT_OR_STRING:
        return
    if any_of is None:
        out["anyOf"] = copy.deepcopy(_INT_OR_STRING)
    else:
        out["allOf"] = [{"anyOf": copy.deepcopy(_INT_OR_STRING)}, *(all_of or [])]


def v2_schema(schema: Schema) -> Schema:
    """``published_schema``'s output cut down for Swagger 2.0 (a new value)."""
    out = {key: value for key, value in schema.items() if key not in (*_JUNCTORS, "not")}
    out.pop("default", None)
    properties: dict[str, Schema] = out.get("properties") or {}
    required = out.get("required")
    if isinstance(required, list):
        nullable = {name for name, sub in properties.items() if sub.get("nullable") is True}
        kept = [name for name in required if name not in nullable]
        additional = out.get("additionalProperties")
        if isinstance(additional, dict) and additional.get("nullable") is True:
            kept = []
        if kept:
            out["required"] = kept
        else:
            out.pop("required")
    if out.pop("nullable", False) is True:
        out.pop("type", None)
        out.pop("items", None)
        out.pop("properties", None)
    if out.get("x-kubernetes-preserve-unknown-fields"):
        out.pop("items", None)
        out.pop("properties", None)
        if out.get("type") == "object":
            del out["type"]
    if out.get("type") == "array" and "items" not in out:
        del out["type"]
    if "properties" in out:
        out["properties"] = {name: v2_schema(sub) for name, sub in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = v2_schema(out["items"])
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = v2_schema(out["additionalProperties"])
    return out


def _add_embedded_properties(schema: Schema, *, v2: bool) -> None:
    """TypeMeta and ObjectMeta on every embedded resource below ``schema`` (in place)."""
    for sub in (schema.get("properties") or {}).values():
        _add_embedded_properties(sub, v2=v2)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _add_embedded_properties(schema[key], v2=v2)
    if v2 and schema.get("x-kubernetes-preserve-unknown-fields"):
        # kubectl's 2.0 validation would reject the unknown fields these properties imply.
        return
    if schema.get("x-kubernetes-embedded-resource"):
        schema.setdefault("properties", {}).update(kind_header())
        required = schema.setdefault("required", [])
        for name in ("kind", "apiVersion"):
            if name not in required:
                required.append(name)


def kind_schema(
    crd_schema: Any, gvk: tuple[str, str, str], *, v2: bool, preserve_unknown: bool = False
) -> Schema:
    """The published schema of a custom kind: ``crd_schema`` is the version's
    ``openAPIV3Schema`` (None when it has none), ``gvk`` (group, version, kind) its identity,
    ``preserve_unknown`` the CRD's ``spec.preserveUnknownFields``."""
    group, version, kind = gvk
    out: Schema
    if not isinstance(crd_schema, dict) or (
        v2 and (crd_schema.get("x-kubernetes-preserve-unknown-fields") is True or preserve_unknown)
    ):
        out = {"type": "object"}
    else:
        out = published_schema(crd_schema)
        if v2:
            out = v2_schema(out)
        out.setdefault("properties", {}).update(kind_header())
        _add_embedded_properties(out, v2=v2)
    out["x-kubernetes-group-version-kind"] = [{"group": group, "kind": kind, "version": version}]
    return out
