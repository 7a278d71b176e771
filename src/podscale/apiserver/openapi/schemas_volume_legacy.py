"""OpenAPI schemas of the in-tree (mostly deprecated) pod volume plugins.

The API still carries them, so old manifests using ``gcePersistentDisk``, ``awsElasticBlockStore``,
``nfs``-era ``iscsi``, ``cephfs``... must pass strict field validation. podscale never mounts
anything: these exist only to be known. Written as a table, since they are all flat records of
strings, integers, booleans and an optional secret reference. ``openapi.schemas_volume`` lists
them on Volume via ``legacy_volume_members``.
"""

from __future__ import annotations

from typing import Final

from podscale.apiserver.openapi.dsl import (
    Schema,
    array,
    boolean,
    core,
    integer,
    ref,
    string,
    string_map,
    struct,
)

__all__ = ["legacy_volume_members", "legacy_volume_schemas"]

# Field kinds: s string, i int32, b boolean, l list of strings, r secret reference, m string map.
_FIELD_TEXT: Final = {
    "fsType": "Filesystem type to mount, e.g. ext4.",
    "readOnly": "Mount read-only.",
    "partition": "Partition of the disk to mount (0: the whole disk).",
    "secretRef": "Secret holding the credentials.",
    "monitors": "Ceph monitor addresses.",
    "user": "User name to authenticate as.",
    "volumeID": "Identifier of the volume in the storage system.",
}

# (Volume member, schema type, description, {field: kind}, required fields)
_SOURCES: Final[tuple[tuple[str, str, str, dict[str, str], tuple[str, ...]], ...]] = (
    (
        "awsElasticBlockStore",
        "AWSElasticBlockStoreVolumeSource",
        "An AWS EBS disk (deprecated: use the EBS CSI driver).",
        {"volumeID": "s", "fsType": "s", "partition": "i", "readOnly": "b"},
        ("volumeID",),
    ),
    (
        "gcePersistentDisk",
        "GCEPersistentDiskVolumeSource",
        "A GCE persistent disk (deprecated: use the PD CSI driver).",
        {"pdName": "s", "fsType": "s", "partition": "i", "readOnly": "b"},
        ("pdName",),
    ),
    (
        "azureDisk",
        "AzureDiskVolumeSource",
        "An Azure data disk (deprecated: use the Azure Disk CSI driver).",
        {
            "diskName": "s",
            "diskURI": "s",
            "cachingMode": "s",
            "fsType": "s",
            "readOnly": "b",
            "kind": "s",
        },
        ("diskName", "diskURI"),
    ),
    (
        "azureFile",
        "AzureFileVolumeSource",
        "An Azure File share (deprecated: use the Azure File CSI driver).",
        {"secretName": "s", "shareName": "s", "readOnly": "b"},
        ("secretName", "shareName"),
    ),
    (
        "cephfs",
        "CephFSVolumeSource",
        "A CephFS mount.",
        {
            "monitors": "l",
            "path": "s",
            "user": "s",
            "secretFile": "s",
            "secretRef": "r",
            "readOnly": "b",
        },
        ("monitors",),
    ),
    (
        "cinder",
        "CinderVolumeSource",
        "An OpenStack Cinder volume (deprecated: use the Cinder CSI driver).",
        {"volumeID": "s", "fsType": "s", "readOnly": "b", "secretRef": "r"},
        ("volumeID",),
    ),
    (
        "fc",
        "FCVolumeSource",
        "A Fibre Channel volume.",
        {"targetWWNs": "l", "lun": "i", "fsType": "s", "readOnly": "b", "wwids": "l"},
        (),
    ),
    (
        "flexVolume",
        "FlexVolumeSource",
        "A volume provisioned by an exec-based FlexVolume driver.",
        {"driver": "s", "fsType": "s", "secretRef": "r", "readOnly": "b", "options": "m"},
        ("driver",),
    ),
    (
        "flocker",
        "FlockerVolumeSource",
        "A Flocker dataset.",
        {"datasetName": "s", "datasetUUID": "s"},
        (),
    ),
    (
        "gitRepo",
        "GitRepoVolumeSource",
        "A git repository cloned into an empty directory (deprecated).",
        {"repository": "s", "revision": "s", "directory": "s"},
        ("repository",),
    ),
    (
        "glusterfs",
        "GlusterfsVolumeSource",
        "A GlusterFS mount.",
        {"endpoints": "s", "path": "s", "readOnly": "b"},
        ("endpoints", "path"),
    ),
    (
        "iscsi",
        "ISCSIVolumeSource",
        "An iSCSI disk.",
        {
            "targetPortal": "s",
            "iqn": "s",
            "lun": "i",
            "iscsiInterface": "s",
            "fsType": "s",
            "readOnly": "b",
            "portals": "l",
            "chapAuthDiscovery": "b",
            "chapAuthSession": "b",
            "secretRef": "r",
            "initiatorName": "s",
        },
        ("targetPortal", "iqn", "lun"),
    ),
    (
        "photonPersistentDisk",
        "PhotonPersistentDiskVolumeSource",
        "A Photon Controller persistent disk.",
        {"pdID": "s", "fsType": "s"},
        ("pdID",),
    ),
    (
        "portworxVolume",
        "PortworxVolumeSource",
        "A Portworx volume.",
        {"volumeID": "s", "fsType": "s", "readOnly": "b"},
        ("volumeID",),
    ),
    (
        "quobyte",
        "QuobyteVolumeSource",
        "A Quobyte mount.",
        {
            "registry": "s",
            "volume": "s",
            "readOnly": "b",
            "user": "s",
            "group": "s",
            "tenant": "s",
        },
        ("registry", "volume"),
    ),
    (
        "rbd",
        "RBDVolumeSource",
        "A Rados Block Device.",
        {
            "monitors": "l",
            "image": "s",
            "fsType": "s",
            "pool": "s",
            "user": "s",
            "keyring": "s",
            "secretRef": "r",
            "readOnly": "b",
        },
        ("monitors", "image"),
    ),
    (
        "scaleIO",
        "ScaleIOVolumeSource",
        "A ScaleIO volume.",
        {
            "gateway": "s",
            "system": "s",
            "secretRef": "r",
            "sslEnabled": "b",
            "protectionDomain": "s",
            "storagePool": "s",
            "storageMode": "s",
            "volumeName": "s",
            "fsType": "s",
            "readOnly": "b",
        },
        ("gateway", "system", "secretRef"),
    ),
    (
        "storageos",
        "StorageOSVolumeSource",
        "A StorageOS volume.",
        {
            "volumeName": "s",
            "volumeNamespace": "s",
            "fsType": "s",
            "readOnly": "b",
            "secretRef": "r",
        },
        (),
    ),
    (
        "vsphereVolume",
        "VsphereVirtualDiskVolumeSource",
        "A vSphere virtual disk (deprecated: use the vSphere CSI driver).",
        {"volumePath": "s", "fsType": "s", "storagePolicyName": "s", "storagePolicyID": "s"},
        ("volumePath",),
    ),
)


def _field(name: str, kind: str) -> Schema:
    text = _FIELD_TEXT.get(name, "")
    if kind == "s":
        return string(text or f"The {name} setting.")
    if kind == "i":
        return integer(text or f"The {name} setting.")
    if kind == "b":
        return boolean(text or f"The {name} setting.")
    if kind == "l":
        return array(string(), text or f"The {name} list.", list_type="atomic")
    if kind == "m":
        return string_map(text or "Driver options.")
    return ref(core("LocalObjectReference"), _FIELD_TEXT["secretRef"])


def legacy_volume_members() -> dict[str, Schema]:
    """Volume property name -> reference to its source type, for every in-tree plugin."""
    return {member: ref(core(type_name), text) for member, type_name, text, _, _ in _SOURCES}


def legacy_volume_schemas() -> dict[str, Schema]:
    """Schema name -> schema for every in-tree volume source."""
    return {
        core(type_name): struct(
            f"Settings of the {member} volume plugin.",
            {name: _field(name, kind) for name, kind in fields.items()},
            required=required,
        )
        for member, type_name, _, fields, required in _SOURCES
    }
