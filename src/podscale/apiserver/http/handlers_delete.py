"""DELETE of one object and of a collection (deletecollection) over HTTP.

Shells over ``operations.delete``: ``DeleteOptions`` come from a JSON body or the query
(``propagationPolicy``, ``orphanDependents``, ``dryRun``, ``gracePeriodSeconds``); the body
also carries ``preconditions``. The operation validates the policy and answers with the body
and code (200, or 202 while finalizers keep the object; kubectl-wire.md §5 accepts every
shape).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import bad_request
from podscale.apiserver.http.limits import decode_json, read_body, require_json_media_type
from podscale.apiserver.operations import delete as operations_delete
from podscale.apiserver.operations.types import DeleteOptions
from podscale.apiserver.resources import Target
from podscale.apiserver.state import ServerState, json_response, query_flag
from podscale.store.interface import Preconditions

__all__ = ["delete_collection", "delete_object", "parse_delete_options"]

JSON = dict[str, Any]


async def parse_delete_options(request: Request) -> DeleteOptions:
    """``DeleteOptions`` from the body (JSON) and the query; the body wins where both say."""
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
    raw = options.get("preconditions") or {}
    if not isinstance(raw, dict):
        raise bad_request(
            "couldn't get version/kind; json parse error: preconditions must be an object"
        )
    preconditions = Preconditions(
        uid=raw.get("uid") or None, resource_version=raw.get("resourceVersion") or None
    )
    dry_run = options.get("dryRun") or query.getlist("dryRun")
    grace = options.get("gracePeriodSeconds")
    if grace is None and "gracePeriodSeconds" in query:
        grace = _parse_grace(query.get("gracePeriodSeconds", ""))
    if grace is not None and (not isinstance(grace, int) or isinstance(grace, bool)):
        raise bad_request(
            "couldn't get version/kind; json parse error: gracePeriodSeconds must be an integer"
        )
    return DeleteOptions(
        propagation_policy=str(policy),
        orphan_dependents=orphan if isinstance(orphan, bool) else None,
        preconditions=preconditions,
        dry_run=bool(dry_run),
        grace_period_seconds=grace,
    )


def _parse_grace(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise bad_request(f'strconv.ParseInt: parsing "{text}": invalid syntax') from None


async def delete_object(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    options = await parse_delete_options(request)
    deleted = operations_delete.delete_object(
        state, info, target.namespace, target.name or "", options
    )
    return json_response(deleted.body, deleted.code)


async def delete_collection(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    """Delete every object the selectors match; the reply lists them (upstream's XList)."""
    options = await parse_delete_options(request)
    query = request.query_params
    body = operations_delete.delete_collection(
        state,
        info,
        target.namespace,
        options,
        label_selector=query.get("labelSelector", ""),
        field_selector=query.get("fieldSelector", ""),
    )
    return json_response(body)
