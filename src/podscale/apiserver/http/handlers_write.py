"""POST (create), PUT (update) and PATCH of a whole object over HTTP, and POST pods/binding.

Shells over ``operations.create_object``/``update_object``/``patch_object`` (which run the
``admission`` pipeline and write through the store) and ``operations.binding.create_binding``:
read the options and the body (413 for a too-large one), call the operation, answer 201/200
with the object (a Success ``Status`` for a binding) and one ``Warning`` header per warning
(unknown fields under ``fieldValidation=Warn``).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from podscale.api.kinds import KindInfo
from podscale.apiserver.http.limits import read_body
from podscale.apiserver.operations import binding as operations_binding
from podscale.apiserver.operations import verbs as operations
from podscale.apiserver.operations.types import EncodedBody, Written
from podscale.apiserver.registry import admission
from podscale.apiserver.resources import Target
from podscale.apiserver.state import ServerState, json_response

__all__ = [
    "create_binding",
    "create_object",
    "encoded_body",
    "patch_object",
    "respond",
    "update_object",
    "warning_headers",
]


def warning_headers(warnings: list[str]) -> list[tuple[str, str]]:
    """``Warning: 299 - "<text>"`` headers, one per warning (RFC 7234 form, as upstream)."""
    return [
        ("warning", '299 - "' + w.replace("\\", "\\\\").replace('"', '\\"') + '"') for w in warnings
    ]


def respond(written: Written, status_code: int) -> Response:
    response = json_response(written.object, status_code)
    for key, value in warning_headers(written.warnings):
        response.headers.append(key, value)
    return response


async def encoded_body(request: Request) -> EncodedBody:
    """The (size-limited) body and its Content-Type, decoded later by the operation."""
    return EncodedBody(await read_body(request), request.headers.get("content-type"))


async def create_object(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    options = admission.write_options(request)
    body = await encoded_body(request)
    return respond(operations.create_object(state, info, target.namespace, body, options), 201)


async def update_object(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    options = admission.write_options(request)
    body = await encoded_body(request)
    written = operations.update_object(
        state, info, target.namespace, target.name or "", body, options
    )
    return respond(written, 200)


async def patch_object(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    options = admission.write_options(request)
    patch = await encoded_body(request)
    written = operations.patch_object(
        state, info, target.namespace, target.name or "", patch, options
    )
    return respond(written, 200)


async def create_binding(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    options = admission.write_options(request)
    body = await encoded_body(request)
    written = operations_binding.create_binding(
        state, info, target.namespace, target.name or "", body, options
    )
    return respond(written, 201)
