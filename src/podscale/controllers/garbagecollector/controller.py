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
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo, all_kinds
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
from podscale.controllers.garbagecollector.operations import GcOperations, kind_of
from podscale.controllers.garbagecollector.plan import plan_events, plan_node
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "GarbageCollectorController", "default_gc_kinds"]

_LOG = logging.getLogger(__name__)
COMPONENT: Final = "garbage-collector-controller"
# kube-controller-manager's default --gc-ignored-resources: events are never collected.
_IGNORED: Final = frozenset({("", "Event"), ("events.k8s.io", "Event")})
# Upstream's absentOwnerCache size.
_ABSENT_CACHE_SIZE: Final = 500
# An owner found live but of a kind nobody watches is re-checked this often (upstream
# requeues such virtual nodes until an informer observes them).
_UNWATCHED_OWNER_RECHECK: Final = timedelta(seconds=30)

JSON = dict[str, Any]


def default_gc_kinds() -> tuple[KindInfo, ...]:
    """Every served kind that can be deleted, listed and watched (one version per kind)."""
    return tuple(
        info
        for info in all_kinds()
        if info.top_level
        and info.preferred
        and (info.group, info.kind) not in _IGNORED
        and {"delete", "list", "watch"} <= set(info.verbs)
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
        self, api: ControllerApi, clock: Clock, *, kinds: Sequence[KindInfo] | None = None
    ) -> None:
        self._kinds = tuple(kinds) if kinds is not None else default_gc_kinds()
        self._watched = frozenset((info.group, info.kind) for info in self._kinds)
        self.graph = LiveGraph()
        self._ops = GcOperations(api, EventRecorder(api, clock, COMPONENT))
        self._reported: set[tuple[str, str]] = set()
        self._absent = _AbsentOwners()
        self._queue: WorkQueue[str] | None = None

    @property
    def informer_kinds(self) -> Sequence[KindInfo]:
        return self._kinds

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        handler = EventHandler(self._on_add, self._on_update, self._on_delete)
        for kind in self._kinds:
            informers.informer_for(kind).add_handler(handler)

    def _enqueue(self, uids: list[str]) -> None:
        if self._queue is None:
            raise RuntimeError("GarbageCollectorController used before bind()")
        for uid in uids:
            self._queue.add(uid)

    def _on_add(self, obj: JSON) -> None:
        self._enqueue(self.graph.observe(obj))

    def _on_update(self, old: JSON, new: JSON) -> None:
        if _uid_of(old) != _uid_of(new):
            self._on_delete(old)  # deleted and re-created between two observations
        self._enqueue(self.graph.observe(new))

    def _on_delete(self, obj: JSON) -> None:
        gone = self.graph.get(_uid_of(obj))
        if gone is not None:
            for owner in gone.owner_references:
                self._reported.discard((gone.ref.uid, owner.uid))
        self._enqueue(self.graph.forget(obj))

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        """Bring the object with uid ``key`` and its dependents one step closer to their
        final state; raises to be retried."""
        node = self.graph.get(key)
        if node is None:
            return  # gone: its deletion already enqueued whatever it affects
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
        info = kind_of(api_version, kind)
        return info is not None and (info.group, info.kind) in self._watched
