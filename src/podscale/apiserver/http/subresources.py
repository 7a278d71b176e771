"""The ``status``, ``scale`` and ``finalize`` subresources over HTTP.

Shells over ``operations.subresources`` (which holds the semantics: status writes keep the
spec and the protected metadata; scale writes set the parent's ``spec.replicas`` under
optimistic concurrency). GET answers the object or its Scale; PUT sends the body, PATCH the
patch in its Content-Type's format; writes answer 200 with ``Warning`` headers.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from podscale.api.kinds import KindInfo
from podscale.apiserver.http.handlers_write import encoded_body, respond
from podscale.apiserver.operations import (
    namespace as operations_namespace,
)
from podscale.apiserver.operations import (
    subresources as operations_subresources,
)
from podscale.apiserver.operations import (
    verbs as operations,
)
from podscale.apiserver.operations.subresources import scale_of
from podscale.apiserver.registry import admission
from podscale.apiserver.resources import Target
from podscale.apiserver.state import ServerState, json_response

__all__ = ["handle_finalize", "handle_scale", "handle_status", "scale_of"]


async def handle_status(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    name = target.name or ""
    if request.method == "GET":
        return json_response(operations.get_object(state, info, target.namespace, name))
    options = admission.write_options(request)
    body = await encoded_body(request)
    if request.method == "PATCH":
        written = operations_subresources.patch_status(
            state, info, target.namespace, name, body, options
        )
    else:
        written = operations_subresources.update_status(
            state, info, target.namespace, name, body, options
        )
    return respond(written, 200)


async def handle_scale(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    name = target.name or ""
    if request.method == "GET":
        return json_response(operations_subresources.get_scale(state, info, target.namespace, name))
    options = admission.write_options(request)
    body = await encoded_body(request)
    if request.method == "PATCH":
        written = operations_subresources.patch_scale(
            state, info, target.namespace, name, body, options
        )
    else:
        written = operations_subresources.update_scale(
            state, info, target.namespace, name, body, options
        )
    return respond(written, 200)


async def handle_finalize(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    """PUT ``namespaces/{name}/finalize`` (the router allows no other verb)."""
    options = admission.write_options(request)
    body = await encoded_body(request)
    written = operations_namespace.update_finalize(
        state, info, target.namespace, target.name or "", body, options
    )
    return respond(written, 200)
