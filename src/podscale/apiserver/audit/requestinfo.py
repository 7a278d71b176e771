"""What a request is, for the audit log: kube-apiserver's RequestInfo, from method, path and query.

Pure. ``request_info`` resolves the resource shape with the server's own URL parser
(``podscale.apiserver.resources.parse_path``) and adds the authorization verb the way
upstream's request-info resolver does: GET/HEAD on an object is ``get``, on a collection
``list`` or, with ``watch=true`` (or the old ``/watch/`` path prefix), ``watch``; POST is
``create``, PUT ``update``, PATCH ``patch``, DELETE ``delete`` or, on a collection,
``deletecollection``. A list or watch whose field selector pins ``metadata.name`` names
that object. A Namespace is its own namespace (``/api/v1/namespaces/x`` has namespace
``x``). Anything else (``/healthz``, ``/version``, ``/openapi/v2``, discovery) is a
non-resource request whose verb is the lowercased HTTP method. ``event`` turns this into
an audit event's ``verb`` and ``objectRef``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import parse_qs

from podscale.apiserver.resources import parse_path

__all__ = ["LONG_RUNNING_SUBRESOURCES", "RequestInfo", "is_long_running", "request_info"]

_METHOD_VERBS: Final = {
    "GET": "get",
    "HEAD": "get",
    "POST": "create",
    "PUT": "update",
    "PATCH": "patch",
    "DELETE": "delete",
}
# Requests that stream: upstream's long-running check (watch, and these subresources).
LONG_RUNNING_SUBRESOURCES: Final = frozenset({"attach", "exec", "proxy", "log", "portforward"})
_FALSE_VALUES: Final = frozenset({"false", "0"})


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """A request as the authorizer and the audit log see it. Resource fields are "" when
    the request names no resource (or the part is absent)."""

    is_resource_request: bool
    verb: str
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""


def _is_watch(query: dict[str, list[str]]) -> bool:
    values = query.get("watch", [])
    return bool(values) and values[0].lower() not in _FALSE_VALUES


def _name_from_field_selector(query: dict[str, list[str]]) -> str:
    """The object a selector pins by ``metadata.name=x`` (or ``==``), else ""."""
    for selector in query.get("fieldSelector", [])[:1]:
        for term in selector.split(","):
            key, op, value = term.partition("==") if "==" in term else term.partition("=")
            if op and key.strip() == "metadata.name" and not key.endswith("!"):
                name = value.strip()
                # Only a name that could be a path segment, as upstream checks.
                if name and name not in (".", "..") and "/" not in name and "%" not in name:
                    return name
    return ""


def _strip_watch_prefix(path: str) -> tuple[str, bool]:
    """``/api/v1/watch/pods`` -> (``/api/v1/pods``, True): the deprecated watch paths."""
    parts = [p for p in path.split("/") if p]
    at = 2 if parts[:1] == ["api"] else 3 if parts[:1] == ["apis"] else 0
    if at and len(parts) > at and parts[at] == "watch":
        return "/" + "/".join(parts[:at] + parts[at + 1 :]), True
    return path, False


def request_info(method: str, path: str, query_string: str = "") -> RequestInfo:
    """The RequestInfo of ``method`` on ``path`` with ``query_string`` (undecoded)."""
    method = method.upper()
    stripped, watch_path = _strip_watch_prefix(path)
    target = parse_path(stripped)
    if target is None:
        return RequestInfo(is_resource_request=False, verb=method.lower())
    verb = _METHOD_VERBS.get(method, "")  # upstream leaves other methods without a verb
    query = parse_qs(query_string, keep_blank_values=True)
    name = target.name or ""
    namespace = target.namespace or ""
    if target.plural == "namespaces" and not target.group and target.namespace is None:
        namespace = name  # a Namespace is its own namespace, as upstream resolves it
    if watch_path:
        verb = "watch"
    elif not name and verb == "get":
        verb = "watch" if _is_watch(query) else "list"
    elif not name and verb == "delete":
        verb = "deletecollection"
    if not name and verb in ("list", "watch"):
        name = _name_from_field_selector(query)
    return RequestInfo(
        is_resource_request=True,
        verb=verb,
        api_group=target.group,
        api_version=target.version,
        resource=target.plural,
        subresource=target.subresource or "",
        namespace=namespace,
        name=name,
    )


def is_long_running(info: RequestInfo) -> bool:
    """Whether the response streams (a watch, logs, exec...): those get a ResponseStarted
    event when their headers go out, as upstream's audit filter writes for them."""
    return info.verb in ("watch", "proxy") or info.subresource in LONG_RUNNING_SUBRESOURCES
