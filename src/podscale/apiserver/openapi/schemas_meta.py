"""OpenAPI schemas of the apimachinery types every group-version document shares.

ObjectMeta, ListMeta, LabelSelector, Status, DeleteOptions, Time, Quantity, IntOrString... as
upstream names them (``io.k8s.apimachinery.pkg...``). The kind-specific schemas live in the
sibling ``openapi_schemas_*`` modules; ``openapi`` merges all of them and keeps, per document,
only what the document's kinds reach.
"""

from __future__ import annotations

from typing import Final

from podscale.apiserver.openapi.dsl import (
    Schema,
    array,
    atomic_struct,
    boolean,
    integer,
    map_of,
    merge_list,
    meta,
    ref,
    string,
    string_map,
    struct,
)

__all__ = ["INT_OR_STRING", "QUANTITY", "meta_schemas", "quantity_map"]

QUANTITY: Final = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING: Final = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"


def quantity_map(description: str) -> Schema:
    """A map of resource name to Quantity (requests, limits, capacity)."""
    return map_of(ref(QUANTITY), description)


# DeleteOptions and Status are accepted and returned by every served group-version.
_SHARED_GVKS: Final = (
    ("", "v1"),
    ("apps", "v1"),
    ("autoscaling", "v1"),
    ("autoscaling", "v2"),
    ("policy", "v1"),
    ("coordination.k8s.io", "v1"),
    ("apiextensions.k8s.io", "v1"),
)


def _shared_kind(schema: Schema, kind: str) -> Schema:
    schema["x-kubernetes-group-version-kind"] = [
        {"group": group, "kind": kind, "version": version} for group, version in _SHARED_GVKS
    ]
    return schema


def _object_meta() -> Schema:
    return struct(
        "Metadata every persisted object carries: identity, labels, ownership and lifecycle.",
        {
            "name": string("Unique name within the namespace; usually required on create."),
            "generateName": string("Prefix for a server-generated name, used when name is empty."),
            "namespace": string("The namespace the object lives in; empty for cluster objects."),
            "selfLink": string("Deprecated and always empty."),
            "uid": string("Server-assigned unique id, never reused."),
            "resourceVersion": string(
                "Opaque version of the object, used for optimistic concurrency and watches."
            ),
            "generation": integer("Sequence number of spec changes.", fmt="int64"),
            "creationTimestamp": ref(meta("Time"), "When the object was created (server-set)."),
            "deletionTimestamp": ref(meta("Time"), "When deletion was requested (server-set)."),
            "deletionGracePeriodSeconds": integer(
                "Seconds allowed for graceful termination before removal.", fmt="int64"
            ),
            "labels": string_map("Key/value pairs used by selectors to organize objects."),
            "annotations": string_map("Arbitrary non-identifying metadata for tools."),
            "ownerReferences": merge_list(
                meta("OwnerReference"),
                "Objects this one depends on; the garbage collector deletes orphans of them.",
                key="uid",
            ),
            "finalizers": array(
                string(),
                "Conditions that must be cleared before the object is removed.",
                list_type="set",
                strategy="merge",
            ),
            "managedFields": array(
                ref(meta("ManagedFieldsEntry")),
                "Which manager owns which fields (server-side apply bookkeeping).",
                list_type="atomic",
            ),
        },
    )


def meta_schemas() -> dict[str, Schema]:
    """Schema name -> schema for the shared apimachinery types."""
    schemas: dict[str, Schema] = {
        meta("ObjectMeta"): _object_meta(),
        meta("ListMeta"): struct(
            "Metadata of a list response.",
            {
                "selfLink": string("Deprecated and always empty."),
                "resourceVersion": string("The version the list was read at."),
                "continue": string("Token to fetch the next page when the list was limited."),
                "remainingItemCount": integer(
                    "Approximate number of items after this page.", fmt="int64"
                ),
            },
        ),
        meta("OwnerReference"): atomic_struct(
            struct(
                "A reference to an owning object in the same namespace.",
                {
                    "apiVersion": string("API version of the owner."),
                    "kind": string("Kind of the owner."),
                    "name": string("Name of the owner."),
                    "uid": string("UID of the owner."),
                    "controller": boolean("True if the owner is the managing controller."),
                    "blockOwnerDeletion": boolean(
                        "If true, foreground deletion of the owner waits for this object."
                    ),
                },
                required=("apiVersion", "kind", "name", "uid"),
            )
        ),
        meta("ManagedFieldsEntry"): struct(
            "The set of fields a workflow (manager) owns, at one API version.",
            {
                "manager": string("Name of the workflow managing the fields."),
                "operation": string("Apply or Update."),
                "apiVersion": string("API version the field set is expressed in."),
                "time": ref(meta("Time"), "When the entry last changed."),
                "fieldsType": string("Format of fieldsV1; only FieldsV1 exists."),
                "fieldsV1": ref(meta("FieldsV1"), "The owned field set."),
                "subresource": string("The subresource the fields were written through."),
            },
        ),
        meta("FieldsV1"): {
            "type": "object",
            "description": "A set of fields encoded as a trie of JSON keys (opaque here).",
        },
        meta("Time"): {
            "type": "string",
            "format": "date-time",
            "description": "A timestamp in RFC 3339 form, second precision.",
        },
        meta("MicroTime"): {
            "type": "string",
            "format": "date-time",
            "description": "A timestamp in RFC 3339 form, microsecond precision.",
        },
        meta("LabelSelector"): _label_selector(),
        meta("LabelSelectorRequirement"): struct(
            "One selector term: a key, an operator and values.",
            {
                "key": string("The label key the term applies to."),
                "operator": string("In, NotIn, Exists or DoesNotExist."),
                "values": array(
                    string(), "Values for In/NotIn; must be empty otherwise.", list_type="atomic"
                ),
            },
            required=("key", "operator"),
        ),
        meta("Status"): _shared_kind(_status(), "Status"),
        meta("StatusDetails"): struct(
            "Extra data about a failure, such as the object involved and per-field causes.",
            {
                "name": string("Name of the object involved."),
                "group": string("API group of the object involved."),
                "kind": string("Kind (or resource) of the object involved."),
                "uid": string("UID of the object involved."),
                "causes": array(
                    ref(meta("StatusCause")), "Individual causes of the error.", list_type="atomic"
                ),
                "retryAfterSeconds": integer("Suggested seconds to wait before retrying."),
            },
        ),
        meta("StatusCause"): struct(
            "One reason an operation failed, often tied to a field.",
            {
                "reason": string("Machine-readable cause, e.g. FieldValueInvalid."),
                "message": string("Human-readable description of the cause."),
                "field": string("Path of the field that caused the error, e.g. spec.replicas."),
            },
        ),
        meta("DeleteOptions"): _shared_kind(_delete_options(), "DeleteOptions"),
        meta("Preconditions"): struct(
            "Conditions the object must meet for a delete to proceed.",
            {
                "uid": string("Required UID of the object."),
                "resourceVersion": string("Required resourceVersion of the object."),
            },
        ),
        meta("Patch"): {
            "type": "object",
            "description": "A patch body; its format is given by the request Content-Type.",
        },
        QUANTITY: {
            "description": (
                "A fixed-point number with an optional suffix: 100m, 1.5, 128Mi, 1e3. "
                "Serialized in canonical string form."
            ),
            "oneOf": [{"type": "string"}, {"type": "number"}],
        },
        INT_OR_STRING: {
            "description": "Either a 32-bit integer or a string (e.g. 8080 or 'http', 5 or '25%').",
            "format": "int-or-string",
            "oneOf": [{"type": "integer"}, {"type": "string"}],
        },
    }
    return schemas


def _label_selector() -> Schema:
    schema = struct(
        "Selects objects by labels; all terms are ANDed, an empty selector matches everything.",
        {
            "matchLabels": string_map("Labels that must all be present with these values."),
            "matchExpressions": array(
                ref(meta("LabelSelectorRequirement")),
                "Set-based requirements.",
                list_type="atomic",
            ),
        },
    )
    schema["x-kubernetes-map-type"] = "atomic"
    return schema


def _status() -> Schema:
    return struct(
        "The result of an operation that returns no object, usually a failure.",
        {
            "apiVersion": string("The versioned schema of this object, v1."),
            "kind": string("Status."),
            "metadata": ref(meta("ListMeta"), "Standard list metadata."),
            "status": string("Success or Failure."),
            "message": string("Human-readable description of the status."),
            "reason": string("Machine-readable reason, e.g. NotFound or Invalid."),
            "details": ref(meta("StatusDetails"), "Extended data about the reason."),
            "code": integer("The HTTP status code."),
        },
    )


def _delete_options() -> Schema:
    return struct(
        "Options for a delete request.",
        {
            "apiVersion": string("The versioned schema of this object."),
            "kind": string("DeleteOptions."),
            "gracePeriodSeconds": integer("Seconds before the object is deleted.", fmt="int64"),
            "preconditions": ref(meta("Preconditions"), "Must hold for the delete to proceed."),
            "orphanDependents": boolean("Deprecated: use propagationPolicy."),
            "propagationPolicy": string("Orphan, Background or Foreground garbage collection."),
            "dryRun": array(
                string(), "All: run every stage but persist nothing.", list_type="atomic"
            ),
            "ignoreStoreReadErrorWithClusterBreakingPotential": boolean(
                "Delete objects that cannot be read from storage (unsafe)."
            ),
        },
    )
