"""Field ownership through the ``/scale`` subresource: its entries recorded on the parent.

apimachinery's ``ScaleHandler``: a Scale's ``spec.replicas`` stands for the parent's replicas
path (``spec.replicas``, or a CRD's ``scale.specReplicasPath``), so the Scale's managed
entries are made from the parent's (``to_scale_entries``) and folded back into them after a
write (``to_parent_entries``). ``record_scale`` does this for an update of ``/scale``
(``operations.subresources``); ``operations.apply`` calls the two conversions around a
server-side apply of it. Decoding, encoding, merge types and the failure log come from
``operations.field_owners``; the merge itself from ``apiserver.fieldmanager.merge``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.definitions import CustomKind
from podscale.apiserver.fieldmanager.fieldpath import Path, PathElement
from podscale.apiserver.fieldmanager.fieldset import FieldSet
from podscale.apiserver.fieldmanager.managed import ManagedEntry
from podscale.apiserver.fieldmanager.merge import update as update_entries
from podscale.apiserver.operations.field_owners import (
    decode_entries,
    log_failure,
    merge_type,
    now_text,
    store_entries,
)
from podscale.apiserver.state import ServerState

__all__ = [
    "SCALE_REPLICAS",
    "record_scale",
    "replicas_path",
    "to_parent_entries",
    "to_scale_entries",
]

JSON = dict[str, Any]
SCALE_REPLICAS: Final[Path] = (PathElement.field("spec"), PathElement.field("replicas"))


def replicas_path(info: KindInfo) -> Path:
    """Where the parent keeps what its Scale calls ``spec.replicas``."""
    if isinstance(info, CustomKind) and info.scale is not None:
        dotted = info.scale.spec_replicas.lstrip(".")
        return tuple(PathElement.field(part) for part in dotted.split("."))
    return SCALE_REPLICAS


def to_scale_entries(info: KindInfo, parent: Mapping[str, Any]) -> list[ManagedEntry]:
    """The parent's entries that own its replicas, as entries of its Scale: the Scale's
    ``spec.replicas``, apiVersion autoscaling/v1 (upstream's ToSubresource)."""
    try:
        entries = decode_entries((parent.get("metadata") or {}).get("managedFields"))
    except ValueError:
        return []
    path = replicas_path(info)
    only = FieldSet.of([SCALE_REPLICAS])
    return [
        replace(e, api_version="autoscaling/v1", fields=only) for e in entries if e.fields.has(path)
    ]


def to_parent_entries(
    info: KindInfo, parent: Mapping[str, Any], scale_entries: Sequence[ManagedEntry]
) -> list[ManagedEntry]:
    """The parent's entries after a Scale write left ``scale_entries`` (upstream's
    ToParent): a parent entry whose Scale counterpart lost ``spec.replicas`` loses the
    replicas path; a Scale entry new to the parent owns the replicas path, apiVersion the
    parent's and, as upstream's conversion does, no time."""
    try:
        entries = decode_entries((parent.get("metadata") or {}).get("managedFields"))
    except ValueError:
        entries = []
    path = replicas_path(info)
    on_scale = {
        (e.manager, e.operation, e.subresource): e
        for e in scale_entries
        if e.fields.has(SCALE_REPLICAS)
    }
    out: list[ManagedEntry] = []
    for entry in entries:
        if not entry.fields.has(path):
            out.append(entry)
            continue
        identity = (entry.manager, entry.operation, entry.subresource)
        if on_scale.pop(identity, None) is not None:
            out.append(entry)  # it still owns the replicas: kept as it was
            continue
        rest = entry.fields.difference(FieldSet.of([path]))
        if not rest.empty():
            out.append(replace(entry, fields=rest))
    own = FieldSet.of([path])
    out.extend(
        ManagedEntry(e.manager, e.operation, info.api_version, None, e.subresource, own)
        for e in on_scale.values()
    )
    return out


def record_scale(
    state: ServerState,
    info: KindInfo,
    old_parent: Mapping[str, Any],
    parent: JSON,
    old_scale: Mapping[str, Any],
    new_scale: Mapping[str, Any],
    manager: str,
) -> None:
    """Set ``parent``'s managedFields for a Scale write by ``manager`` (an Update entry with
    subresource ``scale`` owning the replicas), as the workloads' scale storage does."""
    try:
        entries = update_entries(
            old_scale, new_scale, manager, to_scale_entries(info, old_parent),
            merge_type(state, info, "scale"), api_version="autoscaling/v1",
            now=now_text(state), subresource="scale",
        )  # fmt: skip
        store_entries(parent["metadata"], to_parent_entries(info, old_parent, entries))
    except Exception as err:
        log_failure(state, info, parent, err)
        live_raw = (old_parent.get("metadata") or {}).get("managedFields")
        if live_raw:
            parent["metadata"]["managedFields"] = live_raw
        else:
            parent["metadata"].pop("managedFields", None)
