"""The ``status``, ``scale`` and ``finalize`` subresources over HTTP.

Shells over ``operations.subresources`` (which holds the semantics: status writes keep the
spec and the protected metadata; scale writes set the parent's ``spec.replicas`` under
optimistic concurrency). GET answers the object or its Scale; PUT sends the body, PATCH the
patch in its Content-Type's format; writes answer 200 with ``Warning`` headers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from podscale.api.kinds import KindInfo
from podscale.apiserver.http.handlers_write import NamedWrite, write_named
from podscale.apiserver.operations import apply as operations_apply
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
from podscale.apiserver.resources import Target
from podscale.apiserver.state import ServerState, json_response

__all__ = ["handle_finalize", "handle_scale", "handle_status", "scale_of"]

JSON = dict[str, Any]


# Reads one named object's view: (state, info, namespace, name).
NamedRead = Callable[[ServerState, KindInfo, str | None, str], JSON]


async def _read_or_write(
    read: NamedRead,
    update: NamedWrite,
    patch: NamedWrite,
    state: ServerState,
    request: Request,
    info: KindInfo,
    target: Target,
) -> Response:
    """GET answers ``read``; PATCH runs ``patch``, PUT ``update``."""
    if request.method == "GET":
        return json_response(read(state, info, target.namespace, target.name or ""))
    write = patch if request.method == "PATCH" else update
    return await write_named(write, state, request, info, target)


async def handle_status(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    status = operations_subresources
    return await _read_or_write(
        operations.get_object,
        status.update_status,
        operations_apply.patch_status,
        state,
        request,
        info,
        target,
    )


async def handle_scale(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    update, patch = operations_subresources.update_scale, operations_apply.patch_scale
    return await _read_or_write(
        operations_subresources.get_scale, update, patch, state, request, info, target
    )


async def handle_finalize(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    """PUT ``namespaces/{name}/finalize`` (the router allows no other verb)."""
    return await write_named(operations_namespace.update_finalize, state, request, info, target)
