"""GET of one object and LIST of a collection, as JSON or as a server-side printed Table.

Called by ``routes`` with a resolved ``Target``; ``watch`` takes over for ``?watch=true``.
Lists always carry ``metadata.resourceVersion`` and ``items: []`` (never null: strict clients
and kubectl's list-then-watch rely on both, kubectl-wire.md §3-4); ``limit``/``continue`` page
through one snapshot of the store; ``labelSelector``/``fieldSelector`` filter via ``selectors``.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from podscale.api.kinds import KindInfo
from podscale.apiserver import extensions
from podscale.apiserver.errors import bad_request, from_store_error
from podscale.apiserver.resources import Target, storage_resource, to_served
from podscale.apiserver.selectors import build_predicate
from podscale.apiserver.state import ServerState, json_response
from podscale.store.interface import StoreError

__all__ = ["get_object", "include_object_mode", "list_objects", "parse_limit"]

JSON = dict[str, Any]


def include_object_mode(request: Request) -> str:
    """``includeObject`` for Tables: None, Metadata (the default) or Object."""
    value = request.query_params.get("includeObject", "") or "Metadata"
    if value not in ("None", "Metadata", "Object"):
        raise bad_request(f'includeObject: Unsupported value: "{value}"')
    return value


def parse_limit(text: str | None) -> int | None:
    if not text:
        return None
    try:
        limit = int(text)
    except ValueError:
        raise bad_request(f'limit: Invalid value: "{text}": must be an integer') from None
    return limit if limit > 0 else None


def get_object(state: ServerState, request: Request, info: KindInfo, target: Target) -> Response:
    resource = storage_resource(info)
    name = target.name or ""
    try:
        stored = state.store.get(resource, target.namespace or "", name)
    except StoreError as err:
        raise from_store_error(err, resource, name) from None
    obj = to_served(stored, info)
    if extensions.wants_table(request.headers.get("accept")):
        rv = str(obj.get("metadata", {}).get("resourceVersion", ""))
        table = extensions.table_for(
            info,
            [obj],
            include_object=include_object_mode(request),
            resource_version=rv,
            now=state.clock.now(),
        )
        return json_response(table)
    return json_response(obj)


def list_objects(state: ServerState, request: Request, info: KindInfo, target: Target) -> Response:
    query = request.query_params
    predicate, _ = build_predicate(info, query)
    resource = storage_resource(info)
    namespace = target.namespace if info.namespaced else None
    try:
        result = state.store.list(
            resource,
            namespace,
            predicate=predicate,
            limit=parse_limit(query.get("limit")),
            continue_token=query.get("continue") or None,
        )
    except StoreError as err:
        raise from_store_error(err, resource, "") from None
    items = [to_served(item, info) for item in result.items]
    metadata: JSON = {"resourceVersion": str(result.revision)}
    if result.continue_token:
        metadata["continue"] = result.continue_token
        if result.remaining is not None:
            metadata["remainingItemCount"] = result.remaining
    if extensions.wants_table(request.headers.get("accept")):
        table = extensions.table_for(
            info,
            items,
            include_object=include_object_mode(request),
            resource_version=metadata["resourceVersion"],
            now=state.clock.now(),
        )
        if "continue" in metadata:
            table.setdefault("metadata", {})["continue"] = metadata["continue"]
        return json_response(table)
    for item in items:
        # Items of a typed list carry no kind/apiVersion in Go's encoding; clients accept both,
        # but keeping them lets `kubectl get -o yaml` round-trip items as given.
        item.setdefault("apiVersion", info.api_version)
        item.setdefault("kind", info.kind)
    return json_response(
        {
            "kind": info.list_kind,
            "apiVersion": info.api_version,
            "metadata": metadata,
            "items": items,
        }
    )
