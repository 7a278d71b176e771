"""POST (create), PUT (update) and PATCH of a whole object over HTTP, and POST pods/binding.

Shells over ``operations.write_verbs``' ``create_object``/``update_object`` (which run the
``admission`` pipeline and write through the store) and ``operations.binding.create_binding``:
read the options and the body (413 for a too-large one), call the operation, answer 201/200
with the object (a Success ``Status`` for a binding) and one ``Warning`` header per warning
(unknown fields under ``fieldValidation=Warn``). ``write_named`` is the one shell for a write
to a named object; ``subresources`` runs its status, scale and finalize writes through it too.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response

from podscale.api.kinds import KindInfo
from podscale.apiserver.http.limits import read_body
from podscale.apiserver.operations import apply as operations_apply
from podscale.apiserver.operations import binding as operations_binding
from podscale.apiserver.operations import write_verbs as operations
from podscale.apiserver.operations.types import EncodedBody, Written
from podscale.apiserver.registry import admission
from podscale.apiserver.resources import Target
from podscale.apiserver.state import ServerState, json_response

__all__ = [
    "NamedWrite",
    "create_binding",
    "create_object",
    "encoded_body",
    "patch_object",
    "respond",
    "update_object",
    "warning_headers",
    "write_named",
]

# An operation writing one named object: (state, info, namespace, name, body, options).
NamedWrite = Callable[
    [ServerState, KindInfo, str | None, str, EncodedBody, admission.WriteOptions], Written
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


async def write_named(
    write: NamedWrite,
    state: ServerState,
    request: Request,
    info: KindInfo,
    target: Target,
    status_code: int = 200,
) -> Response:
    """Run ``write`` on the object ``target`` names with the request's options and body.

    The options are read before the body, so a bad query is refused before a large body is."""
    options = admission.write_options(request)
    body = await encoded_body(request)
    written = write(state, info, target.namespace, target.name or "", body, options)
    # A server-side apply that created its object answers 201, as a POST.
    return respond(written, 201 if written.created else status_code)


async def update_object(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    return await write_named(operations.update_object, state, request, info, target)


async def patch_object(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    return await write_named(operations_apply.patch_object, state, request, info, target)


async def create_binding(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    return await write_named(operations_binding.create_binding, state, request, info, target, 201)
