"""The in-process transport: the API server's operations called directly, no sockets.

``InProcessApi`` has ``HttpApi``'s methods (``podscale.client.http``) and its failure
contract (``http.ApiError`` with the server's ``Status``; ``informer.Gone`` when a watch's
resourceVersion expired) but calls ``podscale.apiserver.operations`` on a ``ServerState``:
the same admission path (defaulting, validation, strategies, conversion) without HTTP or
JSON (each call through ``inprocess_calls``; the kinds served, and the path shapes the router
refuses, from ``inprocess_kinds``). This module has the constructors and the reads (get,
list, the shared list, watch); the writes come from the base class ``InProcessWrites``
(``client.inprocess_writes``). ``InProcessListWatcher`` feeds an ``Informer``.
``InProcessApi.for_store`` builds a whole control plane over a ``Store`` in one process
(controllers, simulations, tests).

Copies: objects passed in are copied before admission mutates them (an update's copy goes
as an ``OwnedObject``, which a status write defaults in place rather than copying again);
objects handed out are the store's fresh copies (its reads decode a new object each time),
so neither side can change the store or the caller's data by accident, and GET pays no
extra copy.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator
from typing import Any, Final

from starlette.applications import Starlette

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
from podscale.api.kinds import KindInfo
from podscale.apiserver import errors as server_errors
from podscale.apiserver.operations import list_verbs
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
from podscale.apiserver.registry.bootstrap import ensure_system_namespaces
from podscale.apiserver.state import DEFAULT_BOOKMARK_INTERVAL, ServerState
from podscale.client import inprocess_kinds
from podscale.client.discovery import ServedKinds
from podscale.client.http import ApiError
from podscale.client.informer import Gone
from podscale.client.inprocess_calls import call, call_async
from podscale.client.inprocess_writes import InProcessWrites
from podscale.client.listwatch import ApiListWatcher
from podscale.store.interface import Clock, Store

__all__ = ["InProcessApi", "InProcessListWatcher"]

JSON = dict[str, Any]

# The manager an InProcessApi writes as unless told otherwise (the embedded plane's
# controllers are ``kube-controller-manager``, as upstream's share that User-Agent prefix).
DEFAULT_FIELD_MANAGER: Final = "podscale"
CONTROLLER_MANAGER: Final = "kube-controller-manager"


class InProcessApi(InProcessWrites):
    """``HttpApi``'s client interface over a ``ServerState`` (``create_app`` makes one too:
    ``InProcessApi.for_app(app)`` shares a running server's store and settings); the
    writes are ``InProcessWrites``' (``client.inprocess_writes``)."""

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

    # -- reads (the writes: ``InProcessWrites``) ------------------------------------------
    async def get(
        self, kind: KindInfo, namespace: str | None, name: str, subresource: str | None = None
    ) -> JSON:
        state = self._state
        kind = inprocess_kinds.served(state, kind)
        scope = inprocess_kinds.object_scope(kind, namespace)
        if subresource is None:
            call(lambda: operations.require_verb(kind, "get"))
            return call(lambda: operations.get_object(state, kind, scope, name))
        inprocess_kinds.subresource_verb(kind, subresource, "get", name)
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
        kind = inprocess_kinds.served(state, kind)
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
        kind = inprocess_kinds.served(state, kind)
        scope = (namespace or None) if kind.namespaced else None
        call(lambda: operations.require_verb(kind, "list"))
        page = call(lambda: list_verbs.list_shared_page(state, kind, scope, shared))
        return call(lambda: list_verbs.list_body(kind, page))

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
        kind = inprocess_kinds.served(self._state, kind)
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
