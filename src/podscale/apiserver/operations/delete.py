"""The delete verbs without HTTP: delete of one object and deletecollection.

Takes parsed ``DeleteOptions`` (``operations.types``); ``handlers_delete`` reads them from the
body and query, the in-process client builds them. The propagation policy maps to the
finalizer upstream's deletion strategy adds (Orphan -> ``orphan``, Foreground ->
``foregroundDeletion``; Background or unset -> none; the garbage collector acts on them later).
Replies as kube-apiserver: 202 with the object while finalizers keep it, else the deleted
object for pods and a ``Status`` Success (``details`` name/group/kind/uid) for the rest.
Pods are deleted gracefully (``operations.graceful``): a bound pod is marked with a
``deletionTimestamp`` and the reply is the marked pod (200) until its kubelet deletes it.
Namespaces have their own delete (``operations.namespace``: Terminating, then finalized).
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api import invalid_status
from podscale.api.field_errors import not_supported
from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.definitions import is_definition
from podscale.apiserver.customresources.lifecycle import delete_definition
from podscale.apiserver.errors import ApiError, from_store_error
from podscale.apiserver.operations.graceful import plan_graceful_delete
from podscale.apiserver.operations.namespace import delete_namespace
from podscale.apiserver.operations.selectors import build_predicate
from podscale.apiserver.operations.types import Deleted, DeleteOptions
from podscale.apiserver.resources import storage_resource, to_served
from podscale.apiserver.state import ServerState
from podscale.store.interface import ConflictError, DeleteResult, StoreError
from podscale.store.objects import check_preconditions, error_conflict

__all__ = ["delete_collection", "delete_object", "finalizers_for"]

JSON = dict[str, Any]

_POLICY_FINALIZERS: Final = {"Orphan": ("orphan",), "Foreground": ("foregroundDeletion",)}
_POLICIES: Final = ("Background", "Foreground", "Orphan")
# Upstream's pod storage returns the deleted object (ReturnDeletedObject); others a Status.
_RETURNS_OBJECT: Final = frozenset({"Pod"})
# Kinds whose strategy implements graceful deletion (upstream: only pods among these).
_GRACEFUL: Final = frozenset({"Pod"})
_GRACEFUL_ATTEMPTS: Final = 5


def finalizers_for(options: DeleteOptions) -> tuple[str, ...]:
    """The finalizer the propagation policy adds; 422 for a policy upstream does not know.
    ``orphanDependents: true`` without a policy means Orphan (the deprecated spelling)."""
    policy = options.propagation_policy
    if policy and policy not in _POLICIES:
        error = not_supported("propagationPolicy", policy, _POLICIES)
        raise ApiError(invalid_status("DeleteOptions", "meta.k8s.io", "", [error]))
    if not policy and options.orphan_dependents is True:
        policy = "Orphan"
    return _POLICY_FINALIZERS.get(policy, ())


def _success(info: KindInfo, obj: JSON) -> JSON:
    metadata = obj.get("metadata") or {}
    details: JSON = {"name": metadata.get("name", "")}
    if info.group:
        details["group"] = info.group
    details["kind"] = info.plural
    details["uid"] = metadata.get("uid", "")
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    }


def delete_object(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    options: DeleteOptions,
) -> Deleted:
    finalizers = finalizers_for(options)
    if is_definition(info):
        return delete_definition(state, info, name, options, finalizers)
    if info.kind == "Namespace" and not info.group:
        return delete_namespace(state, info, name, options, finalizers)
    resource = storage_resource(info)
    try:
        if options.dry_run:
            current = state.store.get(resource, namespace or "", name)
            return Deleted(to_served(current, info))
        if info.kind in _GRACEFUL:
            result = _delete_gracefully(state, resource, namespace or "", name, options, finalizers)
        else:
            result = state.store.delete(
                resource,
                namespace or "",
                name,
                preconditions=options.preconditions,
                finalizers_to_add=finalizers,
            )
    except StoreError as err:
        raise from_store_error(err, resource, name) from None
    obj = to_served(result.object, info)
    if not result.deleted:
        if _grace_pending(result.object):
            return Deleted(obj)
        return Deleted(obj, 202)
    if info.kind in _RETURNS_OBJECT:
        return Deleted(obj)
    return Deleted(_success(info, obj))


def _grace_pending(obj: JSON) -> bool:
    grace = (obj.get("metadata") or {}).get("deletionGracePeriodSeconds")
    return isinstance(grace, int) and not isinstance(grace, bool) and grace > 0


def _with_finalizers(obj: JSON, finalizers: tuple[str, ...]) -> JSON:
    meta = obj.setdefault("metadata", {})
    existing = list(meta.get("finalizers") or [])
    added = [item for item in finalizers if item not in existing]
    if added:
        meta["finalizers"] = existing + added
    return obj


def _delete_gracefully(
    state: ServerState,
    resource: str,
    namespace: str,
    name: str,
    options: DeleteOptions,
    finalizers: tuple[str, ...],
) -> DeleteResult:
    """Mark, shorten or delete a pod; an update lost to a concurrent write is retried on
    the fresh state, as upstream's ``GuaranteedUpdate``."""
    for _ in range(_GRACEFUL_ATTEMPTS):
        current = state.store.get(resource, namespace, name)
        check_preconditions(resource, current, options.preconditions)
        plan = plan_graceful_delete(current, options.grace_period_seconds, state.clock.now())
        if plan.immediate:
            return state.store.delete(
                resource,
                namespace,
                name,
                preconditions=options.preconditions,
                finalizers_to_add=finalizers,
            )
        if plan.marked is None:
            return DeleteResult(object=current, deleted=False)
        try:
            updated = state.store.update(resource, _with_finalizers(plan.marked, finalizers))
        except ConflictError:
            continue
        return DeleteResult(object=updated, deleted=False)
    raise error_conflict(resource, name)


def delete_collection(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    options: DeleteOptions,
    *,
    label_selector: str = "",
    field_selector: str = "",
) -> JSON:
    """Delete every object the selectors match; the reply lists them (upstream's XList)."""
    selectors = {"labelSelector": label_selector, "fieldSelector": field_selector}
    predicate, _ = build_predicate(info, selectors)
    finalizers = finalizers_for(options)
    resource = storage_resource(info)
    try:
        listed = state.store.list(
            resource, namespace if info.namespaced else None, predicate=predicate
        )
    except StoreError as err:
        raise from_store_error(err, resource, "") from None
    items: list[JSON] = []
    for item in listed.items:
        meta = item.get("metadata") or {}
        if options.dry_run:
            items.append(to_served(item, info))
            continue
        item_namespace = str(meta.get("namespace") or "")
        item_name = str(meta.get("name", ""))
        try:
            if info.kind in _GRACEFUL:
                gentle = DeleteOptions(grace_period_seconds=options.grace_period_seconds)
                result = _delete_gracefully(
                    state, resource, item_namespace, item_name, gentle, finalizers
                )
            else:
                result = state.store.delete(
                    resource, item_namespace, item_name, finalizers_to_add=finalizers
                )
        except StoreError:
            continue  # deleted concurrently: upstream skips it too
        items.append(to_served(result.object, info))
    return {
        "kind": info.list_kind,
        "apiVersion": info.api_version,
        "metadata": {"resourceVersion": str(state.store.revision)},
        "items": items,
    }
