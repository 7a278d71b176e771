"""What a controller needs from an API client, and the shared informers it reads through.

Both transports (``podscale.client.inprocess.InProcessApi``, embedded, and
``podscale.client.http.HttpApi``, any API server) satisfy ``ControllerApi``, so every
controller runs the same code in-process or against a remote server. ``SharedInformers``
is kube-controller-manager's shared informer factory in miniature: one informer per
resource (all namespaces), created on first request and shared by every controller that
asks, so a pod watch is opened once however many controllers look at pods.
``podscale.controllers.manager`` starts them and waits for them to sync.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Protocol, runtime_checkable

from podscale.api.kinds import KindInfo
from podscale.client.discovery import ServedKinds
from podscale.client.informer import EventHandler, Informer, ListWatcher
from podscale.client.listwatch import ApiListWatcher, ResourceApi
from podscale.store.interface import Clock, Preconditions

__all__ = ["STRATEGIC_MERGE_PATCH", "ControllerApi", "KindDiscovery", "SharedInformers"]

JSON = dict[str, Any]
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"


class ControllerApi(ResourceApi, Protocol):
    """The verbs controllers use (``list``/``watch`` come from the client's ``ResourceApi``);
    failures raise ``podscale.client.http.ApiError``."""

    async def get(
        self, kind: KindInfo, namespace: str | None, name: str, subresource: str | None = None
    ) -> JSON: ...

    async def create(
        self, kind: KindInfo, namespace: str | None, obj: JSON, *, subresource: str | None = None
    ) -> JSON:
        """POST ``obj``; ``subresource="binding"`` binds the pod ``obj`` names instead."""
        ...

    async def update(
        self, kind: KindInfo, namespace: str | None, obj: JSON, subresource: str | None = None
    ) -> JSON: ...

    async def patch(
        self,
        kind: KindInfo,
        namespace: str | None,
        name: str,
        patch: JSON | builtins.list[Any],
        *,
        content_type: str = ...,
        subresource: str | None = None,
    ) -> JSON: ...

    async def delete(
        self,
        kind: KindInfo,
        namespace: str | None,
        name: str,
        *,
        propagation: str | None = None,
        preconditions: Preconditions | None = None,
        grace_period_seconds: int | None = None,
    ) -> JSON: ...

    async def rest_mappings(self, group: str, kind: str) -> builtins.list[KindInfo]:
        """Upstream's ``RESTMapper.RESTMappings`` for a GroupKind: every version the server
        serves ``kind`` in (built in or custom), the group's preferred version first; none
        when nothing serves it."""
        ...


@runtime_checkable
class KindDiscovery(Protocol):
    """What a client serves, as discovery tells (both transports implement it): controllers
    that act on every kind (garbage collector, namespace controller) follow it, so kinds
    CustomResourceDefinitions add or remove are covered as they come and go."""

    async def served_kinds(self) -> ServedKinds: ...


def _kind_key(kind: KindInfo) -> tuple[str, str, str]:
    group, version = kind.group_version
    return group, version, kind.plural


# Runs an informer made after the manager started (named as in ``named``); returns what
# stops that run.
Starter = Callable[[str, Informer], Callable[[], None]]


def _name(key: tuple[str, str, str]) -> str:
    group, _, plural = key
    return f"{plural}.{group}" if group else plural


class SharedInformers:
    """One ``Informer`` per resource over ``api``, made on first ``informer_for``. Once the
    manager runs (``start_new_with``), an informer made later is started at once, and
    ``release`` stops one that its last handler no longer needs: how the garbage collector
    follows kinds that CustomResourceDefinitions add and remove."""

    def __init__(self, api: ControllerApi, clock: Clock, *, resync: timedelta | None = None):
        self._api = api
        self._clock = clock
        self._resync = resync
        self._informers: dict[tuple[str, str, str], Informer] = {}
        self._starter: Starter | None = None
        self._stoppers: dict[tuple[str, str, str], Callable[[], None]] = {}

    def informer_for(self, kind: KindInfo, source: ListWatcher | None = None) -> Informer:
        """The shared informer of ``kind`` (all namespaces), created if needed. ``source``
        replaces the plain list-watch of the API when this call creates it (a custom kind's
        informer that waits for its CRD: ``controllers.webapp.definition_gate``)."""
        key = _kind_key(kind)
        informer = self._informers.get(key)
        if informer is None:
            source = source if source is not None else ApiListWatcher(self._api, kind)
            informer = Informer(source, self._clock, resync=self._resync)
            self._informers[key] = informer
            if self._starter is not None:
                self._stoppers[key] = self._starter(_name(key), informer)
        return informer

    def start_new_with(self, starter: Starter | None) -> None:
        """From now on hand every new informer to ``starter`` (None: stop doing so)."""
        self._starter = starter

    def release(self, kind: KindInfo, handler: EventHandler) -> None:
        """Take ``handler`` off ``kind``'s informer; an informer started after the manager
        and left without handlers is stopped and forgotten (the informers made before the
        start run for the manager's whole life, as client-go's shared informers do)."""
        key = _kind_key(kind)
        informer = self._informers.get(key)
        if informer is None:
            return
        informer.handlers[:] = [h for h in informer.handlers if h is not handler]
        stop = self._stoppers.get(key)
        if stop is not None and not informer.handlers:
            del self._informers[key]
            del self._stoppers[key]
            informer.stop()
            stop()

    def all(self) -> list[Informer]:
        """Every informer made so far, in creation order."""
        return list(self._informers.values())

    def named(self) -> list[tuple[str, Informer]]:
        """Every informer with its resource name (``pods``, ``replicasets.apps``), in
        creation order: how health checks and logs name them."""
        return [(_name(key), informer) for key, informer in self._informers.items()]
