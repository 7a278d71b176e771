"""OpenAPI schemas of core/v1 pod volumes and PersistentVolumeClaim.

Covers the volume sources manifests use today (emptyDir, configMap, secret, projected,
downwardAPI, persistentVolumeClaim, hostPath, nfs, csi, ephemeral, image); the deprecated in-tree
plugins come from ``openapi.schemas_volume_legacy``.
PersistentVolumeClaim itself is in ``openapi.schemas_claim``.
"""

from __future__ import annotations

from podscale.apiserver.openapi.dsl import (
    Schema,
    atomic_array,
    boolean,
    core,
    integer,
    meta,
    ref,
    string,
    string_map,
    struct,
)
from podscale.apiserver.openapi.schemas_meta import QUANTITY
from podscale.apiserver.openapi.schemas_volume_legacy import (
    legacy_volume_members,
    legacy_volume_schemas,
)

__all__ = ["volume_schemas"]


_MODE = "File mode bits (octal 0644 is 420 in JSON)."


def _volume() -> Schema:
    return struct(
        "A named volume that containers of the pod can mount; exactly one source is set.",
        {
            "name": string("Volume name, a DNS label unique within the pod."),
            "emptyDir": ref(core("EmptyDirVolumeSource"), "A scratch directory."),
            "configMap": ref(core("ConfigMapVolumeSource"), "Files from a ConfigMap."),
            "secret": ref(core("SecretVolumeSource"), "Files from a Secret."),
            "projected": ref(core("ProjectedVolumeSource"), "Several sources in one directory."),
            "downwardAPI": ref(core("DownwardAPIVolumeSource"), "Files with pod information."),
            "persistentVolumeClaim": ref(
                core("PersistentVolumeClaimVolumeSource"), "A claimed persistent volume."
            ),
            "hostPath": ref(core("HostPathVolumeSource"), "A path on the node."),
            "nfs": ref(core("NFSVolumeSource"), "An NFS export."),
            "csi": ref(core("CSIVolumeSource"), "An ephemeral volume from a CSI driver."),
            "ephemeral": ref(core("EphemeralVolumeSource"), "A per-pod generated claim."),
            "image": ref(core("ImageVolumeSource"), "Contents of an OCI image."),
            **legacy_volume_members(),
        },
        required=("name",),
    )


def _items() -> Schema:
    return atomic_array(ref(core("KeyToPath")), "Keys to project and the paths they go to.")


def _source_schemas() -> dict[str, Schema]:
    return {
        core("EmptyDirVolumeSource"): struct(
            "An empty directory living as long as the pod.",
            {
                "medium": string("Storage medium: empty (node default) or Memory."),
                "sizeLimit": ref(QUANTITY, "Maximum size of the directory."),
            },
        ),
        core("ConfigMapVolumeSource"): struct(
            "Projects ConfigMap keys as files.",
            {
                "name": string("Name of the ConfigMap."),
                "items": _items(),
                "defaultMode": integer(_MODE),
                "optional": boolean("Whether the ConfigMap may be missing."),
            },
        ),
        core("SecretVolumeSource"): struct(
            "Projects Secret keys as files.",
            {
                "secretName": string("Name of the Secret."),
                "items": _items(),
                "defaultMode": integer(_MODE),
                "optional": boolean("Whether the Secret may be missing."),
            },
        ),
        core("KeyToPath"): struct(
            "Maps a key to a relative file path.",
            {
                "key": string("The key to project."),
                "path": string("Relative path of the file."),
                "mode": integer(_MODE),
            },
            required=("key", "path"),
        ),
        core("DownwardAPIVolumeSource"): struct(
            "Exposes pod fields as files.",
            {
                "items": atomic_array(ref(core("DownwardAPIVolumeFile")), "Files to create."),
                "defaultMode": integer(_MODE),
            },
        ),
        core("DownwardAPIVolumeFile"): struct(
            "One file holding a pod field or resource value.",
            {
                "path": string("Relative path of the file."),
                "fieldRef": ref(core("ObjectFieldSelector"), "A pod field."),
                "resourceFieldRef": ref(core("ResourceFieldSelector"), "A container resource."),
                "mode": integer(_MODE),
            },
            required=("path",),
        ),
        core("PersistentVolumeClaimVolumeSource"): struct(
            "Mounts the volume bound to a claim in the pod's namespace.",
            {
                "claimName": string("Name of the claim."),
                "readOnly": boolean("Mount read-only."),
            },
            required=("claimName",),
        ),
        core("HostPathVolumeSource"): struct(
            "A file or directory of the node.",
            {
                "path": string("Path on the node."),
                "type": string("Expected type: Directory, File, DirectoryOrCreate..."),
            },
            required=("path",),
        ),
        core("NFSVolumeSource"): struct(
            "An NFS mount.",
            {
                "server": string("NFS server host or IP."),
                "path": string("Exported path."),
                "readOnly": boolean("Mount read-only."),
            },
            required=("server", "path"),
        ),
        core("CSIVolumeSource"): struct(
            "An inline volume provided by a CSI driver.",
            {
                "driver": string("Name of the CSI driver."),
                "readOnly": boolean("Mount read-only."),
                "fsType": string("Filesystem type."),
                "volumeAttributes": string_map("Driver-specific attributes."),
                "nodePublishSecretRef": ref(
                    core("LocalObjectReference"), "Secret passed to the driver."
                ),
            },
            required=("driver",),
        ),
        core("EphemeralVolumeSource"): struct(
            "A volume whose claim is created with and deleted with the pod.",
            {
                "volumeClaimTemplate": ref(
                    core("PersistentVolumeClaimTemplate"), "Template of the claim."
                )
            },
        ),
        core("PersistentVolumeClaimTemplate"): struct(
            "Metadata and spec of a generated claim.",
            {
                "metadata": ref(meta("ObjectMeta"), "Labels and annotations of the claim."),
                "spec": ref(core("PersistentVolumeClaimSpec"), "Spec of the claim."),
            },
            required=("spec",),
        ),
        core("ImageVolumeSource"): struct(
            "An OCI image or artifact mounted read-only.",
            {
                "reference": string("Image reference."),
                "pullPolicy": string("Always, Never or IfNotPresent."),
            },
        ),
    }


def _projection_schemas() -> dict[str, Schema]:
    return {
        core("ProjectedVolumeSource"): struct(
            "Several volume sources projected into one directory.",
            {
                "sources": atomic_array(ref(core("VolumeProjection")), "The projections."),
                "defaultMode": integer(_MODE),
            },
        ),
        core("VolumeProjection"): struct(
            "One projected source; exactly one field is set.",
            {
                "secret": ref(core("SecretProjection"), "Keys of a Secret."),
                "configMap": ref(core("ConfigMapProjection"), "Keys of a ConfigMap."),
                "downwardAPI": ref(core("DownwardAPIProjection"), "Pod information."),
                "serviceAccountToken": ref(
                    core("ServiceAccountTokenProjection"), "A bound service account token."
                ),
                "clusterTrustBundle": ref(
                    core("ClusterTrustBundleProjection"), "Certificates of ClusterTrustBundles."
                ),
            },
        ),
        core("ClusterTrustBundleProjection"): struct(
            "ClusterTrustBundle certificates written to one file.",
            {
                "name": string("Select a single bundle by name."),
                "signerName": string("Select bundles of this signer."),
                "labelSelector": ref(meta("LabelSelector"), "Select bundles by label."),
                "optional": boolean("Tolerate a missing bundle."),
                "path": string("Relative path of the file."),
            },
            required=("path",),
        ),
        core("SecretProjection"): struct(
            "Secret keys in a projected volume.",
            {"name": string("Name of the Secret."), "items": _items(), "optional": boolean()},
        ),
        core("ConfigMapProjection"): struct(
            "ConfigMap keys in a projected volume.",
            {"name": string("Name of the ConfigMap."), "items": _items(), "optional": boolean()},
        ),
        core("DownwardAPIProjection"): struct(
            "Pod information in a projected volume.",
            {"items": atomic_array(ref(core("DownwardAPIVolumeFile")), "Files to create.")},
        ),
        core("ServiceAccountTokenProjection"): struct(
            "A service account token file.",
            {
                "audience": string("Intended audience of the token."),
                "expirationSeconds": integer("Requested lifetime.", fmt="int64"),
                "path": string("Relative path of the token file."),
            },
            required=("path",),
        ),
    }


def volume_schemas() -> dict[str, Schema]:
    """Schema name -> schema for Volume and its sources."""
    return {
        core("Volume"): _volume(),
        **_source_schemas(),
        **_projection_schemas(),
        **legacy_volume_schemas(),
    }
