"""The CRD side of the server: status upkeep, deletion and cleanup of custom resources.

Upstream runs the naming, establishing and finalizer controllers inside the apiextensions
server; podscale runs the same decisions (``conditions``) synchronously, whenever the custom
kinds are read after the CRDs changed (``custom_kinds``) and after every write of a CRD or a
custom resource (``settle``, called by the transports). That keeps a bare API server, with no
controller running, behaving as kube-apiserver does a moment after each write, and makes
tests deterministic.

- ``custom_kinds(state)``: the current kinds, after writing any CRD status that is stale
  (``acceptedNames``, ``NamesAccepted``, ``Established``, ``storedVersions``).
- ``delete_definition``: upstream's CRD delete: the ``customresourcecleanup.apiextensions.k8s.io``
  finalizer and the ``Terminating`` condition (``InstanceDeletionPending``), never a direct
  delete while custom resources may remain.
- ``finalize_definition``: the finalizer controller: ``InstanceDeletionInProgress``, every
  custom resource deleted, and once none is left ``InstanceDeletionCompleted`` and the
  finalizer removed, which lets the store delete the CRD. Resources held by their own
  finalizers keep the CRD until a later write removes them (``settle`` runs again then).
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.conditions import (
    reconcile_status,
    set_condition,
    terminating_condition,
)
from podscale.apiserver.customresources.definitions import (
    CLEANUP_FINALIZER,
    CRD_RESOURCE,
    CustomKind,
    condition_true,
    is_definition,
)
from podscale.apiserver.customresources.definitions import (
    custom_kinds as kinds_of_definition,
)
from podscale.apiserver.customresources.registry import CustomKinds
from podscale.apiserver.errors import from_store_error
from podscale.apiserver.operations.types import Deleted, DeleteOptions
from podscale.apiserver.resources import to_served
from podscale.apiserver.state import ServerState
from podscale.store.interface import StoreError
from podscale.store.objects import check_preconditions

__all__ = [
    "custom_kinds",
    "delete_definition",
    "finalize_definition",
    "settle",
]

JSON = dict[str, Any]

_PASSES: Final = 3


def _creation_order(crd: JSON) -> tuple[str, str]:
    meta = crd.get("metadata") or {}
    return (str(meta.get("creationTimestamp", "")), str(meta.get("name", "")))


def _write_status(state: ServerState, crd: JSON, status: JSON) -> JSON | None:
    """Store ``crd`` with ``status``; None when it changed or went meanwhile (the next read
    reconciles again, as upstream's controllers retry on a conflict)."""
    updated = copy.deepcopy(crd)
    updated["status"] = status
    try:
        return state.store.update(CRD_RESOURCE, updated)
    except StoreError:
        return None


def _reconcile(state: ServerState, kinds: CustomKinds) -> bool:
    """Write every stale CRD status, older CRDs first (they keep contested names)."""
    definitions = sorted((copy.deepcopy(c) for c in kinds.definitions), key=_creation_order)
    wrote = False
    now = state.clock.now()
    for index, crd in enumerate(definitions):
        if (crd.get("metadata") or {}).get("deletionTimestamp"):
            continue
        status = reconcile_status(crd, definitions, now)
        if status is None:
            continue
        written = _write_status(state, crd, status)
        wrote = True
        if written is not None:
            definitions[index] = written
    for crd in definitions:
        meta = crd.get("metadata") or {}
        if meta.get("deletionTimestamp") and CLEANUP_FINALIZER in (meta.get("finalizers") or []):
            wrote = finalize_definition(state, crd) or wrote
    return wrote


def custom_kinds(state: ServerState) -> CustomKinds:
    """The server's custom kinds, with the CRDs' status brought up to date first."""
    registry = state.custom_kinds
    kinds = registry.current(state.store)
    for _ in range(_PASSES):
        if registry.reconciled(kinds):
            break
        wrote = _reconcile(state, kinds)
        registry.mark_reconciled(kinds)
        if not wrote:
            break
        kinds = registry.current(state.store)
    return kinds


def settle(state: ServerState, info: KindInfo) -> None:
    """After a write of a CRD or a custom resource: let the CRD controllers catch up."""
    if is_definition(info):
        custom_kinds(state)
    elif isinstance(info, CustomKind) and info.crd_name:
        crd = custom_kinds(state).definition(info.crd_name)
        if crd is not None and (crd.get("metadata") or {}).get("deletionTimestamp"):
            finalize_definition(state, crd)


def _instances(state: ServerState, crd: JSON) -> list[JSON]:
    kinds = kinds_of_definition(crd)
    if not kinds:
        return []
    resource = f"{kinds[0].plural}.{kinds[0].group}"
    return state.store.list(resource).items


def finalize_definition(state: ServerState, crd: JSON) -> bool:
    """One pass of upstream's CRD finalizer over a CRD being deleted (see the module doc);
    whether it wrote anything."""
    meta = crd.get("metadata") or {}
    if CLEANUP_FINALIZER not in (meta.get("finalizers") or []):
        return False
    now = state.clock.now()
    status = copy.deepcopy(crd.get("status") or {})
    kinds = kinds_of_definition(crd)
    if not condition_true(crd, "Established") or not kinds:
        condition = terminating_condition(
            "NeverEstablished", "resource was never established", status="False"
        )
    else:
        resource = f"{kinds[0].plural}.{kinds[0].group}"
        for item in _instances(state, crd):
            item_meta = item.get("metadata") or {}
            if item_meta.get("deletionTimestamp"):
                continue
            try:
                state.store.delete(
                    resource, str(item_meta.get("namespace") or ""), str(item_meta.get("name"))
                )
            except StoreError:
                continue  # deleted meanwhile
        if _instances(state, crd):
            condition = terminating_condition(
                "InstanceDeletionInProgress", "CustomResource deletion is in progress"
            )
        else:
            condition = terminating_condition(
                "InstanceDeletionCompleted", "removed all instances", status="False"
            )
    set_condition(status, condition, now)
    updated = copy.deepcopy(crd)
    updated["status"] = status
    if condition["status"] == "False":
        finalizers = [f for f in meta.get("finalizers") or [] if f != CLEANUP_FINALIZER]
        updated["metadata"]["finalizers"] = finalizers
    if updated == crd:
        return False
    # A CRD changed meanwhile is left to the next settle, as upstream's controller retries.
    with contextlib.suppress(StoreError):
        state.store.update(CRD_RESOURCE, updated)
    return True


def delete_definition(
    state: ServerState,
    info: KindInfo,
    name: str,
    options: DeleteOptions,
    finalizers: tuple[str, ...],
) -> Deleted:
    """DELETE of a CRD: marked with the cleanup finalizer and ``Terminating``; the reply is
    the marked CRD (200), as upstream's CRD storage answers."""
    try:
        current = state.store.get(CRD_RESOURCE, "", name)
        check_preconditions(CRD_RESOURCE, current, options.preconditions)
        if options.dry_run:
            return Deleted(to_served(current, info))
        meta = current.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            result = state.store.delete(CRD_RESOURCE, "", name, preconditions=options.preconditions)
            return Deleted(to_served(result.object, info))
        marked = state.store.delete(
            CRD_RESOURCE,
            "",
            name,
            preconditions=options.preconditions,
            finalizers_to_add=(*finalizers, CLEANUP_FINALIZER),
        ).object
        status = copy.deepcopy(marked.get("status") or {})
        pending = terminating_condition(
            "InstanceDeletionPending",
            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        )
        set_condition(status, pending, state.clock.now())
        marked["status"] = status
        stored = state.store.update(CRD_RESOURCE, marked)
    except StoreError as err:
        raise from_store_error(err, CRD_RESOURCE, name) from None
    return Deleted(to_served(stored, info))
