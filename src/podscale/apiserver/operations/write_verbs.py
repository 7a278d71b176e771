"""The write verbs without HTTP: create, update and patch of whole objects.

``create_object`` (POST), ``update_object`` (PUT) and ``patch_object`` (PATCH through
``patch_loop``, which server-side apply in ``operations.apply`` shares) decode the body,
check it against the URL and the options (``operations.verbs``), run the ``admission``
pipeline, the strategies and the validating hooks (``registry.admission_hooks``), record
field ownership (``operations.field_owners``) and write through the store (Services
allocating on the way, ``registry.service_allocation``). The HTTP shell
(``http.handlers_write``) and the in-process client (``podscale.client.inprocess_writes``)
call these; siblings: ``operations.list_verbs``, ``operations.delete``,
``operations.subresources``.

A body is either a decoded dict (in-process: the caller's copy, which these functions may
mutate) or an ``EncodedBody`` decoded here, at the point upstream decodes it, so the order of
errors is the HTTP server's.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any, Final

import podscale.apiserver.extensions as extensions
from podscale.api import invalid_status
from podscale.api.field_errors import required
from podscale.api.kinds import KindInfo
from podscale.api.warnings import warnings_for
from podscale.apiserver.errors import ApiError, bad_request, from_store_error
from podscale.apiserver.operations import field_owners
from podscale.apiserver.operations.types import (
    EncodedBody,
    Payload,
    Written,
    decode_object_payload,
)
from podscale.apiserver.operations.verbs import (
    check_namespace,
    check_object_name,
    check_write_options,
    get_object,
)
from podscale.apiserver.registry import admission, admission_hooks, namespace_lifecycle, strategy
from podscale.apiserver.registry.service_allocation import write_service
from podscale.apiserver.resources import storage_resource, to_served, to_storage
from podscale.apiserver.state import ServerState
from podscale.store.interface import ConflictError, StoreError

__all__ = [
    "create_object",
    "patch_loop",
    "patch_object",
    "update_object",
]

JSON = dict[str, Any]

# Upstream's SimpleNameGenerator: 5 characters without vowels or look-alikes.
_NAME_ALPHABET: Final = "bcdfghjklmnpqrstvwxz2456789"
_PATCH_RETRIES: Final = 5


def _generate_name(metadata: JSON) -> None:
    # Only a non-empty generateName asks for a name.
    if not metadata.get("name") and metadata.get("generateName"):
        prefix = str(metadata["generateName"])[: 63 - 5]
        suffix = "".join(secrets.choice(_NAME_ALPHABET) for _ in range(5))
        metadata["name"] = prefix + suffix


def create_object(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    body: Payload,
    options: admission.WriteOptions,
    *,
    applied: bool = False,
) -> Written:
    """POST: a new object; ``applied`` when server-side apply made it (``operations.apply``
    recorded its managedFields already)."""
    if not applied:
        check_write_options(options, "CreateOptions")
    obj = decode_object_payload(body, info.api_version, info.kind)
    admission.check_type(obj, info)
    check_namespace(obj, info, namespace)
    metadata = obj["metadata"]
    # Decoding (strict fields) comes first, then admission, then the create strategy.
    warnings = admission.check_unknown_fields(obj, options, info)
    namespace_lifecycle.admit(
        state, info, "create", namespace, namespace_lifecycle.request_name(metadata)
    )
    if metadata.get("resourceVersion"):
        raise bad_request("resourceVersion should not be set on objects to be created")
    _generate_name(metadata)
    strategy.prepare_for_create(obj)
    obj = admission.default_and_validate(obj, info, feature_gates=state.feature_gates)
    warnings += warnings_for(obj)
    if not obj["metadata"].get("name"):
        # Every kind's ObjectMeta validation requires it upstream; a safety net for validators
        # that do not check it (the store cannot hold a nameless object).
        error = required("metadata.name", "name or generateName is required")
        raise ApiError(invalid_status(info.kind, info.group, "", [error]))
    _run_hooks(state, info, obj, None, options)
    if not applied:
        field_owners.record_update(state, info, None, obj, field_owners.writer(options))
    resource = storage_resource(info)

    def create(ready: JSON) -> JSON:
        return state.store.create(resource, to_storage(ready, info))

    try:
        # Services get their cluster IP and node ports here (a dry run shows them too).
        created = write_service(
            state.store, state.service_network, info, obj, None, None if options.dry_run else create
        )
    except StoreError as err:
        raise from_store_error(err, resource, str(metadata.get("name", ""))) from None
    return Written(to_served(created, info), warnings)


def _run_hooks(
    state: ServerState, info: KindInfo, obj: JSON, old: JSON | None, options: admission.WriteOptions
) -> None:
    """Validating admission (``admission_hooks``): after validation, before the write."""
    hooks = state.admission_hooks
    if not hooks.for_kind(info.group, info.kind):
        return
    request = admission_hooks.AdmissionRequest(
        operation="CREATE" if old is None else "UPDATE",
        obj=obj,
        old=old,
        namespace=str(obj["metadata"].get("namespace") or ""),
        dry_run=options.dry_run,
        reader=admission_hooks.StoreView(state.store),
    )
    admission_hooks.admit(hooks, info.group, info.kind, request)


def _admit_update(
    state: ServerState,
    obj: JSON,
    old: JSON,
    info: KindInfo,
    options: admission.WriteOptions,
    *,
    applied: bool = False,
) -> tuple[JSON, list[str]]:
    warnings = admission.check_unknown_fields(obj, options, info)
    name = str(old["metadata"].get("name", ""))
    namespace_lifecycle.admit(state, info, "update", old["metadata"].get("namespace"), name)
    strategy.prepare_for_update(obj, old)
    admitted = admission.default_and_validate(obj, info, old=old, feature_gates=state.feature_gates)
    _run_hooks(state, info, admitted, old, options)
    if not applied:
        field_owners.record_update(state, info, old, admitted, field_owners.writer(options))
    return admitted, warnings + warnings_for(admitted, old)


def _write_update(
    state: ServerState,
    info: KindInfo,
    obj: JSON,
    old: JSON,
    options: admission.WriteOptions,
    *,
    translate: bool = True,
) -> JSON:
    """Write an admitted update (allocating for Services); the dry-run result unwritten.

    ``translate`` turns store errors into ``ApiError``s; the patch loop keeps conflicts."""
    resource = storage_resource(info)

    def update(ready: JSON) -> JSON:
        return state.store.update(resource, to_storage(ready, info))

    try:
        return write_service(
            state.store, state.service_network, info, obj, old, None if options.dry_run else update
        )
    except StoreError as err:
        if not translate:
            raise
        name = str(obj["metadata"].get("name", ""))
        raise from_store_error(err, resource, name) from None


def update_object(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    body: Payload,
    options: admission.WriteOptions,
) -> Written:
    check_write_options(options, "UpdateOptions")
    obj = decode_object_payload(body, info.api_version, info.kind)
    admission.check_type(obj, info)
    check_object_name(obj, name)
    check_namespace(obj, info, namespace)
    old = get_object(state, info, namespace, name)
    resource = storage_resource(info)
    admission.check_resource_version(obj, old, resource, name)
    obj, warnings = _admit_update(state, obj, old, info, options)
    obj = _write_update(state, info, obj, old, options)
    return Written(obj if options.dry_run else to_served(obj, info), warnings)


def patch_object(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    patch: EncodedBody,
    options: admission.WriteOptions,
) -> Written:
    """Apply ``patch`` (its media type picks the format) to the current object and write it.

    Without a resourceVersion in the patched result a conflict retries from a fresh read, as
    upstream's patcher does; a pinned one fails with the 409. Server-side apply
    (``application/apply-patch+yaml``) is ``operations.apply``'s, which the transports call
    for every PATCH.
    """
    check_write_options(options, "PatchOptions", patch=True)

    def patched_from(old: JSON) -> JSON:
        return extensions.apply_patch(
            patch.media_type, old, patch.data, kind=info.kind, api_version=info.api_version
        )

    return patch_loop(state, info, namespace, name, patched_from, options)


def patch_loop(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    patched_from: Callable[[JSON], JSON],
    options: admission.WriteOptions,
    *,
    applied: bool = False,
) -> Written:
    """Read, patch (``patched_from`` the current object), admit and write, retrying on a
    conflict unless the patched object pins its resourceVersion; ``applied`` when
    ``patched_from`` set the managedFields (server-side apply)."""
    resource = storage_resource(info)
    for _ in range(_PATCH_RETRIES):
        old = get_object(state, info, namespace, name)
        patched = patched_from(old)
        admission.check_type(patched, info)
        check_object_name(patched, name)
        check_namespace(patched, info, namespace)
        old_rv = old["metadata"].get("resourceVersion", "")
        pinned = bool(patched["metadata"].get("resourceVersion")) and (
            patched["metadata"]["resourceVersion"] != old_rv
        )
        if not patched["metadata"].get("resourceVersion"):
            patched["metadata"]["resourceVersion"] = old_rv
        admission.check_resource_version(patched, old, resource, name)
        obj, warnings = _admit_update(state, patched, old, info, options, applied=applied)
        if options.dry_run:
            return Written(_write_update(state, info, obj, old, options), warnings)
        try:
            updated = _write_update(state, info, obj, old, options, translate=False)
        except ConflictError as err:
            if pinned:
                raise from_store_error(err, resource, name) from None
            continue
        except StoreError as err:
            raise from_store_error(err, resource, name) from None
        return Written(to_served(updated, info), warnings)
    final = {"metadata": {"resourceVersion": "stale"}}
    admission.check_resource_version(final, {}, resource, name)
    raise AssertionError("unreachable")  # pragma: no cover
