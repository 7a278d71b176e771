"""``pods/log``, ``pods/exec``, ``pods/attach`` and ``pods/portforward`` over HTTP.

``routes`` sends these pod subresources here. Like upstream's pod REST storage, ``log``
first finds the pod (404), then the container: none named while the pod has several is
``a container name must be specified for pod X, choose one of: [a b]``, an unknown one
``container c is not valid for pod X`` (both 400). A pod not bound to a node has an empty
log, as upstream; otherwise the ``ContainerLogSource`` on ``ServerState.pod_logs`` (the
simulated kubelets) checks the container state and streams the log as ``text/plain``,
chunked, and for ``follow`` until the container ends. A node no kubelet of ours runs gets a
503. Options are parsed by ``pod_log_options``.

Simulated pods have no processes: ``exec``, ``attach`` and ``portforward`` (GET or POST,
websocket and SPDY upgrade requests alike; ``server`` keeps uvicorn from trying to upgrade
them) are answered with a 400 Status saying so, after the same pod and container checks.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import ApiError, bad_request, method_not_allowed, status_body
from podscale.apiserver.operations import verbs as operations
from podscale.apiserver.operations.pod_log_options import parse_log_options
from podscale.apiserver.resources import Target
from podscale.apiserver.state import ServerState

__all__ = ["POD_STREAM_SUBRESOURCES", "choose_container", "handle_pod_stream"]

JSON = dict[str, Any]
POD_STREAM_SUBRESOURCES: Final = frozenset({"log", "exec", "attach", "portforward"})
_TEXT: Final = "text/plain"
_NO_PROCESS: Final = {
    "exec": "has no process to exec into",
    "attach": "has no process to attach to",
    "portforward": "has no process listening on a port to forward to",
}


def _names(containers: Any) -> list[str]:
    return [str(c.get("name", "")) for c in containers or [] if isinstance(c, Mapping)]


def choose_container(pod: Mapping[str, Any], requested: str) -> str:
    """The container a request means, with upstream's 400s when that is unclear."""
    name = str((pod.get("metadata") or {}).get("name", ""))
    spec = pod.get("spec") or {}
    containers = _names(spec.get("containers"))
    if not requested:
        if len(containers) == 1:
            return containers[0]
        if not containers:
            raise bad_request(f"a container name must be specified for pod {name}")
        message = (
            f"a container name must be specified for pod {name}, "
            f"choose one of: [{' '.join(containers)}]"
        )
        init = _names(spec.get("initContainers"))
        if init:
            message += f" or one of the init containers: [{' '.join(init)}]"
        raise bad_request(message)
    known = containers + _names(spec.get("initContainers"))
    known += _names(spec.get("ephemeralContainers"))
    if requested not in known:
        raise bad_request(f"container {requested} is not valid for pod {name}")
    return requested


async def handle_pod_stream(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    sub = target.subresource or ""
    if request.method not in (("GET",) if sub == "log" else ("GET", "POST")):
        raise method_not_allowed()
    name = target.name or ""
    if sub == "log":
        options = parse_log_options(request.query_params, name)
    pod = operations.get_object(state, info, target.namespace, name)
    if sub == "portforward":
        raise bad_request(f"pod {name} is simulated by podscale and {_NO_PROCESS[sub]}")
    container = choose_container(pod, request.query_params.get("container") or "")
    if sub != "log":
        raise bad_request(
            f"pod {name} is simulated by podscale: container {container} {_NO_PROCESS[sub]}"
        )
    node = str((pod.get("spec") or {}).get("nodeName") or "")
    if not node:
        return Response(b"", media_type=_TEXT)
    source = state.pod_logs
    if source is None or not source.serves(node):
        message = f"no kubelet serves node {node}: podscale runs no simulated kubelet for it"
        raise ApiError(status_body(503, message, "ServiceUnavailable"))
    chunks = source.open(pod, container, options)
    if not options.follow:
        return Response(b"".join([c async for c in chunks]), media_type=_TEXT)
    return StreamingResponse(_until_gone(chunks, request), media_type=_TEXT)


async def _until_gone(chunks: AsyncIterator[bytes], request: Request) -> AsyncIterator[bytes]:
    # An idle source yields b"": the moment to notice a client that went away.
    async for chunk in chunks:
        if chunk:
            yield chunk
        elif await request.is_disconnected():
            return
