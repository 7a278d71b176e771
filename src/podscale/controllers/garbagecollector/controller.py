"""The garbage collector controller: the planner applied to a live cluster.

Upstream's GarbageCollector (pkg/controller/garbagecollector/garbagecollector.go with
graph_builder.go) as one podscale ``Controller``. Every watched kind feeds ``LiveGraph``
through the shared informers; each event enqueues the uids whose decisions it may change
(the object, its owners, its dependents), so keys here are uids, not ``namespace/name``.
``reconcile(uid)`` is attemptToDeleteItem / attemptToOrphanWorker in one: it raises the
OwnerRefInvalidNamespace warnings not yet raised, verifies every owner the cache does not
resolve with a live GET at the reference's coordinates (upstream's isDangling: a cache
that lags behind a fresh owner never gets a dependent collected; confirmed absences are
remembered in a 500-entry cache as upstream's absentOwnerCache), runs ``plan_node`` and
applies its actions in order through ``operations`` (the first failure raises, and the
manager requeues the uid with backoff). Being level-triggered, a restart resumes any cascade
from the objects' own finalizers and ownerReferences. Run by ``controllers.manager``.

Which kinds it watches follows discovery, as upstream's ``Sync``: with a client that has
``served_kinds`` (both transports), the monitored kinds (``mapping.monitored_kinds``) and the
REST mapping are refreshed every ``DISCOVERY_SYNC_PERIOD``, at once when a
CustomResourceDefinition changes, and when an ownerReference names a kind the mapping does
not know (upstream's deferred mapper rediscovers on a miss). New kinds get informers (the
manager starts them while running); kinds no longer served lose theirs. A group version whose
discovery failed keeps its monitors. These syncs run as reserved queue keys (never uids).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo, all_kinds
from podscale.client.discovery import ServedKinds
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.garbagecollector.classify import (
    classify_references,
    invalid_namespace_owner_refs,
)
from podscale.controllers.garbagecollector.graph import (
    Node,
    ObjectRef,
    OwnershipGraph,
    node_from_object,
)
from podscale.controllers.garbagecollector.live_graph import LiveGraph
from podscale.controllers.garbagecollector.mapping import (
    KindMapping,
    monitored_kinds,
    registry_mapping,
)
from podscale.controllers.garbagecollector.operations import GcOperations
from podscale.controllers.garbagecollector.plan import plan_events, plan_node
from podscale.controllers.runtime_api import ControllerApi, KindDiscovery, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.store.interface import Clock

__all__ = [
    "COMPONENT",
    "DISCOVERY_SYNC_PERIOD",
    "GarbageCollectorController",
    "default_gc_kinds",
]

_LOG = logging.getLogger(__name__)
COMPONENT: Final = "garbage-collector-controller"
# How often kube-controller-manager runs the collector's Sync over discovery.
DISCOVERY_SYNC_PERIOD: Final = timedelta(seconds=30)
# Reserved queue keys (uids never look like these): the periodic discovery sync, which
# schedules its next run, and the one asked for by an event, which does not.
_PERIODIC_SYNC: Final = "\x00discovery-periodic"
_SYNC_NOW: Final = "\x00discovery"
_CRD_GROUP: Final = "apiextensions.k8s.io"
# Upstream's absentOwnerCache size.
_ABSENT_CACHE_SIZE: Final = 500
# An owner found live but of a kind nobody watches is re-checked this often (upstream
# requeues such virtual nodes until an informer observes them).
_UNWATCHED_OWNER_RECHECK: Final = timedelta(seconds=30)

JSON = dict[str, Any]


def default_gc_kinds() -> tuple[KindInfo, ...]:
    """Every built-in kind that can be deleted, listed and watched (one version per kind)."""
    return monitored_kinds(all_kinds())


def _key(info: KindInfo) -> tuple[str, str, str]:
    return (info.group, info.version, info.plural)


def _is_definition(obj: Mapping[str, Any]) -> bool:
    api_version = str(obj.get("apiVersion", ""))
    return api_version.rpartition("/")[0] == _CRD_GROUP and obj.get("kind") == (
        "CustomResourceDefinition"
    )


class _AbsentOwners:
    """A bounded memory of owner coordinates a live GET found absent (least recent out)."""

    def __init__(self, capacity: int = _ABSENT_CACHE_SIZE) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[ObjectRef, None] = OrderedDict()

    def __contains__(self, ref: ObjectRef) -> bool:
        if ref in self._entries:
            self._entries.move_to_end(ref)
            return True
        return False

    def add(self, ref: ObjectRef) -> None:
        self._entries[ref] = None
        self._entries.move_to_end(ref)
        while len(self._entries) > self._capacity:
            self._entries.popitem(last=False)


def _uid_of(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("uid") or "")


class GarbageCollectorController:
    """Collects dependents by ownerReferences; see the module docstring."""

    name: Final = "garbagecollector"
    workers_flag: Final = "concurrent_gc_syncs"

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        *,
        kinds: Sequence[KindInfo] | None = None,
        discovery_period: timedelta = DISCOVERY_SYNC_PERIOD,
    ) -> None:
        """``kinds`` fixes the watched kinds (no discovery); by default they start as the
        built-in ones and follow the client's ``served_kinds`` when it has that."""
        self._kinds = tuple(kinds) if kinds is not None else default_gc_kinds()
        self._discovery = api if kinds is None and isinstance(api, KindDiscovery) else None
        self._discovery_period = discovery_period
        self._monitors = {_key(info): info for info in self._kinds}
        self._mapping = registry_mapping()
        # The discovery answer the last ``_sync_monitors`` made the monitors and mapping from.
        self._synced: ServedKinds | None = None
        self.graph = LiveGraph(scope_of=self._scope_of)
        self._ops = GcOperations(
            api, EventRecorder(api, clock, COMPONENT), mapping=lambda: self._mapping
        )
        self._reported: set[tuple[str, str]] = set()
        self._absent = _AbsentOwners()
        self._queue: WorkQueue[str] | None = None
        self._informers: SharedInformers | None = None
        self._handler = EventHandler(self._on_add, self._on_update, self._on_delete)

    @property
    def informer_kinds(self) -> Sequence[KindInfo]:
        return self._kinds

    @property
    def monitored(self) -> tuple[KindInfo, ...]:
        """The kinds watched now."""
        return tuple(self._monitors.values())

    def _scope_of(self, api_version: str, kind: str) -> bool | None:
        return self._mapping.scope_of(api_version, kind)

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        self._informers = informers
        for kind in self._kinds:
            informers.informer_for(kind).add_handler(self._handler)
        if self._discovery is not None:
            queue.add(_PERIODIC_SYNC)

    def _enqueue(self, uids: list[str]) -> None:
        if self._queue is None:
            raise RuntimeError("GarbageCollectorController used before bind()")
        for uid in uids:
            self._queue.add(uid)

    def _on_add(self, obj: JSON) -> None:
        self._definition_changed(obj)
        self._enqueue(self.graph.observe(obj))

    def _on_update(self, old: JSON, new: JSON) -> None:
        if _uid_of(old) != _uid_of(new):
            self._on_delete(old)  # deleted and re-created between two observations
        elif _is_definition(new) and (
            old.get("status") != new.get("status") or old.get("spec") != new.get("spec")
        ):
            self._definition_changed(new)
        self._enqueue(self.graph.observe(new))

    def _on_delete(self, obj: JSON) -> None:
        self._definition_changed(obj)
        gone = self.graph.get(_uid_of(obj))
        if gone is not None:
            for owner in gone.owner_references:
                self._reported.discard((gone.ref.uid, owner.uid))
        self._enqueue(self.graph.forget(obj))

    def _definition_changed(self, obj: JSON) -> None:
        """A CRD came, changed or went: its kinds may have too (discovery is looked at now
        rather than at the next period, so new custom kinds are collected at once)."""
        if self._discovery is not None and self._queue is not None and _is_definition(obj):
            self._queue.add(_SYNC_NOW)

    # -- discovery --------------------------------------------------------------------

    async def _sync_monitors(self) -> None:
        """Upstream's ``Sync``: watch what discovery lists now, map by it."""
        if self._discovery is None or self._informers is None:
            return
        served = await self._discovery.served_kinds()
        if not served.kinds:
            return  # upstream skips a sync when discovery reports nothing
        if served is self._synced and not served.failed:
            # The very answer the monitors and mapping were last made from (an in-process
            # server keeps one per CRD snapshot): making them again would give the same.
            return
        failed = served.failed
        kept = [k for k in self._mapping.kinds if (k.group, k.version) in failed]
        self._mapping = KindMapping((*served.kinds, *kept))
        wanted = {_key(info): info for info in monitored_kinds(served.kinds)}
        for key, info in self._monitors.items():
            if (info.group, info.version) in failed:
                wanted.setdefault(key, info)
        for key in self._monitors.keys() - wanted.keys():
            self._informers.release(self._monitors[key], self._handler)
            _LOG.info("garbage collector stopped monitoring %s", "/".join(key))
        for key in wanted.keys() - self._monitors.keys():
            self._informers.informer_for(wanted[key]).add_handler(self._handler)
            _LOG.info("garbage collector started monitoring %s", "/".join(key))
        self._monitors = wanted
        self._synced = served

    async def _periodic_sync(self) -> None:
        try:
            await self._sync_monitors()
        except Exception as err:  # the next period tries again, as upstream's Sync loop
            _LOG.warning("garbage collector discovery sync failed: %s", err)
        finally:
            if self._queue is not None:
                self._queue.add_after(_PERIODIC_SYNC, self._discovery_period)

    def _unmapped(self, node: Node) -> list[str]:
        return [
            f"{ref.kind}.{ref.api_version}"
            for ref in node.owner_references
            if self._mapping.kind_of(ref.api_version, ref.kind) is None
        ]

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        """Bring the object with uid ``key`` and its dependents one step closer to their
        final state; raises to be retried."""
        if key == _PERIODIC_SYNC:
            await self._periodic_sync()
            return
        if key == _SYNC_NOW:
            await self._sync_monitors()
            return
        node = self.graph.get(key)
        if node is None:
            return  # gone: its deletion already enqueued whatever it affects
        unmapped = self._unmapped(node) if self._discovery is not None else []
        if unmapped:
            # Upstream's restMappingError: rediscover, and retry the item with backoff.
            if self._queue is not None:
                self._queue.add(_SYNC_NOW)
            raise LookupError(f"unable to get REST mapping for {', '.join(unmapped)}")
        graph = self.graph.view()
        await self._ops.apply_all(plan_events(graph, node, self._reported), graph.nodes)
        for owner in invalid_namespace_owner_refs(graph, node):
            self._reported.add((node.ref.uid, owner.uid))
        live_owners = await self._verify_absent_owners(graph, node)
        if live_owners:
            graph = self.graph.view(live_owners)
        await self._ops.apply_all(plan_node(graph, node), graph.nodes)

    async def _verify_absent_owners(self, graph: OwnershipGraph, node: Node) -> dict[str, Node]:
        """Owners the cache does not resolve but the API server has (the cache lags)."""
        if node.being_deleted or not node.owner_references:
            return {}
        refs = classify_references(graph, node)
        found: dict[str, Node] = {}
        for ref in refs.dangling:
            namespaced = graph.scope_of(ref.api_version, ref.kind)
            namespace = node.ref.namespace if namespaced else ""
            coordinates = ObjectRef(ref.api_version, ref.kind, namespace, ref.name, ref.uid)
            if coordinates in self._absent:
                continue
            live = await self._ops.get(ref.api_version, ref.kind, namespace, ref.name)
            owner = node_from_object(live) if live is not None else None
            if owner is None or owner.ref.uid != ref.uid:
                self._absent.add(coordinates)
                continue
            found[owner.ref.uid] = owner
            if not self._is_watched(ref.api_version, ref.kind) and self._queue is not None:
                self._queue.add_after(node.ref.uid, _UNWATCHED_OWNER_RECHECK)
        return found

    def _is_watched(self, api_version: str, kind: str) -> bool:
        info = self._mapping.kind_of(api_version, kind)
        return info is not None and any(
            (m.group, m.kind) == (info.group, info.kind) for m in self._monitors.values()
        )
