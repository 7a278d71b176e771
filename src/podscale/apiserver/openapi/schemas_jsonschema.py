"""OpenAPI schemas of ``JSONSchemaProps``, the schema language of a CRD's ``openAPIV3Schema``.

``JSONSchemaProps`` is recursive (its properties, items, allOf and the like are schemas
again). As upstream publishes them, the values a schema may hold verbatim (``default``,
``example``, ``enum`` entries) are the free-form ``JSON`` type, and the either-or types
(``JSONSchemaPropsOrArray`` for ``items``, ``...OrBool`` for ``additionalProperties``,
``...OrStringArray`` for ``dependencies``) are described without a ``type``;
``ALTERNATIVES`` tells ``openapi.types`` / ``openapi.type_walk`` and ``openapi.fields`` what
each may hold so their walks still check what is nested inside. ``schemas_apiextensions``
(the CustomResourceDefinition kind) merges ``json_schema_types`` into its table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from podscale.apiserver.openapi.dsl import (
    Schema,
    array,
    atomic_array,
    boolean,
    integer,
    map_of,
    number,
    ref,
    string,
    struct,
)

__all__ = ["ALTERNATIVES", "PROPS", "Alternative", "apiextensions_v1", "json_schema_types"]


def apiextensions_v1(name: str) -> str:
    """The schema name of apiextensions.k8s.io/v1 type ``name``."""
    return f"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.{name}"


PROPS: Final = apiextensions_v1("JSONSchemaProps")


@dataclass(frozen=True)
class Alternative:
    """What an either-or type may hold besides a JSONSchemaProps object (which it always may):
    a list of ``array_of`` (a schema name, or "string"), and/or a boolean."""

    array_of: str | None = None
    boolean: bool = False


ALTERNATIVES: Final = {
    apiextensions_v1("JSONSchemaPropsOrArray"): Alternative(array_of=PROPS),
    apiextensions_v1("JSONSchemaPropsOrBool"): Alternative(boolean=True),
    apiextensions_v1("JSONSchemaPropsOrStringArray"): Alternative(array_of="string"),
}


def _props(description: str) -> Schema:
    return ref(PROPS, description)


def _int64(description: str) -> Schema:
    return integer(description, fmt="int64")


def _json(description: str) -> Schema:
    return ref(apiextensions_v1("JSON"), description)


def _json_schema_props() -> Schema:
    props_map = map_of(_props(""), "")
    return struct(
        "A JSON-Schema following Specification Draft 4 (http://json-schema.org/).",
        {
            "id": string(),
            "$schema": string(),
            "$ref": string(),
            "description": string(),
            "type": string(),
            "format": string("The format of a string (int32, date-time, byte, ...)."),
            "title": string(),
            "default": _json(
                "The value a missing field gets; defaulting needs a structural schema."
            ),
            "maximum": number(),
            "exclusiveMaximum": boolean(),
            "minimum": number(),
            "exclusiveMinimum": boolean(),
            "maxLength": _int64(""),
            "minLength": _int64(""),
            "pattern": string(),
            "maxItems": _int64(""),
            "minItems": _int64(""),
            "uniqueItems": boolean(),
            "multipleOf": number(),
            "enum": atomic_array(_json("")),
            "maxProperties": _int64(""),
            "minProperties": _int64(""),
            "required": atomic_array(string()),
            "items": ref(apiextensions_v1("JSONSchemaPropsOrArray")),
            "allOf": atomic_array(_props("")),
            "oneOf": atomic_array(_props("")),
            "anyOf": atomic_array(_props("")),
            "not": _props(""),
            "properties": props_map,
            "additionalProperties": ref(apiextensions_v1("JSONSchemaPropsOrBool")),
            "patternProperties": map_of(_props("")),
            "dependencies": map_of(ref(apiextensions_v1("JSONSchemaPropsOrStringArray"))),
            "additionalItems": ref(apiextensions_v1("JSONSchemaPropsOrBool")),
            "definitions": map_of(_props("")),
            "externalDocs": ref(apiextensions_v1("ExternalDocumentation")),
            "example": _json(""),
            "nullable": boolean(),
            "x-kubernetes-preserve-unknown-fields": boolean(
                "Keep fields the schema does not specify instead of pruning them."
            ),
            "x-kubernetes-embedded-resource": boolean(
                "The value is a Kubernetes object with apiVersion, kind and metadata."
            ),
            "x-kubernetes-int-or-string": boolean("The value may be an integer or a string."),
            "x-kubernetes-list-map-keys": atomic_array(
                string(), "The keys identifying an item of a list of type map."
            ),
            "x-kubernetes-list-type": string("How a list merges: atomic, set or map."),
            "x-kubernetes-map-type": string("How a map merges: granular or atomic."),
            "x-kubernetes-validations": array(
                ref(apiextensions_v1("ValidationRule")),
                "CEL rules the value must satisfy.",
                list_type="map",
                map_keys=("rule",),
                merge_key="rule",
                strategy="merge",
            ),
        },
    )


def _either_or(description: str) -> Schema:
    # Published without a type, as upstream does: each holds more than one JSON shape.
    return {"description": description}


def json_schema_types() -> dict[str, Schema]:
    """Schema name -> schema for JSONSchemaProps and the types it is made of."""
    return {
        PROPS: _json_schema_props(),
        apiextensions_v1("JSON"): _either_or("Any JSON value."),
        apiextensions_v1("JSONSchemaPropsOrArray"): _either_or(
            "A JSONSchemaProps or a list of them."
        ),
        apiextensions_v1("JSONSchemaPropsOrBool"): _either_or(
            "A JSONSchemaProps or a boolean (false: no additional properties allowed)."
        ),
        apiextensions_v1("JSONSchemaPropsOrStringArray"): _either_or(
            "A JSONSchemaProps or a list of property names."
        ),
        apiextensions_v1("ExternalDocumentation"): struct(
            "A pointer to more documentation.", {"description": string(), "url": string()}
        ),
        apiextensions_v1("ValidationRule"): struct(
            "A CEL expression the value must satisfy.",
            {
                "rule": string("The CEL expression; `self` is the value."),
                "message": string("Shown when the rule is false."),
                "messageExpression": string("A CEL expression producing the message."),
                "reason": string(
                    "The reason of the error.",
                    enum=(
                        "FieldValueDuplicate",
                        "FieldValueForbidden",
                        "FieldValueInvalid",
                        "FieldValueRequired",
                    ),
                ),
                "fieldPath": string("Where the error is reported, relative to the value."),
                "optionalOldSelf": boolean("Evaluate transition rules even without an old value."),
            },
            required=("rule",),
        ),
    }
