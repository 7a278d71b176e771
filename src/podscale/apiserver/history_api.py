"""The read-only history path: an object's state documents from the plane's history store.

``GET /apis/history.podscale.dev/v1/namespaces/{namespace}/state/{uid}`` answers
``{"uid": ..., "documents": {name: document}}`` with every document the history store
(``ServerState.history``, ``podscale.history.StateStore``) keeps under ``uid``, e.g. the HPA
controller's ``hpa/history`` and ``hpa/last-decision``; ``podscale describe hpa`` prints them.
No such documents (or no store) is a 404 ``NotFound`` Status, any other verb a 405. The
namespace is part of the path so the URL reads like any namespaced resource's; documents
are keyed by uid alone, which is unique across namespaces. Beyond upstream (nothing in
Kubernetes serves this); not listed in discovery, as podscale's metrics push extension is
not either. ``http.routes`` asks ``serve_history_api`` before the resource routes.
"""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from podscale.apiserver.errors import method_not_allowed, not_found, path_not_found
from podscale.apiserver.state import ServerState, json_response
from podscale.history import StateLister, StateStore
from podscale.history.paths import HISTORY_GROUP, STATE_PREFIX, state_path
from podscale.hpa.trace import LAST_DECISION_STATE

__all__ = ["HISTORY_GROUP", "serve_history_api", "state_path"]

JSON = dict[str, Any]
_PREFIX: Final = STATE_PREFIX
_RESOURCE: Final = f"state.{HISTORY_GROUP}"
# What a store that cannot list an object's documents is asked for (the HPA controller's).
_KNOWN_DOCUMENTS: Final = ("hpa/history", LAST_DECISION_STATE)


def _documents(history: StateStore, uid: str) -> dict[str, JSON]:
    if isinstance(history, StateLister):
        return history.state_of(uid)
    found = {name: history.get_state(uid, name) for name in _KNOWN_DOCUMENTS}
    return {name: document for name, document in found.items() if document is not None}


async def serve_history_api(state: ServerState, request: Request) -> Response | None:
    """The response for a history URL, or None for any other path."""
    path = request.url.path
    if not path.startswith(_PREFIX):
        return None
    parts = path[len(_PREFIX) :].split("/")
    shaped = (
        len(parts) == 5
        and parts[0] == "v1"
        and parts[1] == "namespaces"
        and parts[3] == "state"
        and all(parts[i] for i in (2, 4))
    )
    if not shaped or state.history is None:
        raise path_not_found()
    if request.method != "GET":
        raise method_not_allowed(["GET"])
    uid = parts[4]
    documents = _documents(state.history, uid)
    if not documents:
        raise not_found(_RESOURCE, uid)
    return json_response({"uid": uid, "documents": documents})
