"""The write verbs of the in-process transport: create, update, patch and delete.

``InProcessWrites`` is a base class of ``InProcessApi`` (``client.inprocess``, which has the
reads, the watch and the constructors): ``create``, ``update``, ``patch``, ``delete`` and
``delete_collection`` with ``HttpApi``'s signatures, each refusing the shapes the HTTP router
would (``inprocess_kinds.object_scope``/``subresource_verb``), calling the API server's write
operation for the (sub)resource (``operations.write_verbs``, ``subresources``, ``namespace``,
``binding``, ``apply``, ``delete``) through ``inprocess_calls.call``, and then settling a
CRD or custom resource write (``customresources.lifecycle.settle``) as the router does.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from podscale.api.json_copy import copy_json
from podscale.api.kinds import KindInfo
from podscale.apiserver import errors as server_errors
from podscale.apiserver.customresources.definitions import (
    CustomKind,
    is_definition,
)
from podscale.apiserver.customresources.lifecycle import settle
from podscale.apiserver.customresources.serving import missing_subresource
from podscale.apiserver.operations import apply as operations_apply
from podscale.apiserver.operations import (
    binding as operations_binding,
)
from podscale.apiserver.operations import (
    delete as operations_delete,
)
from podscale.apiserver.operations import (
    namespace as operations_namespace,
)
from podscale.apiserver.operations import (
    subresources as operations_subresources,
)
from podscale.apiserver.operations import (
    verbs as operations,
)
from podscale.apiserver.operations import write_verbs
from podscale.apiserver.operations.types import DeleteOptions, EncodedBody, OwnedObject, Written
from podscale.apiserver.registry import admission
from podscale.apiserver.state import ServerState
from podscale.client import inprocess_kinds
from podscale.client.http import ApiError
from podscale.client.inprocess_calls import call, write_options
from podscale.store.interface import Preconditions

__all__ = ["InProcessWrites"]

JSON = dict[str, Any]
# One write operation: (state, kind, namespace, name, body or patch, options).
_Writer = Callable[[ServerState, KindInfo, str | None, str, Any, admission.WriteOptions], Written]
_UPDATES: Mapping[str, tuple[str, _Writer]] = {
    "": ("update", write_verbs.update_object),
    "scale": ("update", operations_subresources.update_scale),
    "status": ("update", operations_subresources.update_status),
    "finalize": ("update", operations_namespace.update_finalize),
}
# POST to an object's subresource: only pods/binding takes one.
_CREATES: Mapping[str, tuple[str, _Writer]] = {
    "binding": ("create", operations_binding.create_binding),
}
_PATCHES: Mapping[str, tuple[str, _Writer]] = {
    "": ("patch", operations_apply.patch_object),
    "scale": ("patch", operations_apply.patch_scale),
    "status": ("patch", operations_apply.patch_status),
}


class InProcessWrites:
    """``InProcessApi``'s writes: its ``_state`` and default ``_field_manager`` are set by
    ``InProcessApi.__init__``."""

    _state: ServerState
    _field_manager: str

    def _settle(self, kind: KindInfo) -> None:
        """After a write: the CRD controllers' work, as the HTTP router does it."""
        if is_definition(kind) or isinstance(kind, CustomKind):
            call(lambda: settle(self._state, kind))

    async def create(
        self,
        kind: KindInfo,
        namespace: str | None,
        obj: JSON,
        *,
        subresource: str | None = None,
        dry_run: bool = False,
        field_validation: str | None = None,
        field_manager: str | None = None,
    ) -> JSON:
        """POST: a new object, or (``subresource="binding"``) a Binding to the pod that
        ``obj``'s ``metadata.name`` names, as ``HttpApi`` builds the path from it; the reply
        is then the server's Success ``Status``."""
        state = self._state
        kind = inprocess_kinds.served(state, kind)
        options = write_options(dry_run, field_validation, field_manager or self._field_manager)
        if subresource is not None:
            name = str((obj.get("metadata") or {}).get("name") or "")
            return self._write(
                _CREATES, kind, namespace, name, subresource, copy_json(obj), options
            )
        if kind.namespaced and not namespace:
            # POST on the all-namespaces collection: the router answers 405.
            raise ApiError(405, server_errors.method_not_allowed().status)
        scope = namespace if kind.namespaced else None

        def run() -> Written:
            operations.require_verb(kind, "create")
            return write_verbs.create_object(state, kind, scope, copy_json(obj), options)

        created = call(run).object
        self._settle(kind)
        return created

    async def update(
        self,
        kind: KindInfo,
        namespace: str | None,
        obj: JSON,
        subresource: str | None = None,
        *,
        dry_run: bool = False,
        field_validation: str | None = None,
        field_manager: str | None = None,
    ) -> JSON:
        """PUT: the name comes from ``obj`` (as ``HttpApi`` builds the path from it)."""
        options = write_options(dry_run, field_validation, field_manager or self._field_manager)
        name = str(obj["metadata"]["name"])
        # The copy is the server's own: a status write defaults it in place.
        payload = OwnedObject(copy_json(obj))
        return self._write(_UPDATES, kind, namespace, name, subresource, payload, options)

    async def patch(
        self,
        kind: KindInfo,
        namespace: str | None,
        name: str,
        patch: JSON | builtins.list[Any],
        *,
        content_type: str = "application/merge-patch+json",
        subresource: str | None = None,
        dry_run: bool = False,
        field_validation: str | None = None,
        field_manager: str | None = None,
        force: bool | None = None,
    ) -> JSON:
        """The patch formats work on the patch document's bytes, so it is encoded once
        (``application/apply-patch+yaml``: server-side apply of ``patch``, with ``force``)."""
        manager = field_manager or self._field_manager
        options = write_options(dry_run, field_validation, manager, force)
        encoded = EncodedBody(orjson.dumps(patch), content_type)
        return self._write(_PATCHES, kind, namespace, name, subresource, encoded, options)

    def _write(
        self,
        writers: Mapping[str, tuple[str, _Writer]],
        kind: KindInfo,
        namespace: str | None,
        name: str,
        subresource: str | None,
        payload: Any,
        options: admission.WriteOptions,
    ) -> JSON:
        state = self._state
        kind = inprocess_kinds.served(state, kind)
        scope = inprocess_kinds.object_scope(kind, namespace)
        if subresource is not None and kind.subresource(subresource) is None:
            missing = missing_subresource(kind, name)
            raise ApiError(missing.code, missing.status)
        entry = writers.get(subresource or "")
        if entry is None:
            # A served subresource without this verb (PUT to pods/binding, POST to status).
            raise ApiError(405, server_errors.method_not_allowed().status)
        verb, write = entry
        if subresource is None:
            call(lambda: operations.require_verb(kind, verb))
        else:
            inprocess_kinds.subresource_verb(kind, subresource, verb, name)
        written = call(lambda: write(state, kind, scope, name, payload, options)).object
        self._settle(kind)
        return written

    async def delete(
        self,
        kind: KindInfo,
        namespace: str | None,
        name: str,
        *,
        propagation: str | None = None,
        preconditions: Preconditions | None = None,
        grace_period_seconds: int | None = None,
        dry_run: bool = False,
    ) -> JSON:
        """The reply body: the object (pods, or any object finalizers keep) or a Status."""
        state = self._state
        kind = inprocess_kinds.served(state, kind)
        scope = inprocess_kinds.object_scope(kind, namespace)
        options = DeleteOptions(
            propagation_policy=propagation or "",
            preconditions=preconditions or Preconditions(),
            dry_run=dry_run,
            grace_period_seconds=grace_period_seconds,
        )

        def run() -> JSON:
            operations.require_verb(kind, "delete")
            return operations_delete.delete_object(state, kind, scope, name, options).body

        deleted = call(run)
        self._settle(kind)
        return deleted

    async def delete_collection(
        self,
        kind: KindInfo,
        namespace: str | None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        propagation: str | None = None,
        grace_period_seconds: int | None = None,
        dry_run: bool = False,
    ) -> JSON:
        """deletecollection: every object of the collection the selectors match is deleted
        (each as a single delete would be, finalizers and graceful pods included); the reply
        is the list of them, as the server's DELETE on a collection answers. A namespaced
        kind needs a namespace (the all-namespaces path takes no DELETE: 405)."""
        state = self._state
        kind = inprocess_kinds.served(state, kind)
        if kind.namespaced and not namespace:
            raise ApiError(405, server_errors.method_not_allowed().status)
        scope = namespace if kind.namespaced else None
        options = DeleteOptions(
            propagation_policy=propagation or "",
            dry_run=dry_run,
            grace_period_seconds=grace_period_seconds,
        )

        def run() -> JSON:
            operations.require_verb(kind, "deletecollection")
            return operations_delete.delete_collection(
                state,
                kind,
                scope,
                options,
                label_selector=label_selector or "",
                field_selector=field_selector or "",
            )

        deleted = call(run)
        self._settle(kind)
        return deleted
