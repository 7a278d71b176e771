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
from datetime import timedelta
from typing import Any, Protocol

from podscale.api.kinds import KindInfo
from podscale.client.informer import Informer, ListWatcher
from podscale.client.listwatch import ApiListWatcher, ResourceApi
from podscale.store.interface import Clock, Preconditions

__all__ = ["STRATEGIC_MERGE_PATCH", "ControllerApi", "SharedInformers"]

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


def _kind_key(kind: KindInfo) -> tuple[str, str, str]:
    group, version = kind.group_version
    return group, version, kind.plural


class SharedInformers:
    """One ``Informer`` per resource over ``api``, made on first ``informer_for``."""

    def __init__(self, api: ControllerApi, clock: Clock, *, resync: timedelta | None = None):
        self._api = api
        self._clock = clock
        self._resync = resync
        self._informers: dict[tuple[str, str, str], Informer] = {}

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
        return informer

    def all(self) -> list[Informer]:
        """Every informer made so far, in creation order."""
        return list(self._informers.values())

    def named(self) -> list[tuple[str, Informer]]:
        """Every informer with its resource name (``pods``, ``replicasets.apps``), in
        creation order: how health checks and logs name them."""
        return [
            (f"{plural}.{group}" if group else plural, informer)
            for (group, _, plural), informer in self._informers.items()
        ]
