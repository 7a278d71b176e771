"""The ``status`` and ``scale`` subresources.

``status``: GET returns the object; PUT/PATCH change only the status (upstream's status
strategies keep the old spec and the old labels, annotations, finalizers and owner references),
validated with ``validate(..., subresource="status")``.

``scale``: an autoscaling/v1 ``Scale`` view of a ReplicaSet, Deployment or StatefulSet
(``spec.replicas``; ``status.replicas``; ``status.selector`` as a selector string). PUT/PATCH
write ``spec.replicas`` back to the parent under optimistic concurrency on the parent's
resourceVersion (a stale one is upstream's 409 on the parent resource), after validating the
Scale (``validate(scale, subresource="scale")``).
"""

from __future__ import annotations

import copy
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from podscale.api import invalid_status, label_selector_to_string, validate
from podscale.api.kinds import KindInfo
from podscale.apiserver import admission, extensions, strategy
from podscale.apiserver.errors import ApiError, bad_request, from_store_error
from podscale.apiserver.handlers_write import check_namespace, warning_headers
from podscale.apiserver.limits import decode_object, media_type, read_body
from podscale.apiserver.resources import Target, storage_resource, to_served, to_storage
from podscale.apiserver.state import ServerState, json_response
from podscale.store.interface import StoreError

__all__ = ["handle_scale", "handle_status", "scale_of"]

JSON = dict[str, Any]

_META_KEPT_ON_STATUS: Final = (
    "labels",
    "annotations",
    "finalizers",
    "ownerReferences",
    "deletionTimestamp",
    "generation",
)
_SCALE_INFO_KIND: Final = "Scale"


def _load(state: ServerState, info: KindInfo, target: Target) -> JSON:
    resource = storage_resource(info)
    try:
        return to_served(state.store.get(resource, target.namespace or "", target.name or ""), info)
    except StoreError as err:
        raise from_store_error(err, resource, target.name or "") from None


def _save(state: ServerState, info: KindInfo, obj: JSON, name: str) -> JSON:
    resource = storage_resource(info)
    try:
        return to_served(state.store.update(resource, to_storage(obj, info)), info)
    except StoreError as err:
        raise from_store_error(err, resource, name) from None


def _check_name(obj: JSON, target: Target) -> None:
    name = (obj.get("metadata") or {}).get("name") or ""
    if name != target.name:
        raise bad_request(
            f"the name of the object ({name}) does not match the name on the URL ({target.name})"
        )


async def _body_or_patch(request: Request, current: JSON, kind: str, api_version: str) -> JSON:
    body = await read_body(request)
    if request.method == "PATCH":
        return extensions.apply_patch(
            media_type(request.headers.get("content-type")),
            current,
            body,
            kind=kind,
            api_version=api_version,
        )
    return decode_object(body, request.headers.get("content-type"))


async def handle_status(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    old = _load(state, info, target)
    if request.method == "GET":
        return json_response(old)
    options = admission.write_options(request)
    obj = await _body_or_patch(request, copy.deepcopy(old), info.kind, info.api_version)
    admission.check_type(obj, info)
    _check_name(obj, target)
    check_namespace(obj, info, target)
    warnings = admission.check_unknown_fields(obj, options)
    strategy.keep_equal_timestamps(obj["metadata"], old["metadata"])
    if "spec" in old:
        obj["spec"] = copy.deepcopy(old["spec"])
    else:
        obj.pop("spec", None)
    for key in _META_KEPT_ON_STATUS:
        if key in old["metadata"]:
            obj["metadata"][key] = copy.deepcopy(old["metadata"][key])
        else:
            obj["metadata"].pop(key, None)
    if request.method == "PATCH" and not obj["metadata"].get("resourceVersion"):
        obj["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion", "")
    obj = admission.default_and_validate(
        obj, info, old=old, subresource="status", feature_gates=state.feature_gates
    )
    saved = obj if options.dry_run else _save(state, info, obj, target.name or "")
    response = json_response(saved)
    for key, value in warning_headers(warnings):
        response.headers.append(key, value)
    return response


def scale_of(parent: JSON) -> JSON:
    """The autoscaling/v1 Scale of a workload (as upstream's ``scaleFromReplicaSet`` etc.)."""
    meta = parent.get("metadata") or {}
    spec = parent.get("spec") or {}
    status = parent.get("status") or {}
    scale_meta = {
        key: meta[key]
        for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
        if key in meta
    }
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_meta,
        "spec": {"replicas": spec.get("replicas", 0)},
        "status": {
            "replicas": status.get("replicas", 0),
            "selector": label_selector_to_string(spec.get("selector")),
        },
    }


async def handle_scale(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    parent = _load(state, info, target)
    current = scale_of(parent)
    if request.method == "GET":
        return json_response(current)
    options = admission.write_options(request)
    scale = await _body_or_patch(request, copy.deepcopy(current), "Scale", "autoscaling/v1")
    api_version = scale.get("apiVersion") or "autoscaling/v1"
    kind = scale.get("kind") or _SCALE_INFO_KIND
    if (api_version, kind) != ("autoscaling/v1", "Scale"):
        raise bad_request(
            f"the API version in the data ({api_version}) does not match the expected API "
            "version (autoscaling/v1)"
        )
    scale.update({"apiVersion": "autoscaling/v1", "kind": "Scale"})
    if not isinstance(scale.get("metadata"), dict):
        scale["metadata"] = {}
    _check_name(scale, target)
    try:
        errors = validate(scale, subresource="scale", feature_gates=state.feature_gates)
    except (TypeError, AttributeError, ValueError, KeyError):
        raise bad_request("the object provided is unrecognized (must be of type Scale)") from None
    if errors:
        raise ApiError(invalid_status("Scale", "autoscaling", target.name or "", errors))
    replicas = (scale.get("spec") or {}).get("replicas", 0)
    updated = copy.deepcopy(parent)
    updated.setdefault("spec", {})["replicas"] = replicas
    requested_rv = scale["metadata"].get("resourceVersion") or ""
    # The Scale's resourceVersion is the parent's: a stale one must fail like a stale PUT.
    updated["metadata"]["resourceVersion"] = requested_rv or parent["metadata"].get(
        "resourceVersion", ""
    )
    if options.dry_run:
        return json_response(scale_of(updated))
    saved = _save(state, info, updated, target.name or "")
    return json_response(scale_of(saved))
