"""Metadata bookkeeping shared by every backend: pure functions over JSON objects.

The engine (``engine``) calls these inside its write lock; they decide *what* the next
stored state is, never *how* it is stored. They follow kube-apiserver's generic registry
(``staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go``: Create, Update,
Delete, ``markAsDeleting``, ``deletionFinalizersForGarbageCollection``) and storage
preconditions (``staging/src/k8s.io/apiserver/pkg/storage/interfaces.go``).

Inputs are never mutated: each function returns a new top-level dict with a new
``metadata`` dict and shares the untouched sub-trees, which the engine serializes at once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from podscale.api.timestamps import format_time
from podscale.store.interface import (
    AlreadyExistsError,
    ConflictError,
    NotFoundError,
    Preconditions,
    StoreError,
)

__all__ = [
    "FINALIZER_FOREGROUND",
    "FINALIZER_ORPHAN",
    "check_preconditions",
    "check_update_version",
    "error_already_exists",
    "error_conflict",
    "error_not_found",
    "format_timestamp",
    "is_finalized",
    "key_of",
    "mark_deleting",
    "namespace_finalizers",
    "stamp_created",
    "stamp_updated",
    "with_revision",
]

JSON = dict[str, Any]

FINALIZER_ORPHAN = "orphan"
FINALIZER_FOREGROUND = "foregroundDeletion"
# Upstream's propagation finalizers exclude each other: choosing one policy drops the other.
_EXCLUSIVE = {FINALIZER_ORPHAN: FINALIZER_FOREGROUND, FINALIZER_FOREGROUND: FINALIZER_ORPHAN}

_OPTIMISTIC_LOCK = (
    "the object has been modified; please apply your changes to the latest version and try again"
)


def format_timestamp(moment: datetime) -> str:
    """RFC 3339 in whole seconds, UTC, as ``metav1.Time`` marshals: ``2026-11-22T10:00:00Z``.
    A naive datetime is taken to be UTC already."""
    return format_time(moment)


def key_of(obj: JSON) -> tuple[str, str]:
    """``(namespace, name)``; namespace is "" for cluster-scoped objects."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        raise StoreError("object has no metadata")
    name = meta.get("name")
    namespace = meta.get("namespace") or ""
    if not isinstance(name, str) or not name:
        raise StoreError("object has no metadata.name")
    if not isinstance(namespace, str):
        raise StoreError("metadata.namespace must be a string")
    return namespace, name


def error_not_found(resource: str, name: str) -> NotFoundError:
    return NotFoundError(f'{resource} "{name}" not found', resource=resource, name=name)


def error_already_exists(resource: str, name: str) -> AlreadyExistsError:
    return AlreadyExistsError(f'{resource} "{name}" already exists', resource=resource, name=name)


def error_conflict(resource: str, name: str, detail: str = _OPTIMISTIC_LOCK) -> ConflictError:
    """Upstream's ``NewConflict``: ``Operation cannot be fulfilled on <resource> "<name>": ...``."""
    message = f'Operation cannot be fulfilled on {resource} "{name}": {detail}'
    return ConflictError(message, resource=resource, name=name)


def _metadata(obj: JSON) -> JSON:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _copy_top(obj: JSON) -> tuple[JSON, JSON]:
    """A new top-level dict with a new metadata dict; everything else is shared."""
    copied = dict(obj)
    meta = dict(_metadata(obj))
    copied["metadata"] = meta
    return copied, meta


def with_revision(obj: JSON, revision: int) -> JSON:
    """``obj`` with ``metadata.resourceVersion`` set to ``revision``."""
    copied, meta = _copy_top(obj)
    meta["resourceVersion"] = str(revision)
    return copied


def stamp_created(obj: JSON, *, uid: str, timestamp: str, revision: int) -> JSON:
    """The object as first stored: the store owns uid, creationTimestamp and resourceVersion;
    every other field is kept as given, generation included (the API server's strategy
    decides it per kind, as upstream's ``PrepareForCreate`` does: 1 for workloads and Pods,
    none for Nodes or Namespaces)."""
    copied, meta = _copy_top(obj)
    meta["uid"] = uid
    meta["creationTimestamp"] = timestamp
    meta["resourceVersion"] = str(revision)
    return copied


def check_update_version(resource: str, stored: JSON, incoming: JSON) -> None:
    """Optimistic concurrency: a non-empty resourceVersion must match the stored one;
    an empty one is an unconditional update (every built-in strategy allows it)."""
    wanted = _metadata(incoming).get("resourceVersion")
    if wanted and wanted != _metadata(stored).get("resourceVersion"):
        raise error_conflict(resource, str(_metadata(stored).get("name", "")))


def _generation(meta: JSON) -> int:
    value = meta.get("generation")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def stamp_updated(stored: JSON, incoming: JSON, *, revision: int) -> JSON:
    """The next state for an update of ``stored`` by ``incoming``.

    uid and creationTimestamp come from the stored object; so do deletionTimestamp and
    deletionGracePeriodSeconds once set (an update can never undo a deletion, as upstream's
    ``BeforeUpdate``). generation is the writer's: the API server's per-kind strategies
    decide when it moves (a Deployment's annotations bump it, a status write or a binding
    never does), as upstream's registry does above etcd. A writer that leaves it out keeps
    the stored one."""
    copied, meta = _copy_top(incoming)
    old_meta = _metadata(stored)
    graceful = _starts_or_shortens_grace(old_meta, meta)
    for field in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"):
        if graceful and field in ("deletionTimestamp", "deletionGracePeriodSeconds"):
            continue
        if field in old_meta:
            meta[field] = old_meta[field]
        elif field in ("deletionTimestamp", "deletionGracePeriodSeconds"):
            meta.pop(field, None)
    if "generation" not in meta and "generation" in old_meta:
        meta["generation"] = old_meta["generation"]
    meta["resourceVersion"] = str(revision)
    return copied


def _grace(meta: JSON) -> int | None:
    value = meta.get("deletionGracePeriodSeconds")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _starts_or_shortens_grace(old_meta: JSON, meta: JSON) -> bool:
    """The API server's graceful delete (upstream ``BeforeDelete``) writes the deletion
    fields through an update: a positive grace period with a deletionTimestamp, never
    longer than a stored one. Any other incoming deletion fields are ignored as before."""
    grace = _grace(meta)
    if not meta.get("deletionTimestamp") or grace is None or grace <= 0:
        return False
    old_grace = _grace(old_meta)
    if not old_meta.get("deletionTimestamp"):
        return True
    return old_grace is not None and grace < old_grace


def namespace_finalizers(obj: JSON) -> list[Any]:
    """A Namespace's ``spec.finalizers`` (``kubernetes``: its content is not removed yet);
    [] for every other kind. Upstream's namespace registry keeps a namespace while they
    are set (``ShouldDeleteNamespaceDuringUpdate``), on top of ``metadata.finalizers``."""
    if obj.get("kind") != "Namespace":
        return []
    spec = obj.get("spec")
    finalizers = spec.get("finalizers") if isinstance(spec, dict) else None
    return finalizers if isinstance(finalizers, list) else []


def is_finalized(obj: JSON) -> bool:
    """Marked for deletion with no finalizer left and no grace period pending (a gracefully
    deleted pod stays until its kubelet deletes it with grace 0): the object must go now."""
    meta = _metadata(obj)
    grace = _grace(meta)
    pending = grace is not None and grace > 0
    return (
        bool(meta.get("deletionTimestamp"))
        and not meta.get("finalizers")
        and not pending
        and not namespace_finalizers(obj)
    )


def check_preconditions(resource: str, stored: JSON, preconditions: Preconditions | None) -> None:
    """Delete preconditions, uid first, with upstream's ``Preconditions.Check`` wording."""
    if preconditions is None:
        return
    meta = _metadata(stored)
    name = str(meta.get("name", ""))
    checks = (
        ("UID", preconditions.uid, meta.get("uid", "")),
        ("ResourceVersion", preconditions.resource_version, meta.get("resourceVersion", "")),
    )
    for field_name, wanted, actual in checks:
        if wanted is not None and wanted != actual:
            detail = (
                f"Precondition failed: {field_name} in precondition: {wanted}, "
                f"{field_name} in object meta: {actual}"
            )
            raise error_conflict(resource, name, detail)


def _merge_finalizers(existing: list[Any], to_add: tuple[str, ...]) -> list[Any]:
    result = list(existing)
    for finalizer in to_add:
        opposite = _EXCLUSIVE.get(finalizer)
        if opposite is not None and opposite in result:
            result = [item for item in result if item != opposite]
        if finalizer not in result:
            result.append(finalizer)
    return result


def mark_deleting(
    stored: JSON, finalizers_to_add: tuple[str, ...], *, timestamp: str, revision: int
) -> tuple[JSON | None, bool]:
    """Decide a delete: ``(next_state, must_remove)``.

    With finalizers (existing or added) the object is marked instead of removed, as
    upstream's ``markAsDeleting``: generation +1 and ``deletionTimestamp`` the first time,
    ``deletionGracePeriodSeconds: 0``. ``next_state`` is None when the mark is already in
    place (a repeated delete writes nothing, like upstream's no-op update).

    A Namespace is marked as upstream's namespace storage does it (its ``spec.finalizers``
    keep it too): ``deletionTimestamp`` and ``status.phase: Terminating`` in one write,
    without a grace period; the namespace controller removes its content, then the
    ``kubernetes`` finalizer through ``/finalize``."""
    meta = _metadata(stored)
    existing = meta.get("finalizers") or []
    finalizers = _merge_finalizers(
        existing if isinstance(existing, list) else [], finalizers_to_add
    )
    held_by_spec = bool(namespace_finalizers(stored))
    if not finalizers and not held_by_spec:
        return None, True
    copied, new_meta = _copy_top(stored)
    if finalizers:
        new_meta["finalizers"] = finalizers
    if not new_meta.get("deletionTimestamp"):
        if _generation(new_meta) > 0:
            new_meta["generation"] = _generation(new_meta) + 1
        new_meta["deletionTimestamp"] = timestamp
    if stored.get("kind") == "Namespace":
        status = copied.get("status")
        copied["status"] = {**(status if isinstance(status, dict) else {}), "phase": "Terminating"}
    else:
        new_meta["deletionGracePeriodSeconds"] = 0
    if copied == stored:
        return None, False
    new_meta["resourceVersion"] = str(revision)
    return copied, False
