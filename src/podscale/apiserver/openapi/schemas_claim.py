"""OpenAPI schemas of core/v1 PersistentVolumeClaim.

Not a kind podscale serves: it is here because StatefulSet's ``volumeClaimTemplates`` embed
whole claims (``openapi.schemas_apps``) and ephemeral volumes embed a claim spec
(``openapi.schemas_volume``).
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    atomic_array,
    atomic_struct,
    core,
    map_of,
    merge_list,
    meta,
    ref,
    string,
    string_map,
    struct,
)
from podscale.apiserver.openapi.schemas_meta import QUANTITY
from podscale.apiserver.openapi.schemas_pod_status import condition

__all__ = ["claim_schemas"]


def _granular(schema: Schema) -> Schema:
    schema["x-kubernetes-map-type"] = "granular"
    return schema


def claim_schemas() -> dict[str, Schema]:
    """Schema name -> schema for PersistentVolumeClaim and its parts."""
    return {
        core("PersistentVolumeClaim"): struct(
            "A user's request for persistent storage.",
            {
                "apiVersion": string("v1."),
                "kind": string("PersistentVolumeClaim."),
                "metadata": ref(meta("ObjectMeta"), "Standard object metadata."),
                "spec": ref(core("PersistentVolumeClaimSpec"), "The requested storage."),
                "status": ref(core("PersistentVolumeClaimStatus"), "Observed state."),
            },
            gvk=("", "v1", "PersistentVolumeClaim"),
        ),
        core("PersistentVolumeClaimSpec"): struct(
            "Requested storage characteristics.",
            {
                "accessModes": atomic_array(
                    string(), "ReadWriteOnce, ReadOnlyMany, ReadWriteMany..."
                ),
                "selector": ref(meta("LabelSelector"), "Selects volumes to bind to."),
                "resources": ref(core("VolumeResourceRequirements"), "Requested size."),
                "volumeName": string("Binds to this persistent volume."),
                "storageClassName": string("StorageClass to provision from."),
                "volumeMode": string("Filesystem or Block."),
                "dataSource": ref(core("TypedLocalObjectReference"), "Populate from this object."),
                "dataSourceRef": ref(core("TypedObjectReference"), "Populate from this object."),
                "volumeAttributesClassName": string("VolumeAttributesClass to use."),
            },
        ),
        core("PersistentVolumeClaimStatus"): struct(
            "Observed state of a claim.",
            {
                "phase": string("Pending, Bound or Lost."),
                "accessModes": atomic_array(string(), "Access modes of the bound volume."),
                "capacity": map_of(ref(QUANTITY), "Capacity of the bound volume."),
                "allocatedResources": map_of(ref(QUANTITY), "Resources allocated to the claim."),
                # upstream marks this map +mapType=granular (each resource's state its own field)
                "allocatedResourceStatuses": _granular(
                    string_map("State of each resource being resized.")
                ),
                "conditions": merge_list(
                    core("PersistentVolumeClaimCondition"), "Claim conditions.", key="type"
                ),
                "currentVolumeAttributesClassName": string("VolumeAttributesClass in effect."),
                "modifyVolumeStatus": ref(
                    core("ModifyVolumeStatus"), "Progress of a volume attributes change."
                ),
            },
        ),
        core("PersistentVolumeClaimCondition"): condition(
            "A condition of a claim.", probe_time=True
        ),
        core("ModifyVolumeStatus"): struct(
            "Progress of a ControllerModifyVolume operation.",
            {
                "targetVolumeAttributesClassName": string("Class being applied."),
                "status": string("Pending, InProgress or Infeasible."),
            },
            required=("status",),
        ),
        core("VolumeResourceRequirements"): struct(
            "Storage resources of a claim.",
            {
                "limits": map_of(ref(QUANTITY), "Maximum storage."),
                "requests": map_of(ref(QUANTITY), "Minimum storage requested."),
            },
        ),
        core("TypedLocalObjectReference"): atomic_struct(
            struct(
                "A typed reference to an object in the same namespace.",
                {
                    "apiGroup": string("API group of the referent."),
                    "kind": string("Kind of the referent."),
                    "name": string("Name of the referent."),
                },
                required=("kind", "name"),
            )
        ),
        core("TypedObjectReference"): struct(
            "A typed reference to an object, possibly in another namespace.",
            {
                "apiGroup": string("API group of the referent."),
                "kind": string("Kind of the referent."),
                "name": string("Name of the referent."),
                "namespace": string("Namespace of the referent."),
            },
            required=("kind", "name"),
        ),
    }
