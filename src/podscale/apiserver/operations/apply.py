"""PATCH, server-side apply included: what the transports call for every PATCH.

``patch_object``, ``patch_status`` and ``patch_scale`` hand the JSON, merge and strategic
merge formats to ``operations.write_verbs`` and ``operations.subresources`` unchanged; an
``application/apply-patch+yaml`` body is applied here, as kube-apiserver's applyPatcher:

- the request is checked by ``fieldmanager.managers.parse_apply_request`` (fieldManager
  required, ``force`` parsed, the body's apiVersion, kind and name against the URL);
- ``fieldmanager.merge.apply`` merges the configuration over the live object by the kind's
  merge type (``field_owners.merge_type``: built-in OpenAPI or the CRD's schema); fields
  another manager owns and the apply changes are the 409 ``managers.conflict_status``
  builds, unless ``force`` moves them to the applier;
- an absent object is created (201), on the main resource only; ``/status`` applies to the
  object through the status strategy, ``/scale`` to its Scale (the parent's entries go
  through ``scale_owners.to_scale_entries``/``to_parent_entries``);
- fields the endpoint's strategy resets are not applied (``status`` on the main resource of
  a kind with a status subresource; all but ``status`` on ``/status``), so the applier never
  owns what it cannot set;
- the result is admitted and written like any other write (``dryRun=All`` writes nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podscale.api.json_copy import copy_json
from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import ApiError, bad_request
from podscale.apiserver.fieldmanager.managers import (
    APPLY_PATCH_YAML,
    ApplyRequest,
    conflict_status,
    parse_apply_request,
)
from podscale.apiserver.fieldmanager.merge import ConflictError
from podscale.apiserver.fieldmanager.merge import apply as apply_entries
from podscale.apiserver.fieldmanager.walk import MergeError
from podscale.apiserver.operations import (
    field_owners,
    scale_owners,
    subresources,
    verbs,
    write_verbs,
)
from podscale.apiserver.operations.types import EncodedBody, Written
from podscale.apiserver.registry import admission
from podscale.apiserver.state import ServerState

__all__ = ["apply_object", "patch_object", "patch_scale", "patch_status"]

JSON = dict[str, Any]
_IDENTITY = ("apiVersion", "kind", "metadata")


def _is_apply(patch: EncodedBody) -> bool:
    return patch.media_type == APPLY_PATCH_YAML


def patch_object(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    patch: EncodedBody,
    options: admission.WriteOptions,
) -> Written:
    if _is_apply(patch):
        return apply_object(state, info, namespace, name, patch, options)
    return write_verbs.patch_object(state, info, namespace, name, patch, options)


def patch_status(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    patch: EncodedBody,
    options: admission.WriteOptions,
) -> Written:
    if not _is_apply(patch):
        return subresources.patch_status(state, info, namespace, name, patch, options)
    request = _request(info.api_version, info.kind, namespace, name, patch, options)
    old = verbs.get_object(state, info, namespace, name)
    config = {k: v for k, v in request.obj.items() if k in (*_IDENTITY, "status")}
    merged = _merged(state, info, old, config, request, "status")
    return subresources.write_status(
        state, info, namespace, name, old, merged, options, patched=True, applied=True
    )


def patch_scale(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    patch: EncodedBody,
    options: admission.WriteOptions,
) -> Written:
    if not _is_apply(patch):
        return subresources.patch_scale(state, info, namespace, name, patch, options)
    request = _request("autoscaling/v1", "Scale", namespace, name, patch, options)
    parent = verbs.get_object(state, info, namespace, name)
    live = subresources.scale_view(info, parent)
    try:
        scale, entries = apply_entries(
            live, request.obj, request.field_manager, scale_owners.to_scale_entries(info, parent),
            field_owners.merge_type(state, info, "scale"), api_version="autoscaling/v1",
            force=request.force, now=field_owners.now_text(state), subresource="scale",
        )  # fmt: skip
    except ConflictError as err:
        raise _conflict(err) from None
    except MergeError as err:
        raise _typed_error("autoscaling/v1", "Scale", namespace, name, err) from None
    meta: JSON = {}
    field_owners.store_entries(meta, scale_owners.to_parent_entries(info, parent, entries))
    return subresources.write_scale(
        state, info, name, parent, scale, options, parent_entries=meta.get("managedFields", [])
    )


def apply_object(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    patch: EncodedBody,
    options: admission.WriteOptions,
) -> Written:
    """Server-side apply to the main resource: create when absent, else merge and update."""
    request = _request(info.api_version, info.kind, namespace, name, patch, options)
    config = request.obj
    if info.subresource("status") is not None and "status" in config:
        config = {k: v for k, v in config.items() if k != "status"}
    try:
        verbs.get_object(state, info, namespace, name)
    except ApiError as err:
        if err.code != 404:
            raise
        created = _merged(state, info, {}, config, request, "")
        written = write_verbs.create_object(state, info, namespace, created, options, applied=True)
        return Written(written.object, written.warnings, created=True)

    def patched_from(old: JSON) -> JSON:
        return _merged(state, info, old, config, request, "")

    return write_verbs.patch_loop(state, info, namespace, name, patched_from, options, applied=True)


def _request(
    api_version: str,
    kind: str,
    namespace: str | None,
    name: str,
    patch: EncodedBody,
    options: admission.WriteOptions,
) -> ApplyRequest:
    query = {"fieldManager": options.field_manager} if options.field_manager else {}
    if options.force is not None:
        query["force"] = options.force
    return parse_apply_request(
        patch.content_type or "",
        patch.data,
        query,
        api_version=api_version,
        kind=kind,
        name=name,
        namespace=namespace or "",
    )


def _merged(
    state: ServerState,
    info: KindInfo,
    live: Mapping[str, Any],
    config: Mapping[str, Any],
    request: ApplyRequest,
    subresource: str,
) -> JSON:
    """``live`` with ``config`` applied and its managedFields set, or the 409/400."""
    try:
        entries = field_owners.decode_entries((live.get("metadata") or {}).get("managedFields"))
    except ValueError:
        entries = []
    try:
        merged, result = apply_entries(
            live, copy_json(dict(config)), request.field_manager, entries,
            field_owners.merge_type(state, info), api_version=info.api_version,
            force=request.force, now=field_owners.now_text(state), subresource=subresource,
        )  # fmt: skip
    except ConflictError as err:
        raise _conflict(err) from None
    except MergeError as err:
        meta = config.get("metadata") or {}
        namespace = str(meta.get("namespace") or "") if isinstance(meta, Mapping) else ""
        raise _typed_error(
            info.api_version, info.kind, namespace, request_name(config), err
        ) from None
    meta = merged.setdefault("metadata", {})
    field_owners.store_entries(meta, result)
    return merged


def request_name(config: Mapping[str, Any]) -> str:
    meta = config.get("metadata")
    return str(meta.get("name") or "") if isinstance(meta, Mapping) else ""


def _conflict(err: ConflictError) -> ApiError:
    rows = [
        (c.manager, c.api_version if c.operation == "Update" else "", c.field, c.subresource)
        for c in err.conflicts
    ]
    return ApiError(conflict_status(rows))


def _typed_error(
    api_version: str, kind: str, namespace: str | None, name: str, err: MergeError
) -> ApiError:
    """A configuration that does not fit the kind's schema: upstream's typed-patch text."""
    group_version = api_version if "/" in api_version else f"/{api_version}"
    return bad_request(
        f"failed to create typed patch object ({group_version}, Kind={kind}; "
        f"{namespace or ''}/{name}): {err}"
    )
