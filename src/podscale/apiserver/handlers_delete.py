"""DELETE of one object and of a collection (deletecollection), with ``DeleteOptions``.

Options come from a JSON body or the query (``propagationPolicy``, ``dryRun``); the body also
carries ``preconditions``. The propagation policy maps to the finalizer upstream's deletion
strategy adds (Orphan -> ``orphan``, Foreground -> ``foregroundDeletion``; Background or unset
-> none; the garbage collector acts on them later). Replies as kube-apiserver: 202 with the
object while finalizers keep it, else the deleted object for pods and a ``Status`` Success
(``details`` name/group/kind/uid) for the rest (kubectl-wire.md §5 accepts all three).
"""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from podscale.api import invalid_status
from podscale.api.field_errors import not_supported
from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import ApiError, bad_request, from_store_error
from podscale.apiserver.limits import decode_json, read_body, require_json_media_type
from podscale.apiserver.resources import Target, storage_resource, to_served
from podscale.apiserver.selectors import build_predicate
from podscale.apiserver.state import ServerState, json_response, query_flag
from podscale.store.interface import Preconditions, StoreError

__all__ = ["delete_collection", "delete_object", "parse_delete_options"]

JSON = dict[str, Any]

_POLICY_FINALIZERS: Final = {"Orphan": ("orphan",), "Foreground": ("foregroundDeletion",)}
_POLICIES: Final = ("Background", "Foreground", "Orphan")
# Upstream's pod storage returns the deleted object (ReturnDeletedObject); others a Status.
_RETURNS_OBJECT: Final = frozenset({"Pod"})


async def parse_delete_options(request: Request) -> tuple[tuple[str, ...], Preconditions, bool]:
    """(finalizers to add, preconditions, dry run) from the body and the query."""
    body = await read_body(request)
    options: JSON = {}
    if body.strip():
        require_json_media_type(request.headers.get("content-type"))
        decoded = decode_json(body)
        if not isinstance(decoded, dict):
            raise bad_request(
                "couldn't get version/kind; json parse error: DeleteOptions must be an object"
            )
        options = decoded
    query = request.query_params
    policy = options.get("propagationPolicy") or query.get("propagationPolicy") or ""
    orphan = options.get("orphanDependents")
    if orphan is None and "orphanDependents" in query:
        orphan = query_flag(query.get("orphanDependents"))
    if policy and policy not in _POLICIES:
        error = not_supported("propagationPolicy", policy, _POLICIES)
        raise ApiError(invalid_status("DeleteOptions", "meta.k8s.io", "", [error]))
    if not policy and orphan is True:
        policy = "Orphan"
    raw = options.get("preconditions") or {}
    if not isinstance(raw, dict):
        raise bad_request(
            "couldn't get version/kind; json parse error: preconditions must be an object"
        )
    preconditions = Preconditions(
        uid=raw.get("uid") or None, resource_version=raw.get("resourceVersion") or None
    )
    dry_run = options.get("dryRun") or query.getlist("dryRun")
    return _POLICY_FINALIZERS.get(str(policy), ()), preconditions, bool(dry_run)


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


async def delete_object(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    finalizers, preconditions, dry_run = await parse_delete_options(request)
    resource = storage_resource(info)
    name = target.name or ""
    try:
        if dry_run:
            current = state.store.get(resource, target.namespace or "", name)
            return json_response(to_served(current, info))
        result = state.store.delete(
            resource,
            target.namespace or "",
            name,
            preconditions=preconditions,
            finalizers_to_add=finalizers,
        )
    except StoreError as err:
        raise from_store_error(err, resource, name) from None
    obj = to_served(result.object, info)
    if not result.deleted:
        return json_response(obj, 202)
    if info.kind in _RETURNS_OBJECT:
        return json_response(obj)
    return json_response(_success(info, obj))


async def delete_collection(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    """Delete every object the selectors match; the reply lists them (upstream's XList)."""
    predicate, _ = build_predicate(info, request.query_params)
    finalizers, _, dry_run = await parse_delete_options(request)
    resource = storage_resource(info)
    namespace = target.namespace if info.namespaced else None
    try:
        listed = state.store.list(resource, namespace, predicate=predicate)
    except StoreError as err:
        raise from_store_error(err, resource, "") from None
    items: list[JSON] = []
    for item in listed.items:
        meta = item.get("metadata") or {}
        if dry_run:
            items.append(to_served(item, info))
            continue
        try:
            result = state.store.delete(
                resource,
                str(meta.get("namespace") or ""),
                str(meta.get("name", "")),
                finalizers_to_add=finalizers,
            )
        except StoreError:
            continue  # deleted concurrently: upstream skips it too
        items.append(to_served(result.object, info))
    return json_response(
        {
            "kind": info.list_kind,
            "apiVersion": info.api_version,
            "metadata": {"resourceVersion": str(state.store.revision)},
            "items": items,
        }
    )
