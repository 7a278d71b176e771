"""Namespace deletion and the ``namespaces/{name}/finalize`` subresource, without HTTP.

Upstream's namespace REST storage (``pkg/registry/core/namespace/storage``):

- The first DELETE does not remove a namespace: it sets ``deletionTimestamp`` and
  ``status.phase: Terminating`` in one write (``store.objects.mark_deleting`` does it for
  the Namespace kind) under a uid precondition, and adds ``orphan`` or
  ``foregroundDeletion`` to ``metadata.finalizers`` as the propagation policy asks. The
  reply is the marked namespace with 200 (202 only for ``orphanDependents: false``, as
  upstream's delete handler). The namespace controller then empties it and removes the
  ``kubernetes`` entry of ``spec.finalizers`` through ``/finalize``; the store deletes a
  namespace once both finalizer lists are empty (``store.objects.is_finalized``).
- A later DELETE while ``spec.finalizers`` is set changes nothing and returns the namespace;
  once it is empty, the generic delete applies (metadata finalizers, or removal, with the
  deleted namespace as the reply: namespaces return the deleted object).
- ``default``, ``kube-system`` and ``kube-public`` are refused by ``namespace_lifecycle``.

``finalize`` (PUT only) writes ``spec.finalizers`` and metadata; the status is kept
(``strategy.prepare_for_finalize``); finalizer names are validated as on create.
Called by ``operations.delete`` and ``subresources`` (HTTP) and the in-process client.
"""

from __future__ import annotations

from typing import Any

from podscale.api.kinds import KindInfo
from podscale.apiserver.errors import from_store_error
from podscale.apiserver.operations import field_owners
from podscale.apiserver.operations.types import (
    Deleted,
    DeleteOptions,
    Payload,
    Written,
    decode_payload,
)
from podscale.apiserver.operations.verbs import check_namespace, check_object_name, get_object
from podscale.apiserver.registry import admission, namespace_lifecycle, strategy
from podscale.apiserver.resources import storage_resource, to_served, to_storage
from podscale.apiserver.state import ServerState
from podscale.store.interface import Preconditions, StoreError
from podscale.store.objects import check_preconditions, namespace_finalizers

__all__ = ["delete_namespace", "update_finalize"]

JSON = dict[str, Any]


def _reply_code(options: DeleteOptions) -> int:
    # Upstream's delete handler answers 202 for an object kept by finalizers only when the
    # client asked for cascading with the deprecated orphanDependents=false.
    return 202 if options.orphan_dependents is False else 200


def delete_namespace(
    state: ServerState,
    info: KindInfo,
    name: str,
    options: DeleteOptions,
    finalizers: tuple[str, ...],
) -> Deleted:
    """DELETE of a namespace; ``finalizers`` are the propagation policy's (already checked)."""
    namespace_lifecycle.admit(state, info, "delete", None, name)
    resource = storage_resource(info)
    try:
        current = state.store.get(resource, "", name)
        check_preconditions(resource, current, options.preconditions)
        if options.dry_run:
            return Deleted(to_served(current, info))
        meta = current.get("metadata") or {}
        if not meta.get("deletionTimestamp"):
            # The uid read above guards the mark, as upstream's GuaranteedUpdate does.
            guard = Preconditions(
                uid=options.preconditions.uid or str(meta.get("uid") or "") or None,
                resource_version=options.preconditions.resource_version,
            )
            result = state.store.delete(
                resource, "", name, preconditions=guard, finalizers_to_add=finalizers
            )
        elif namespace_finalizers(current):
            return Deleted(to_served(current, info), _reply_code(options))
        else:
            result = state.store.delete(
                resource,
                "",
                name,
                preconditions=options.preconditions,
                finalizers_to_add=finalizers,
            )
    except StoreError as err:
        raise from_store_error(err, resource, name) from None
    served = to_served(result.object, info)
    return Deleted(served) if result.deleted else Deleted(served, _reply_code(options))


def update_finalize(
    state: ServerState,
    info: KindInfo,
    namespace: str | None,
    name: str,
    body: Payload,
    options: admission.WriteOptions,
) -> Written:
    """PUT ``namespaces/{name}/finalize``: the namespace with the body's spec.finalizers."""
    obj = decode_payload(body)
    admission.check_type(obj, info)
    check_object_name(obj, name)
    check_namespace(obj, info, namespace)
    old = get_object(state, info, namespace, name)
    resource = storage_resource(info)
    admission.check_resource_version(obj, old, resource, name)
    warnings = admission.check_unknown_fields(obj, options)
    strategy.prepare_for_finalize(obj, old)
    obj = admission.default_and_validate(
        obj, info, old=old, subresource="finalize", feature_gates=state.feature_gates
    )
    manager = field_owners.writer(options)
    field_owners.record_update(state, info, old, obj, manager, subresource="finalize")
    if options.dry_run:
        return Written(obj, warnings)
    try:
        updated = state.store.update(resource, to_storage(obj, info))
    except StoreError as err:
        raise from_store_error(err, resource, name) from None
    return Written(to_served(updated, info), warnings)
