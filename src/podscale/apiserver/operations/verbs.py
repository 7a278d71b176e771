"""The checks every verb shares, and GET: the pieces the API verbs without HTTP build on.

``require_verb`` (the 405 for a verb a resource does not serve), ``get_object`` (a whole
object as served), the body checks against the URL (``check_namespace``,
``check_object_name``) and ``check_write_options`` (a write's ``fieldManager``/``force``).
The verbs themselves are in this package's siblings: ``operations.list_verbs`` (list),
``operations.write_verbs`` (create, update and patch), ``operations.delete``,
``operations.subresources``, ``operations.binding``, ``operations.namespace`` and
``operations.watch``; shared inputs live in ``operations.types``.

This is the one admission path: the HTTP handlers (``handlers_read``, ``handlers_write``) are
shells that parse a Request, call these and format the response; the in-process client
(``podscale.client.inprocess``) calls them directly. Each operation takes parsed inputs (a
``KindInfo``, namespace, name, body, options) and returns the served object in the kind's
version, or raises ``ApiError`` carrying upstream's ``Status``.
"""

from __future__ import annotations

from typing import Any

from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import bad_request, from_store_error, method_not_allowed
from podscale.apiserver.fieldmanager import managers
from podscale.apiserver.registry import admission
from podscale.apiserver.resources import storage_resource, to_served
from podscale.apiserver.state import ServerState
from podscale.store.interface import StoreError

__all__ = [
    "check_namespace",
    "check_object_name",
    "check_write_options",
    "get_object",
    "require_verb",
]

JSON = dict[str, Any]


def require_verb(info: KindInfo, verb: str) -> None:
    """405 unless the resource serves ``verb`` (get, list, watch, create, update, patch...)."""
    if verb not in info.verbs:
        raise method_not_allowed()


def get_object(state: ServerState, info: KindInfo, namespace: str | None, name: str) -> JSON:
    """The object as served; the store hands out a fresh copy, so no further copy is needed."""
    resource = storage_resource(info)
    try:
        stored = state.store.get(resource, namespace or "", name)
    except StoreError as err:
        raise from_store_error(err, resource, name) from None
    return to_served(stored, info)


def check_namespace(obj: JSON, info: KindInfo, namespace: str | None) -> None:
    """Fill metadata.namespace from the URL; 400 when the body names another one."""
    metadata = obj["metadata"]
    if not info.namespaced:
        # Cluster-scoped objects have no namespace: upstream clears it silently.
        metadata.pop("namespace", None)
        return
    body_ns = metadata.get("namespace") or ""
    if body_ns and body_ns != namespace:
        raise bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    metadata["namespace"] = namespace


def check_object_name(obj: JSON, name: str) -> None:
    """400 when the body's name is not the one on the URL."""
    body_name = (obj.get("metadata") or {}).get("name") or ""
    if body_name != name:
        raise bad_request(
            f"the name of the object ({body_name}) does not match the name on the URL ({name})"
        )


def check_write_options(options: admission.WriteOptions, kind: str, *, patch: bool = False) -> None:
    """The 422 for a bad ``fieldManager`` (or ``force`` on a non-apply patch), as
    upstream's ``Validate{Create,Update,Patch}Options``."""
    if patch:
        query = {"fieldManager": options.field_manager}
        if options.force is not None:
            query["force"] = options.force
        errors = managers.patch_options_errors(query, apply=False)
    else:
        errors = managers.field_manager_errors(options.field_manager, apply=False)
    if errors:
        raise managers.options_invalid(kind, errors)
