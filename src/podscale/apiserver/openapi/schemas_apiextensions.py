"""OpenAPI schemas of apiextensions.k8s.io/v1: CustomResourceDefinition and its parts.

The CRD kind, its spec (names, versions, conversion), status (conditions, acceptedNames,
storedVersions) and ``JSONSchemaProps``, the recursive schema language a CRD's
``openAPIV3Schema`` is written in. As upstream publishes them, the values a schema may hold
verbatim (``default``, ``example``, ``enum`` entries) are the free-form ``JSON`` type, and the
either-or types (``JSONSchemaPropsOrArray`` for ``items``, ``...OrBool`` for
``additionalProperties``, ``...OrStringArray`` for ``dependencies``) are described without a
``type``; ``ALTERNATIVES`` tells ``openapi.types`` and ``openapi.fields`` what each may hold so
their walks still check what is nested inside. ``openapi.schemas`` merges these into the table.
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
    kind_header,
    list_kind,
    map_of,
    merge_list,
    meta,
    number,
    ref,
    string,
    struct,
)

__all__ = ["ALTERNATIVES", "PROPS", "Alternative", "apiextensions_schemas", "apiextensions_v1"]

GROUP: Final = "apiextensions.k8s.io"


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


def _schema_types() -> dict[str, Schema]:
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


def _names() -> Schema:
    return struct(
        "The names a custom resource is served under.",
        {
            "plural": string("The resource name in URLs, lower case."),
            "singular": string("The singular name, lower case; defaults to the lowered kind."),
            "shortNames": atomic_array(string(), "Short aliases for the CLI."),
            "kind": string("The CamelCase kind of the objects."),
            "listKind": string("The kind of a list; defaults to <kind>List."),
            "categories": atomic_array(string(), "Groups the resource belongs to (e.g. all)."),
        },
        required=("plural", "kind"),
    )


def _version() -> Schema:
    return struct(
        "One version of a custom resource.",
        {
            "name": string("The version name, as in /apis/<group>/<version>."),
            "served": boolean("Whether the version is served by the REST API."),
            "storage": boolean("Whether objects are stored in this version; exactly one is."),
            "deprecated": boolean("Whether the version is deprecated."),
            "deprecationWarning": string(
                "The warning returned to clients of a deprecated version."
            ),
            "schema": ref(apiextensions_v1("CustomResourceValidation"), "The object schema."),
            "subresources": ref(apiextensions_v1("CustomResourceSubresources")),
            "additionalPrinterColumns": atomic_array(
                ref(apiextensions_v1("CustomResourceColumnDefinition")),
                "Extra table columns; none means an Age column.",
            ),
            "selectableFields": atomic_array(
                ref(apiextensions_v1("SelectableField")), "Fields usable in field selectors."
            ),
        },
        required=("name", "served", "storage"),
    )


def _spec_types() -> dict[str, Schema]:
    return {
        apiextensions_v1("CustomResourceDefinitionSpec"): struct(
            "How a custom resource is named, versioned and validated.",
            {
                "group": string("The API group, <group> in /apis/<group>/<version>."),
                "names": ref(apiextensions_v1("CustomResourceDefinitionNames")),
                "scope": string("Cluster or Namespaced."),
                "versions": atomic_array(
                    ref(apiextensions_v1("CustomResourceDefinitionVersion")),
                    "The served versions; the first is the preferred one.",
                ),
                "conversion": ref(apiextensions_v1("CustomResourceConversion")),
                "preserveUnknownFields": boolean("Legacy; must be false in v1."),
            },
            required=("group", "names", "scope", "versions"),
        ),
        apiextensions_v1("CustomResourceDefinitionNames"): _names(),
        apiextensions_v1("CustomResourceDefinitionVersion"): _version(),
        apiextensions_v1("CustomResourceValidation"): struct(
            "The validation schema of a version.",
            {"openAPIV3Schema": _props("The OpenAPI v3 schema of the objects.")},
        ),
        apiextensions_v1("CustomResourceSubresources"): struct(
            "The subresources a version serves.",
            {
                "status": ref(apiextensions_v1("CustomResourceSubresourceStatus")),
                "scale": ref(apiextensions_v1("CustomResourceSubresourceScale")),
            },
        ),
        apiextensions_v1("CustomResourceSubresourceStatus"): {
            "description": "Enables the /status subresource; takes no settings.",
            "type": "object",
        },
        apiextensions_v1("CustomResourceSubresourceScale"): struct(
            "Enables the /scale subresource: where replicas and the selector live.",
            {
                "specReplicasPath": string("JSON path of the desired replicas, under .spec."),
                "statusReplicasPath": string("JSON path of the observed replicas, under .status."),
                "labelSelectorPath": string("JSON path of the serialized label selector."),
            },
            required=("specReplicasPath", "statusReplicasPath"),
        ),
        apiextensions_v1("CustomResourceColumnDefinition"): struct(
            "An extra column of the table view.",
            {
                "name": string("The column header."),
                "type": string("integer, number, string, boolean or date."),
                "format": string("An OpenAPI format hint for the column."),
                "description": string("What the column shows."),
                "priority": integer("0: shown by default; higher: only with -o wide."),
                "jsonPath": string("The simple JSON path evaluated against each object."),
            },
            required=("name", "type", "jsonPath"),
        ),
        apiextensions_v1("SelectableField"): struct(
            "A field usable in field selectors.",
            {"jsonPath": string("The simple JSON path of the field.")},
            required=("jsonPath",),
        ),
        apiextensions_v1("CustomResourceConversion"): struct(
            "How objects convert between versions.",
            {
                "strategy": string("None or Webhook."),
                "webhook": ref(apiextensions_v1("WebhookConversion")),
            },
            required=("strategy",),
        ),
        apiextensions_v1("WebhookConversion"): struct(
            "The webhook converting objects between versions.",
            {
                "clientConfig": ref(apiextensions_v1("WebhookClientConfig")),
                "conversionReviewVersions": atomic_array(
                    string(), "ConversionReview versions the webhook accepts, preferred first."
                ),
            },
            required=("conversionReviewVersions",),
        ),
        apiextensions_v1("WebhookClientConfig"): struct(
            "How to reach a webhook: a URL or a service.",
            {
                "url": string("https URL of the webhook."),
                "service": ref(apiextensions_v1("ServiceReference")),
                "caBundle": string("PEM CA bundle to verify the webhook.", fmt="byte"),
            },
        ),
        apiextensions_v1("ServiceReference"): struct(
            "A service serving a webhook.",
            {
                "namespace": string(),
                "name": string(),
                "path": string(),
                "port": integer("Defaults to 443."),
            },
            required=("namespace", "name"),
        ),
    }


def _status_types() -> dict[str, Schema]:
    return {
        apiextensions_v1("CustomResourceDefinitionStatus"): struct(
            "The observed state of a CustomResourceDefinition.",
            {
                "conditions": merge_list(
                    apiextensions_v1("CustomResourceDefinitionCondition"),
                    "NamesAccepted, Established, Terminating...",
                    key="type",
                ),
                "acceptedNames": ref(
                    apiextensions_v1("CustomResourceDefinitionNames"),
                    "The names actually served; may differ from spec.names on conflicts.",
                ),
                "storedVersions": atomic_array(
                    string(), "Every version objects have ever been stored in."
                ),
            },
        ),
        apiextensions_v1("CustomResourceDefinitionCondition"): struct(
            "One condition of a CustomResourceDefinition.",
            {
                "type": string("The condition type."),
                "status": string("True, False or Unknown."),
                "lastTransitionTime": ref(meta("Time"), "When the status last changed."),
                "reason": string("Machine-readable reason of the last change."),
                "message": string("Human-readable details."),
                "observedGeneration": _int64("The generation the condition was set for."),
            },
            required=("type", "status"),
        ),
    }


def apiextensions_schemas() -> dict[str, Schema]:
    """Schema name -> schema for the apiextensions.k8s.io/v1 types."""
    return {
        apiextensions_v1("CustomResourceDefinition"): struct(
            "Describes a custom resource the API server serves. The name must be "
            "<spec.names.plural>.<spec.group>.",
            {
                **kind_header(),
                "spec": ref(apiextensions_v1("CustomResourceDefinitionSpec")),
                "status": ref(apiextensions_v1("CustomResourceDefinitionStatus")),
            },
            required=("spec",),
            gvk=(GROUP, "v1", "CustomResourceDefinition"),
        ),
        apiextensions_v1("CustomResourceDefinitionList"): list_kind(
            "A list of CustomResourceDefinitions.",
            apiextensions_v1("CustomResourceDefinition"),
            (GROUP, "v1", "CustomResourceDefinitionList"),
        ),
        **_spec_types(),
        **_status_types(),
        **_schema_types(),
    }
