"""OpenAPI schemas of apiextensions.k8s.io/v1: the CustomResourceDefinition kind.

The CRD kind, its spec (names, versions, conversion) and status (conditions, acceptedNames,
storedVersions). ``JSONSchemaProps``, the recursive schema language a CRD's
``openAPIV3Schema`` is written in, and its either-or types are in ``schemas_jsonschema``;
``openapi.schemas`` merges these into the table.
"""

from __future__ import annotations

from typing import Final

from podscale.apiserver.openapi.dsl import (
    Schema,
    atomic_array,
    boolean,
    integer,
    kind_header,
    list_kind,
    merge_list,
    meta,
    ref,
    string,
    struct,
)
from podscale.apiserver.openapi.schemas_jsonschema import (
    PROPS,
    apiextensions_v1,
    json_schema_types,
)

__all__ = ["apiextensions_schemas"]

GROUP: Final = "apiextensions.k8s.io"


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
            {"openAPIV3Schema": ref(PROPS, "The OpenAPI v3 schema of the objects.")},
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
                "observedGeneration": integer(
                    "The generation the condition was set for.", fmt="int64"
                ),
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
        **json_schema_types(),
    }
