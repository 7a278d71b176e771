"""The API verbs without HTTP: get, list, create, update and patch of whole objects.

Each operation takes parsed inputs (a ``KindInfo``, namespace, name, body, options) and returns
the served object in the kind's version, or raises ``ApiError`` carrying upstream's ``Status``.
This is the one admission path: the HTTP handlers (``handlers_read``, ``handlers_write``) are
shells that parse a Request, call these and format the response; the in-process client
(``podscale.client.inprocess``) calls them directly. Siblings: ``operations.delete``,
``operations.subresources``, ``operations.watch``; shared inputs live in ``operations.types``.

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
from podscale.apiserver.errors import ApiError, bad_request, from_store_error, method_not_allowed
from podscale.apiserver.fieldmanager import managers
from podscale.apiserver.operations import field_owners, list_options
from podscale.apiserver.operations.selectors import build_predicate
from podscale.apiserver.operations.shared_list import SharedItems
from podscale.apiserver.operations.types import (
    EncodedBody,
    ListPage,
    Payload,
    Written,
    decode_object_payload,
)
from podscale.apiserver.registry import admission, admission_hooks, namespace_lifecycle, strategy
from podscale.apiserver.registry.service_allocation import write_service
from podscale.apiserver.resources import storage_resource, to_served, to_storage
from podscale.apiserver.state import ServerState
from podscale.store.errors import TooLargeResourceVersionError
from podscale.store.interface import ConflictError, StoreError

__all__ = [
    "check_namespace",
    "check_object_name",
    "check_write_options",
    "create_object",
    "get_object",
    "list_body",
    "list_fresh_page",
    "list_page",
    "list_shared_page",
    "patch_loop",
    "patch_object",
    "require_verb",
    "update_object",
    "wait_for_list_revision",
]

JSON = dict[str, Any]

# Upstream's SimpleNameGenerator: 5 characters without vowels or look-alikes.
_NAME_ALPHABET: Final = "bcdfghjklmnpqrstvwxz2456789"
_PATCH_RETRIES: Final = 5


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


def list_page(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    *,
    label_selector: str = "",
    field_selector: str = "",
    limit: int | None = None,
    continue_token: str | None = None,
    resource_version: str = "",
    resource_version_match: str = "",
) -> ListPage:
    """One page of a list (all of it without ``limit``), items served, selectors applied,
    read as ``resource_version``/``resource_version_match`` ask (``list_options``). This
    form never waits: a revision the store has not reached is the 504 at once;
    ``list_fresh_page`` first waits for it as upstream does."""
    predicate, _ = build_predicate(
        info, {"labelSelector": label_selector, "fieldSelector": field_selector}
    )
    read = list_options.plan_list_read(
        resource_version, resource_version_match, limit=limit, continue_token=continue_token
    )
    return _read_page(state, info, namespace, predicate, read, limit, continue_token)


async def wait_for_list_revision(
    state: ServerState,
    info: KindInfo,
    *,
    resource_version: str = "",
    resource_version_match: str = "",
    limit: int | None = None,
    continue_token: str | None = None,
) -> None:
    """Check a LIST's resourceVersion options and wait, up to
    ``list_options.FRESHNESS_TIMEOUT``, for a revision the store has not reached (never
    answering with older data); upstream's 504 "Too large resource version" after that."""
    read = list_options.plan_list_read(
        resource_version, resource_version_match, limit=limit, continue_token=continue_token
    )
    if read.minimum > state.store.revision:
        try:
            await state.store.wait_for_revision(
                read.minimum, timeout=list_options.FRESHNESS_TIMEOUT
            )
        except StoreError as err:
            raise from_store_error(err, storage_resource(info), "") from None


async def list_fresh_page(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    *,
    label_selector: str = "",
    field_selector: str = "",
    limit: int | None = None,
    continue_token: str | None = None,
    resource_version: str = "",
    resource_version_match: str = "",
) -> ListPage:
    """``list_page`` for the transports, after ``wait_for_list_revision``."""
    await wait_for_list_revision(
        state,
        info,
        resource_version=resource_version,
        resource_version_match=resource_version_match,
        limit=limit,
        continue_token=continue_token,
    )
    return list_page(
        state,
        info,
        namespace,
        label_selector=label_selector,
        field_selector=field_selector,
        limit=limit,
        continue_token=continue_token,
        resource_version=resource_version,
        resource_version_match=resource_version_match,
    )


def list_shared_page(
    state: ServerState, info: KindInfo, namespace: str | None, shared: SharedItems
) -> ListPage:
    """The whole current list (no selector, limit or resourceVersion), the one
    ``list_page`` reads, its items served through ``shared`` (``operations.shared_list``):
    objects unchanged since an earlier call are the items handed out then, read-only."""
    read = list_options.plan_list_read("", "", limit=None, continue_token=None)
    memo = shared.memo(info, namespace)
    page = _read_page(state, info, namespace, None, read, None, None, served=memo)
    memo.turn()
    return page


def _read_page(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    predicate: Callable[[JSON], bool] | None,
    read: list_options.ListRead,
    limit: int | None,
    continue_token: str | None,
    *,
    served: Callable[[bytes], JSON] | None = None,
) -> ListPage:
    """``served``, when given, makes each item from its stored bytes as served."""
    resource = storage_resource(info)
    try:
        current = state.store.revision
        if read.minimum > current:
            raise TooLargeResourceVersionError(read.minimum, current)
        result = state.store.list(
            resource,
            namespace if info.namespaced else None,
            predicate=predicate,
            limit=limit,
            continue_token=continue_token or None,
            revision=read.exact,
            decode=served,
        )
    except StoreError as err:
        raise from_store_error(err, resource, "") from None
    metadata: JSON = {"resourceVersion": str(result.revision)}
    if result.continue_token:
        metadata["continue"] = result.continue_token
        if result.remaining is not None:
            metadata["remainingItemCount"] = result.remaining
    if served is not None:
        return ListPage(result.items, metadata)
    return ListPage([to_served(item, info) for item in result.items], metadata)


def list_body(info: KindInfo, page: ListPage) -> JSON:
    """The ``XList`` object of a page (its items gain apiVersion/kind)."""
    for item in page.items:
        # Items of a typed list carry no kind/apiVersion in Go's encoding; clients accept both,
        # but keeping them lets `kubectl get -o yaml` round-trip items as given.
        item.setdefault("apiVersion", info.api_version)
        item.setdefault("kind", info.kind)
    return {
        "kind": info.list_kind,
        "apiVersion": info.api_version,
        "metadata": page.metadata,
        "items": page.items,
    }


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
