"""The NamespaceLifecycle admission plugin: writes into namespaces that are gone or going.

kube-apiserver's ``NamespaceLifecycle`` (``k8s.io/apiserver/pkg/admission/plugin/namespace/
lifecycle``), which runs on every create, update and delete before validation:

- ``default``, ``kube-system`` and ``kube-public`` may never be deleted (403 Forbidden,
  ``namespaces "default" is forbidden: this namespace may not be deleted``);
- a create or update of a namespaced object in a namespace that does not exist is the
  namespace lookup's own 404 (``namespaces "x" not found``);
- a create in a Terminating namespace is 403 Forbidden, with a ``NamespaceTerminating``
  cause on ``metadata.namespace``, so controllers cannot refill a namespace being emptied;
- deletes of namespaced objects, and every write to Namespaces themselves, pass.

``decide`` is the pure rule over the namespace as stored (or None); ``admit`` reads it from
the store. ``operations`` (create/update/patch), ``operations.subresources`` (status),
``operations.binding`` and ``operations.namespace`` (namespace delete) call ``admit``.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import ApiError, not_found, status_body
from podscale.apiserver.state import ServerState
from podscale.store.interface import NotFoundError

__all__ = [
    "IMMORTAL_NAMESPACES",
    "NAMESPACE_TERMINATING_CAUSE",
    "Operation",
    "admit",
    "decide",
    "forbidden",
    "request_name",
]

JSON = dict[str, Any]
Operation = Literal["create", "update", "delete"]

# The plugin's immortal namespaces (kube-node-lease is not one of them upstream).
IMMORTAL_NAMESPACES: Final = frozenset({"default", "kube-system", "kube-public"})
# core/v1 NamespaceTerminatingCause.
NAMESPACE_TERMINATING_CAUSE: Final = "NamespaceTerminating"


def forbidden(resource: str, name: str, reason: str, causes: list[JSON] | None = None) -> ApiError:
    """apimachinery's ``NewForbidden``: ``<resource> "<name>" is forbidden: <reason>``;
    ``resource`` is the GroupResource string (``deployments.apps``)."""
    plural, _, group = resource.partition(".")
    details: JSON = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = plural
    if causes:
        details["causes"] = causes
    message = f'{resource} "{name}" is forbidden: {reason}'
    return ApiError(status_body(403, message, "Forbidden", details))


def _group_resource(info: KindInfo) -> str:
    return f"{info.plural}.{info.group}" if info.group else info.plural


def decide(
    info: KindInfo,
    operation: Operation,
    namespace: str | None,
    name: str,
    stored_namespace: JSON | None,
) -> ApiError | None:
    """The plugin's verdict on one request (None: admitted). ``name`` is the object's name
    as the request carries it (for a create: ``metadata.name``, else ``generateName``, else
    ``Unknown``, as upstream's ``extractResourceName``); ``stored_namespace`` is the
    namespace the request writes into, None when it does not exist."""
    if info.kind == "Namespace" and not info.group:
        if operation == "delete" and name in IMMORTAL_NAMESPACES:
            return forbidden("namespaces", name, "this namespace may not be deleted")
        return None
    if not info.namespaced or not namespace or operation == "delete":
        return None
    if stored_namespace is None:
        return not_found("namespaces", namespace)
    phase = (stored_namespace.get("status") or {}).get("phase")
    if operation == "create" and phase == "Terminating":
        cause = {
            "reason": NAMESPACE_TERMINATING_CAUSE,
            "message": f"namespace {namespace} is being terminated",
            "field": "metadata.namespace",
        }
        return forbidden(
            _group_resource(info),
            name,
            f"unable to create new content in namespace {namespace} because it is being terminated",
            [cause],
        )
    return None


def _lookup(state: ServerState, namespace: str) -> JSON | None:
    try:
        return state.store.get("namespaces", "", namespace)
    except NotFoundError:
        return None


def admit(
    state: ServerState,
    info: KindInfo,
    operation: Operation,
    namespace: str | None,
    name: str,
) -> None:
    """Raise the plugin's ``ApiError`` for this request, if it has one. The namespace is
    read only when the verdict depends on it (one store read per namespaced write)."""
    needs_lookup = (
        info.namespaced and bool(namespace) and operation != "delete" and info.kind != "Namespace"
    )
    if needs_lookup and operation == "update":
        # An update is only refused when its namespace is gone (the phase is a create's
        # concern): whether it exists is the store's index, with nothing to decode.
        if state.store.revision_of("namespaces", "", namespace or "") is None:
            raise not_found("namespaces", namespace or "")
        return
    stored = _lookup(state, namespace or "") if needs_lookup else None
    error = decide(info, operation, namespace, name, stored)
    if error is not None:
        raise error


def request_name(metadata: Any) -> str:
    """The name a create's admission reports: the name, else generateName, else Unknown
    (names are generated after admission upstream)."""
    if isinstance(metadata, dict):
        for key in ("name", "generateName"):
            value = metadata.get(key)
            if isinstance(value, str) and value:
                return value
    return "Unknown"
