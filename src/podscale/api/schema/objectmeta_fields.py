"""Cut a custom resource's ``metadata`` down to what ``metav1.ObjectMeta`` can hold.

kube-apiserver decodes the metadata of a custom resource (and of each embedded resource)
into ObjectMeta and writes it back, so fields ObjectMeta does not have vanish and are
reported as unknown (``metadata.foo``; ``metadata.ownerReferences[0].bar`` inside the
structured lists). ``pruning.prune`` calls ``prune_object_meta`` after its schema walk.
``managedFields[].fieldsV1`` is free-form and kept whole.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["OBJECT_META_FIELDS", "prune_object_meta"]

OBJECT_META_FIELDS: Final = frozenset(
    {
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    }
)
_OWNER_REFERENCE_FIELDS: Final = frozenset(
    {"apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"}
)
_MANAGED_FIELDS_ENTRY_FIELDS: Final = frozenset(
    {"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"}
)
_NESTED: Final = {
    "ownerReferences": _OWNER_REFERENCE_FIELDS,
    "managedFields": _MANAGED_FIELDS_ENTRY_FIELDS,
}


def _drop_unknown(value: dict[str, Any], known: frozenset[str], path: str) -> list[str]:
    dropped: list[str] = []
    for key in list(value):
        if key not in known:
            dropped.append(f"{path}.{key}")
            del value[key]
    return dropped


def prune_object_meta(meta: dict[str, Any], path: str) -> list[str]:
    """Drop non-ObjectMeta fields of ``meta`` in place; their paths under ``path``, sorted."""
    dropped = _drop_unknown(meta, OBJECT_META_FIELDS, path)
    for name, known in _NESTED.items():
        entries = meta.get(name)
        if not isinstance(entries, list):
            continue
        for i, entry in enumerate(entries):
            if isinstance(entry, dict):
                dropped.extend(_drop_unknown(entry, known, f"{path}.{name}[{i}]"))
    return sorted(dropped)
