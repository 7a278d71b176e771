"""The ownership graph kept current from informer events, as upstream's GraphBuilder does.

``LiveGraph`` holds one ``Node`` per observed uid and, per owner uid, the uids of the objects
that name it, whether or not the owner itself has been observed (an owner referenced but
never seen is upstream's "virtual" node: it has dependents but no ``Node``, and ``classify``
reads it as dangling until ``controller`` verifies it with a live GET). ``observe`` and
``forget`` apply an informer event and return the uids whose decisions it may change: the
object, its owners before and after, and its dependents. An update that leaves the
collector's view unchanged (status, labels, a resync) returns nothing. ``view`` hands the
planner (``plan``) an ``OwnershipGraph`` over the live indexes, valid until the next event.
"""

from __future__ import annotations

import dataclasses
from collections import ChainMap
from collections.abc import Iterator, Mapping
from typing import Any

from podscale.controllers.garbagecollector.graph import (
    Node,
    OwnershipGraph,
    ScopeLookup,
    node_from_object,
    registry_scope,
)

__all__ = ["LiveGraph"]


class _DependentsView(Mapping[str, tuple[str, ...]]):
    """Read-only ``OwnershipGraph.dependents`` over the mutable per-owner index."""

    def __init__(self, index: dict[str, dict[str, None]]) -> None:
        self._index = index

    def __getitem__(self, uid: str) -> tuple[str, ...]:
        return tuple(self._index[uid])

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


def _decision_view(node: Node) -> Node:
    # The resourceVersion changes on every write; the collector's decisions do not.
    return dataclasses.replace(node, resource_version=None)


class LiveGraph:
    """Nodes by uid and dependents by owner uid, updated one informer event at a time."""

    def __init__(self, *, scope_of: ScopeLookup = registry_scope) -> None:
        self._nodes: dict[str, Node] = {}
        self._dependents: dict[str, dict[str, None]] = {}
        self._scope_of = scope_of

    def __len__(self) -> int:
        return len(self._nodes)

    def get(self, uid: str) -> Node | None:
        return self._nodes.get(uid)

    def view(self, extra: Mapping[str, Node] | None = None) -> OwnershipGraph:
        """The planner's graph; ``extra`` adds nodes known only from live GETs."""
        nodes: Mapping[str, Node] = ChainMap(dict(extra), self._nodes) if extra else self._nodes
        return OwnershipGraph(
            nodes=nodes, dependents=_DependentsView(self._dependents), scope_of=self._scope_of
        )

    def observe(self, obj: Mapping[str, Any]) -> list[str]:
        """Apply an add or update; the uids to reconcile because of it."""
        node = node_from_object(obj)
        if node is None:
            return []
        uid = node.ref.uid
        old = self._nodes.get(uid)
        self._nodes[uid] = node
        if old is not None and _decision_view(old) == _decision_view(node):
            return []
        old_owners = [] if old is None else [o.uid for o in old.owner_references]
        new_owners = [o.uid for o in node.owner_references]
        for owner in set(old_owners) - set(new_owners):
            self._unlink(owner, uid)
        for owner in new_owners:
            self._dependents.setdefault(owner, {})[uid] = None
        return self._affected(uid, old_owners + new_owners)

    def forget(self, obj: Mapping[str, Any]) -> list[str]:
        """Apply a delete; the uids to reconcile (owners it blocked, dependents it owned)."""
        seen = node_from_object(obj)
        if seen is None:
            return []
        uid = seen.ref.uid
        node = self._nodes.pop(uid, seen)
        owners = [o.uid for o in node.owner_references]
        for owner in owners:
            self._unlink(owner, uid)
        # The uid's own dependents index stays: they still name it until they are collected.
        return [u for u in self._affected(uid, owners) if u != uid]

    def _unlink(self, owner: str, dependent: str) -> None:
        dependents = self._dependents.get(owner)
        if dependents is None:
            return
        dependents.pop(dependent, None)
        if not dependents:
            del self._dependents[owner]

    def _affected(self, uid: str, owners: list[str]) -> list[str]:
        affected = dict.fromkeys([uid, *owners, *self._dependents.get(uid, {})])
        return list(affected)
