"""The ``status`` and ``scale`` subresources without HTTP (``subresources`` is their shell).

``status``: get returns the object; update/patch go through the kind's status strategy
(``strategy.prepare_for_status_update``: the stored spec and generation are kept, and per kind
some metadata, e.g. a Deployment's labels; annotations such as the Deployment revision do
change), validated with ``validate(..., subresource="status")``.

``scale``: an autoscaling/v1 ``Scale`` view of a ReplicaSet, Deployment or StatefulSet
(``spec.replicas``; ``status.replicas``; ``status.selector`` as a selector string).
Update/patch write ``spec.replicas`` back to the parent under optimistic concurrency on the
parent's resourceVersion (a stale one is upstream's 409 on the parent resource), after
validating the Scale (what Go's decoder refuses first: ``scale_decode``; then
``validate(scale, subresource="scale")``); a changed size bumps the
parent's generation, as the parent's own update strategy does upstream.
"""

from __future__ import annotations

from typing import Any, Final

import podscale.apiserver.extensions as extensions
from podscale.api import invalid_status, label_selector_to_string, validate
from podscale.api.json_copy import copy_json
from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.definitions import CustomKind
from podscale.apiserver.customresources.scale import ScaleError, scale_from, set_spec_replicas
from podscale.apiserver.errors import ApiError, bad_request, from_store_error
from podscale.apiserver.operations import field_owners, scale_owners
from podscale.apiserver.operations.current import read_current
from podscale.apiserver.operations.scale_decode import check_scale_types
from podscale.apiserver.operations.types import (
    EncodedBody,
    OwnedObject,
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
from podscale.apiserver.registry import admission, generation, namespace_lifecycle, strategy
from podscale.apiserver.resources import storage_resource, to_served, to_storage
from podscale.apiserver.state import ServerState
from podscale.store.interface import StoreError

__all__ = [
    "get_scale",
    "patch_scale",
    "patch_status",
    "scale_of",
    "scale_view",
    "update_scale",
    "update_status",
    "write_scale",
    "write_status",
]

JSON = dict[str, Any]


def _save(
    state: ServerState,
    info: KindInfo,
    obj: JSON,
    name: str,
    current: tuple[bytes, JSON] | None = None,
) -> JSON:
    resource = storage_resource(info)
    try:
        saved = state.store.update(resource, to_storage(obj, info), current=current)
    except StoreError as err:
        raise from_store_error(err, resource, name) from None
    return to_served(saved, info)


def write_status(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    old: JSON,
    obj: JSON,
    options: admission.WriteOptions,
    *,
    patched: bool,
    applied: bool = False,
    owned: bool = False,
    current: tuple[bytes, JSON] | None = None,
) -> Written:
    """Admit and write a status write; ``applied`` when server-side apply set the
    managedFields already; ``owned`` when ``obj`` came as an ``OwnedObject`` (defaulted in
    place: it is already what the defaulting's copy would make, and no one else holds it
    or any of its parts, as the status strategy copies what it takes from ``old``);
    ``current``: the store's hint for ``old`` (``current.read_current``), which this
    only reads."""
    admission.check_type(obj, info)
    check_object_name(obj, name)
    check_namespace(obj, info, namespace)
    warnings = admission.check_unknown_fields(obj, options, info)
    namespace_lifecycle.admit(state, info, "update", namespace, name)
    strategy.prepare_for_status_update(obj, old)
    if patched and not obj["metadata"].get("resourceVersion"):
        obj["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion", "")
    obj = admission.default_and_validate(
        obj, info, old=old, subresource="status", feature_gates=state.feature_gates, owned=owned
    )
    if not applied:
        manager = field_owners.writer(options)
        field_owners.record_update(
            state, info, old, obj, manager, subresource="status", shared=not options.dry_run
        )
    saved = obj if options.dry_run else _save(state, info, obj, name, current)
    return Written(saved, warnings)


def update_status(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    body: Payload,
    options: admission.WriteOptions,
) -> Written:
    check_write_options(options, "UpdateOptions")
    old, hint = read_current(state, info, namespace, name)
    obj = decode_object_payload(body, info.api_version, info.kind)
    owned = isinstance(body, OwnedObject)
    return write_status(
        state, info, namespace, name, old, obj, options, patched=False, owned=owned, current=hint
    )


def patch_status(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    patch: EncodedBody,
    options: admission.WriteOptions,
) -> Written:
    check_write_options(options, "PatchOptions", patch=True)
    old = get_object(state, info, namespace, name)
    obj = extensions.apply_patch(
        patch.media_type,
        copy_json(old),
        patch.data,
        kind=info.kind,
        api_version=info.api_version,
    )
    return write_status(state, info, namespace, name, old, obj, options, patched=True)


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


def scale_view(info: KindInfo, parent: JSON) -> JSON:
    """The Scale of ``parent``: a custom kind's from its CRD's scale paths."""
    if isinstance(info, CustomKind) and info.scale is not None:
        try:
            return scale_from(parent, info.scale)
        except ScaleError as err:
            raise bad_request(str(err)) from None
    return scale_of(parent)


# A Scale view is a pure function of the stored parent, and a resourceVersion names one
# stored state of one object of the server's store, so a view kept by the parent's
# resourceVersion (``ServerState.scale_views``) is exact for as long as that revision is the
# parent's current one; a write moves it and the next read misses. Custom kinds are not kept
# (their scale paths come from a CRD that can change under the same revision). Controllers
# and replays read a target's Scale every sync; decoding the whole parent for three fields
# was most of the read.
_SCALE_MEMO_LIMIT: Final = 1024


def get_scale(state: ServerState, info: KindInfo, namespace: str | None, name: str) -> JSON:
    if isinstance(info, CustomKind):
        return scale_view(info, get_object(state, info, namespace, name))
    views = state.scale_views
    resource = storage_resource(info)
    revision = state.store.revision_of(resource, namespace or "", name)
    if revision is not None:
        known = views.get((resource, namespace or "", name, str(revision), id(info)))
        if known is not None and known[0] is info:
            return copy_json(known[1])
    scale = scale_view(info, get_object(state, info, namespace, name))
    # Keyed by the resourceVersion the view was made from (a write between revision_of and
    # the read cannot file it under the older revision).
    version = str(scale["metadata"].get("resourceVersion") or "")
    if version:
        if len(views) >= _SCALE_MEMO_LIMIT:
            views.clear()
        views[(resource, namespace or "", name, version, id(info))] = (info, copy_json(scale))
    return scale


def write_scale(
    state: ServerState,
    info: KindInfo,
    name: str,
    parent: JSON,
    scale: JSON,
    options: admission.WriteOptions,
    *,
    parent_entries: list[Any] | None = None,
) -> Written:
    """Write a Scale's replicas to ``parent``; ``parent_entries`` are the parent's
    managedFields when server-side apply computed them (else the write records itself)."""
    api_version = scale.get("apiVersion") or "autoscaling/v1"
    kind = scale.get("kind") or "Scale"
    if (api_version, kind) != ("autoscaling/v1", "Scale"):
        raise bad_request(
            f"the API version in the data ({api_version}) does not match the expected API "
            "version (autoscaling/v1)"
        )
    scale.update({"apiVersion": "autoscaling/v1", "kind": "Scale"})
    if not isinstance(scale.get("metadata"), dict):
        scale["metadata"] = {}
    check_scale_types(scale)
    check_object_name(scale, name)
    try:
        errors = validate(scale, subresource="scale", feature_gates=state.feature_gates)
    except (TypeError, AttributeError, ValueError, KeyError):
        raise bad_request("the object provided is unrecognized (must be of type Scale)") from None
    if errors:
        raise ApiError(invalid_status("Scale", "autoscaling", name, errors))
    replicas = (scale.get("spec") or {}).get("replicas", 0)
    old_parent = copy_json(parent)
    old_scale = scale_view(info, old_parent)
    # The parent is this call's own fresh read: changing it in place is safe.
    if isinstance(info, CustomKind) and info.scale is not None:
        # A custom resource's scale write is an update of it: schema, rules, generation.
        set_spec_replicas(parent, info.scale, replicas)
        parent = admission.default_and_validate(
            parent, info, old=old_parent, feature_gates=state.feature_gates
        )
    else:
        parent.setdefault("spec", {})["replicas"] = replicas
        generation.update_generation(parent, old_parent)
    if parent_entries is None:
        manager = field_owners.writer(options)
        scale_owners.record_scale(state, info, old_parent, parent, old_scale, scale, manager)
    elif parent_entries:
        parent["metadata"]["managedFields"] = parent_entries
    else:
        parent["metadata"].pop("managedFields", None)
    requested_rv = scale["metadata"].get("resourceVersion") or ""
    # The Scale's resourceVersion is the parent's: a stale one must fail like a stale PUT.
    if requested_rv:
        parent["metadata"]["resourceVersion"] = requested_rv
    if options.dry_run:
        return Written(scale_view(info, parent))
    return Written(scale_view(info, _save(state, info, parent, name)))


def update_scale(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    body: Payload,
    options: admission.WriteOptions,
) -> Written:
    parent = get_object(state, info, namespace, name)
    check_write_options(options, "UpdateOptions")
    scale = decode_object_payload(body, "autoscaling/v1", "Scale")
    return write_scale(state, info, name, parent, scale, options)


def patch_scale(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    patch: EncodedBody,
    options: admission.WriteOptions,
) -> Written:
    check_write_options(options, "PatchOptions", patch=True)
    parent = get_object(state, info, namespace, name)
    scale = extensions.apply_patch(
        patch.media_type,
        scale_view(info, parent),
        patch.data,
        kind="Scale",
        api_version="autoscaling/v1",
    )
    return write_scale(state, info, name, parent, scale, options)
