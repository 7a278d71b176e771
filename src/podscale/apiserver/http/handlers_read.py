"""GET of one object and LIST of a collection over HTTP, as JSON or as a printed Table.

A shell over ``operations.get_object``/``operations.list_verbs``: reads the query, calls the
operation, formats the answer. Called by ``routes`` with a resolved ``Target``; ``watch`` takes
over for ``?watch=true``. Lists always carry ``metadata.resourceVersion`` and ``items: []``
(never null: strict clients and kubectl's list-then-watch rely on both, kubectl-wire.md §3-4);
``limit``/``continue`` page through one snapshot of the store; ``resourceVersion`` and
``resourceVersionMatch`` pick which one (``list_options``), waiting briefly for a revision
the store has not reached yet. A LIST is then read, converted and encoded on a worker thread
through ``fairness.HeavyWork``, so large ones do not hold the loop (and every small request
behind it) for their whole duration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

import podscale.apiserver.extensions as extensions
from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import bad_request
from podscale.apiserver.operations import list_verbs
from podscale.apiserver.operations import verbs as operations
from podscale.apiserver.resources import Target
from podscale.apiserver.state import ServerState, json_response

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
    obj = operations.get_object(state, info, target.namespace, target.name or "")
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


async def list_objects(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    query = request.query_params
    accept = request.headers.get("accept")
    await list_verbs.wait_for_list_revision(
        state,
        info,
        resource_version=query.get("resourceVersion", ""),
        resource_version_match=query.get("resourceVersionMatch", ""),
        limit=parse_limit(query.get("limit")),
        continue_token=query.get("continue") or None,
    )
    # Query checks that do not need the store answer before the list is queued.
    include_object = include_object_mode(request) if extensions.wants_table(accept) else ""
    limit = parse_limit(query.get("limit"))
    body = await state.heavy_work.run(
        _list_body, state, info, target, query, limit=limit, include_object=include_object
    )
    return Response(body, media_type="application/json")


def _list_body(
    state: ServerState,
    info: KindInfo,
    target: Target,
    query: Mapping[str, str],
    *,
    limit: int | None,
    include_object: str,
) -> bytes:
    """The encoded LIST (or Table, when ``include_object`` is set) answer; runs on a thread."""
    page = list_verbs.list_page(
        state,
        info,
        target.namespace,
        label_selector=query.get("labelSelector", ""),
        field_selector=query.get("fieldSelector", ""),
        limit=limit,
        continue_token=query.get("continue") or None,
        resource_version=query.get("resourceVersion", ""),
        resource_version_match=query.get("resourceVersionMatch", ""),
    )
    if include_object:
        table = extensions.table_for(
            info,
            page.items,
            include_object=include_object,
            resource_version=page.metadata["resourceVersion"],
            now=state.clock.now(),
        )
        if "continue" in page.metadata:
            table.setdefault("metadata", {})["continue"] = page.metadata["continue"]
        return orjson.dumps(table)
    return orjson.dumps(list_verbs.list_body(info, page))
