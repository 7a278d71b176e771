"""The in-process transport: the API server's operations called directly, no sockets.

``InProcessApi`` has ``HttpApi``'s methods (``podscale.client.http``) and its failure
contract (``http.ApiError`` with the server's ``Status``; ``informer.Gone`` when a watch's
resourceVersion expired) but calls ``podscale.apiserver.operations`` on a ``ServerState``:
the same admission path (defaulting, validation, strategies, conversion) without HTTP or
JSON (each call through ``inprocess_calls``; the kinds served from ``inprocess_kinds``).
``InProcessListWatcher`` feeds an ``Informer``. ``InProcessApi.for_store`` builds a
whole control plane over a ``Store`` in one process (controllers, simulations, tests).

Copies: objects passed in are copied before admission mutates them (an update's copy goes
as an ``OwnedObject``, which a status write defaults in place rather than copying again);
objects handed out are the store's fresh copies (its reads decode a new object each time),
so neither side can change the store or the caller's data by accident, and GET pays no
extra copy.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Final

import orjson
from starlette.applications import Starlette

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
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
from podscale.apiserver.operations import list_verbs, write_verbs
from podscale.apiserver.operations import (
    namespace as operations_namespace,
)
from podscale.apiserver.operations import (
    subresources as operations_subresources,
)
from podscale.apiserver.operations import (
    verbs as operations,
)
from podscale.apiserver.operations import (
    watch as operations_watch,
)
from podscale.apiserver.operations.shared_list import SharedItems
from podscale.apiserver.operations.types import DeleteOptions, EncodedBody, OwnedObject, Written
from podscale.apiserver.registry import admission
from podscale.apiserver.registry.bootstrap import ensure_system_namespaces
from podscale.apiserver.state import DEFAULT_BOOKMARK_INTERVAL, ServerState
from podscale.client import inprocess_kinds
from podscale.client.discovery import ServedKinds
from podscale.client.http import ApiError
from podscale.client.informer import Gone
from podscale.client.inprocess_calls import call, call_async, write_options
from podscale.client.listwatch import ApiListWatcher
from podscale.store.interface import Clock, Preconditions, Store

__all__ = ["InProcessApi", "InProcessListWatcher"]

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


# The manager an InProcessApi writes as unless told otherwise (the embedded plane's
# controllers are ``kube-controller-manager``, as upstream's share that User-Agent prefix).
DEFAULT_FIELD_MANAGER: Final = "podscale"
CONTROLLER_MANAGER: Final = "kube-controller-manager"


class InProcessApi:
    """``HttpApi``'s client interface over a ``ServerState`` (``create_app`` makes one too:
    ``InProcessApi.for_app(app)`` shares a running server's store and settings)."""

    def __init__(self, state: ServerState, *, field_manager: str = DEFAULT_FIELD_MANAGER) -> None:
        self._state = state
        self._field_manager = field_manager

    def with_field_manager(self, field_manager: str) -> InProcessApi:
        """The same API (same server state) writing as ``field_manager`` by default."""
        return InProcessApi(self._state, field_manager=field_manager)

    @property
    def field_manager(self) -> str:
        """The manager writes are recorded under when a call names none."""
        return self._field_manager

    @classmethod
    def for_store(
        cls,
        store: Store,
        clock: Clock,
        *,
        feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES,
        bookmark_interval: float = DEFAULT_BOOKMARK_INTERVAL,
    ) -> InProcessApi:
        """An API over ``store``; the system namespaces are created if missing, as
        kube-apiserver does at start, so objects can be created in ``default``."""
        ensure_system_namespaces(store)
        state = ServerState(
            store=store,
            clock=clock,
            feature_gates=feature_gates,
            bookmark_interval=bookmark_interval,
        )
        return cls(state)

    @classmethod
    def for_app(cls, app: Starlette) -> InProcessApi:
        """The API of an app built by ``podscale.apiserver.http.app.create_app``."""
        state = app.state.podscale
        if not isinstance(state, ServerState):
            raise TypeError("not an app built by podscale.apiserver.http.app.create_app")
        return cls(state)

    @property
    def state(self) -> ServerState:
        return self._state

    async def __aenter__(self) -> InProcessApi:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Nothing to release (the store belongs to whoever made it); for ``HttpApi`` parity."""

    # -- kinds: built in, or defined by a CustomResourceDefinition (``inprocess_kinds``) ----
    async def resolve_kind(self, group: str, version: str, plural: str) -> KindInfo:
        """The kind serving ``plural`` in ``group``/``version``; 404 when nothing does."""
        return inprocess_kinds.resolve_kind(self._state, group, version, plural)

    async def rest_mappings(self, group: str, kind: str) -> builtins.list[KindInfo]:
        """Every version of ``group`` serving ``kind``, preferred first."""
        return inprocess_kinds.rest_mappings(self._state, group, kind)

    async def served_kinds(self) -> ServedKinds:
        """Every resource this server serves (what its discovery lists)."""
        return inprocess_kinds.served_kinds(self._state)

    def _served(self, kind: KindInfo) -> KindInfo:
        return inprocess_kinds.served(self._state, kind)

    def _settle(self, kind: KindInfo) -> None:
        """After a write: the CRD controllers' work, as the HTTP router does it."""
        if is_definition(kind) or isinstance(kind, CustomKind):
            call(lambda: settle(self._state, kind))

    # -- scope checks: the shapes the HTTP router would refuse ------------------------------
    @staticmethod
    def _object_scope(kind: KindInfo, namespace: str | None) -> str | None:
        """The namespace of an object path: none for cluster kinds (as ``resource_path``
        drops it); a namespaced object without one is a path the server does not have."""
        if not kind.namespaced:
            return None
        if not namespace:
            raise ApiError(404, server_errors.path_not_found().status)
        return namespace

    @staticmethod
    def _subresource_verb(kind: KindInfo, subresource: str, verb: str, name: str) -> None:
        sub = kind.subresource(subresource)
        if sub is None:
            missing = missing_subresource(kind, name)
            raise ApiError(missing.code, missing.status)
        if verb not in sub.verbs:
            raise ApiError(405, server_errors.method_not_allowed().status)

    # -- verbs --------------------------------------------------------------------------
    async def get(
        self, kind: KindInfo, namespace: str | None, name: str, subresource: str | None = None
    ) -> JSON:
        state = self._state
        kind = self._served(kind)
        scope = self._object_scope(kind, namespace)
        if subresource is None:
            call(lambda: operations.require_verb(kind, "get"))
            return call(lambda: operations.get_object(state, kind, scope, name))
        self._subresource_verb(kind, subresource, "get", name)
        if subresource == "scale":
            return call(lambda: operations_subresources.get_scale(state, kind, scope, name))
        return call(lambda: operations.get_object(state, kind, scope, name))

    async def list(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        limit: int | None = None,
        continue_token: str | None = None,
        resource_version: str | None = None,
        resource_version_match: str | None = None,
    ) -> JSON:
        """A list as the server serves it; a ``resource_version`` the store has not reached
        waits for it (up to upstream's 3 s) before the 504, like the HTTP server."""
        state = self._state
        kind = self._served(kind)
        scope = (namespace or None) if kind.namespaced else None
        call(lambda: operations.require_verb(kind, "list"))
        page = await call_async(
            list_verbs.list_fresh_page(
                state,
                kind,
                scope,
                label_selector=label_selector or "",
                field_selector=field_selector or "",
                limit=limit if limit and limit > 0 else None,
                continue_token=continue_token,
                resource_version=resource_version or "",
                resource_version_match=resource_version_match or "",
            )
        )
        return call(lambda: list_verbs.list_body(kind, page))

    async def list_shared(self, kind: KindInfo, namespace: str | None, shared: SharedItems) -> JSON:
        """``list(kind, namespace)`` without options, the same list, its items kept in
        ``shared`` between calls: an object unchanged since an earlier call of the caller is
        not decoded again but handed out as the same item, so the caller must never
        mutate one (a reader polling a whole list: ``podscale.scenario.snapshot``)."""
        state = self._state
        kind = self._served(kind)
        scope = (namespace or None) if kind.namespaced else None
        call(lambda: operations.require_verb(kind, "list"))
        page = call(lambda: list_verbs.list_shared_page(state, kind, scope, shared))
        return call(lambda: list_verbs.list_body(kind, page))

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
        kind = self._served(kind)
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
        kind = self._served(kind)
        scope = self._object_scope(kind, namespace)
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
            self._subresource_verb(kind, subresource, verb, name)
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
        kind = self._served(kind)
        scope = self._object_scope(kind, namespace)
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
        kind = self._served(kind)
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

    async def watch(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        resource_version: str = "",
        label_selector: str | None = None,
        field_selector: str | None = None,
        timeout_seconds: int | None = None,
        send_initial_events: bool | None = None,
    ) -> AsyncIterator[tuple[str, JSON]]:
        """``(type, object)`` pairs (BOOKMARKs included) until the watch ends or
        ``timeout_seconds`` pass; ``Gone`` when ``resource_version`` is too old.
        ``send_initial_events`` asks for a watch-list stream (the current state, then the
        BOOKMARK annotated ``k8s.io/initial-events-end``, then changes)."""
        kind = self._served(kind)
        call(lambda: operations.require_verb(kind, "watch"))
        events = operations_watch.watch_events(
            self._state,
            kind,
            (namespace or None) if kind.namespaced else None,
            resource_version=resource_version,
            label_selector=label_selector or "",
            field_selector=field_selector or "",
            timeout_seconds=float(timeout_seconds) if timeout_seconds else None,
            send_initial_events=send_initial_events,
            resource_version_match="" if send_initial_events is None else "NotOlderThan",
        )
        try:
            while True:
                try:
                    event = await anext(events)
                except StopAsyncIteration:
                    # Yield to the loop once: a watch of a closed store ends at once, and a
                    # caller that re-watches in a loop (an informer) must not starve the rest.
                    await asyncio.sleep(0)
                    return
                except server_errors.ApiError as err:
                    if err.code == 410:
                        raise Gone(str(err.status.get("message") or "")) from None
                    raise ApiError(err.code, err.status) from None
                yield event
        finally:
            await events.aclose()


# Kept under this name for callers; one implementation serves both transports.
InProcessListWatcher = ApiListWatcher
