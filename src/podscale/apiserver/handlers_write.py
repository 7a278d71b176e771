"""POST (create), PUT (update) and PATCH of a whole object.

Each runs the ``admission`` pipeline then writes through the store in the storage version
(``resources.to_storage``) and answers in the request's version. Upstream's request checks come
first: URL versus body namespace and name (400 with upstream's texts), no resourceVersion on a
create, ``generateName``, ``dryRun=All`` (validate, never store). A PATCH without a
resourceVersion in its result retries on a conflict, as upstream's patcher does.
"""

from __future__ import annotations

import secrets
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from podscale.api import invalid_status
from podscale.api.field_errors import required
from podscale.api.kinds import KindInfo
from podscale.apiserver import admission, extensions, strategy
from podscale.apiserver.errors import ApiError, bad_request, from_store_error
from podscale.apiserver.limits import decode_object, media_type, read_body
from podscale.apiserver.resources import Target, storage_resource, to_served, to_storage
from podscale.apiserver.state import ServerState, json_response
from podscale.store.interface import ConflictError, StoreError

__all__ = [
    "check_namespace",
    "create_object",
    "patch_object",
    "update_object",
    "warning_headers",
]

JSON = dict[str, Any]

# Upstream's SimpleNameGenerator: 5 characters without vowels or look-alikes.
_NAME_ALPHABET: Final = "bcdfghjklmnpqrstvwxz2456789"
_PATCH_RETRIES: Final = 5


def warning_headers(warnings: list[str]) -> list[tuple[str, str]]:
    """``Warning: 299 - "<text>"`` headers, one per warning (RFC 7234 form, as upstream)."""
    return [
        ("warning", '299 - "' + w.replace("\\", "\\\\").replace('"', '\\"') + '"') for w in warnings
    ]


def _respond(body: JSON, status_code: int, warnings: list[str]) -> Response:
    response = json_response(body, status_code)
    for key, value in warning_headers(warnings):
        response.headers.append(key, value)
    return response


def check_namespace(obj: JSON, info: KindInfo, target: Target) -> None:
    """Fill metadata.namespace from the URL; 400 when the body names another one."""
    metadata = obj["metadata"]
    if not info.namespaced:
        # Cluster-scoped objects have no namespace: upstream clears it silently.
        metadata.pop("namespace", None)
        return
    body_ns = metadata.get("namespace") or ""
    if body_ns and body_ns != target.namespace:
        raise bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    metadata["namespace"] = target.namespace


def _generate_name(metadata: JSON) -> None:
    if not metadata.get("name") and isinstance(metadata.get("generateName"), str):
        prefix = str(metadata["generateName"])[: 63 - 5]
        suffix = "".join(secrets.choice(_NAME_ALPHABET) for _ in range(5))
        metadata["name"] = prefix + suffix


async def create_object(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    options = admission.write_options(request)
    body = await read_body(request)
    obj = decode_object(body, request.headers.get("content-type"))
    admission.check_type(obj, info)
    check_namespace(obj, info, target)
    metadata = obj["metadata"]
    if metadata.get("resourceVersion"):
        raise bad_request("resourceVersion should not be set on objects to be created")
    _generate_name(metadata)
    warnings = admission.check_unknown_fields(obj, options)
    strategy.prepare_for_create(obj)
    obj = admission.default_and_validate(obj, info, feature_gates=state.feature_gates)
    if not obj["metadata"].get("name"):
        # Every kind's ObjectMeta validation requires it upstream; a safety net for validators
        # that do not check it (the store cannot hold a nameless object).
        error = required("metadata.name", "name or generateName is required")
        raise ApiError(invalid_status(info.kind, info.group, "", [error]))
    if options.dry_run:
        return _respond(to_served(obj, info), 201, warnings)
    resource = storage_resource(info)
    try:
        created = state.store.create(resource, to_storage(obj, info))
    except StoreError as err:
        raise from_store_error(err, resource, str(metadata.get("name", ""))) from None
    return _respond(to_served(created, info), 201, warnings)


def _check_name(obj: JSON, target: Target) -> None:
    name = obj["metadata"].get("name") or ""
    if name != target.name:
        raise bad_request(
            f"the name of the object ({name}) does not match the name on the URL ({target.name})"
        )


def _get_served(state: ServerState, info: KindInfo, target: Target) -> JSON:
    resource = storage_resource(info)
    try:
        return to_served(state.store.get(resource, target.namespace or "", target.name or ""), info)
    except StoreError as err:
        raise from_store_error(err, resource, target.name or "") from None


def _admit_update(
    state: ServerState, obj: JSON, old: JSON, info: KindInfo, options: admission.WriteOptions
) -> tuple[JSON, list[str]]:
    warnings = admission.check_unknown_fields(obj, options)
    strategy.prepare_for_update(obj, old)
    return admission.default_and_validate(
        obj, info, old=old, feature_gates=state.feature_gates
    ), warnings


def _store_update(state: ServerState, info: KindInfo, obj: JSON, name: str) -> JSON:
    resource = storage_resource(info)
    try:
        return state.store.update(resource, to_storage(obj, info))
    except StoreError as err:
        raise from_store_error(err, resource, name) from None


async def update_object(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    options = admission.write_options(request)
    body = await read_body(request)
    obj = decode_object(body, request.headers.get("content-type"))
    admission.check_type(obj, info)
    _check_name(obj, target)
    check_namespace(obj, info, target)
    old = _get_served(state, info, target)
    admission.check_resource_version(obj, old, storage_resource(info), target.name or "")
    obj, warnings = _admit_update(state, obj, old, info, options)
    if options.dry_run:
        return _respond(obj, 200, warnings)
    updated = _store_update(state, info, obj, target.name or "")
    return _respond(to_served(updated, info), 200, warnings)


async def patch_object(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    options = admission.write_options(request)
    patch = await read_body(request)
    content_type = media_type(request.headers.get("content-type"))
    for _ in range(_PATCH_RETRIES):
        old = _get_served(state, info, target)
        patched = extensions.apply_patch(
            content_type, old, patch, kind=info.kind, api_version=info.api_version
        )
        admission.check_type(patched, info)
        _check_name(patched, target)
        check_namespace(patched, info, target)
        pinned = bool(patched["metadata"].get("resourceVersion")) and (
            patched["metadata"]["resourceVersion"] != old["metadata"].get("resourceVersion")
        )
        if not patched["metadata"].get("resourceVersion"):
            patched["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion", "")
        admission.check_resource_version(patched, old, storage_resource(info), target.name or "")
        obj, warnings = _admit_update(state, patched, old, info, options)
        if options.dry_run:
            return _respond(obj, 200, warnings)
        try:
            updated = state.store.update(storage_resource(info), to_storage(obj, info))
        except ConflictError as err:
            if pinned:
                raise from_store_error(err, storage_resource(info), target.name or "") from None
            continue
        except StoreError as err:
            raise from_store_error(err, storage_resource(info), target.name or "") from None
        return _respond(to_served(updated, info), 200, warnings)
    final = {"metadata": {"resourceVersion": "stale"}}
    admission.check_resource_version(final, {}, storage_resource(info), target.name or "")
    raise AssertionError("unreachable")  # pragma: no cover
