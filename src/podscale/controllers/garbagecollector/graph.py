"""The ownership graph: every object by uid, with the ownerReferences that point between them.

Mirrors the view upstream's GraphBuilder keeps (pkg/controller/garbagecollector/graph_builder.go,
``uidToNode``), rebuilt from a full listing instead of a watch: nodes are keyed by uid and each
node knows its dependents (the objects whose ownerReferences name its uid, whatever their
namespace). An ownerReference whose uid has no node is an absent owner; ``classify`` (the
neighbour module) decides what each reference means and ``plan`` turns that into actions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from podscale.api.kinds import all_kinds

__all__ = [
    "FINALIZER_DELETE_DEPENDENTS",
    "FINALIZER_ORPHAN_DEPENDENTS",
    "Node",
    "ObjectRef",
    "OwnerRef",
    "OwnershipGraph",
    "ScopeLookup",
    "build_graph",
    "node_from_object",
    "registry_scope",
]

FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion"
FINALIZER_ORPHAN_DEPENDENTS = "orphan"

# (apiVersion, kind) -> True if namespaced, False if cluster-scoped, None if the kind is unknown
# (upstream's REST mapping error: the item is retried, never collected on a guess).
ScopeLookup = Callable[[str, str], "bool | None"]


@dataclass(frozen=True)
class ObjectRef:
    """Identity of one object, as the GC addresses it in API calls and events."""

    api_version: str
    kind: str
    namespace: str
    name: str
    uid: str

    def __str__(self) -> str:
        # Upstream objectReference.String(): the form events and logs print.
        return (
            f"[{self.api_version}/{self.kind}, namespace: {self.namespace}, "
            f"name: {self.name}, uid: {self.uid}]"
        )


@dataclass(frozen=True)
class OwnerRef:
    """One ``metadata.ownerReferences`` entry; absent booleans read as False like upstream."""

    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool = False
    block_owner_deletion: bool = False


@dataclass(frozen=True)
class Node:
    """One observed object: its identity plus the metadata the collector reasons about."""

    ref: ObjectRef
    owner_references: tuple[OwnerRef, ...]
    finalizers: tuple[str, ...]
    deletion_timestamp: str | None
    resource_version: str | None

    @property
    def being_deleted(self) -> bool:
        return self.deletion_timestamp is not None

    @property
    def deleting_dependents(self) -> bool:
        """Foreground deletion in progress: the owner waits for its blocking dependents."""
        return self.being_deleted and FINALIZER_DELETE_DEPENDENTS in self.finalizers

    @property
    def orphaning_dependents(self) -> bool:
        return self.being_deleted and FINALIZER_ORPHAN_DEPENDENTS in self.finalizers


@dataclass(frozen=True)
class OwnershipGraph:
    """Nodes by uid and, for each uid, the uids of the nodes that list it as an owner."""

    nodes: Mapping[str, Node]
    dependents: Mapping[str, tuple[str, ...]]
    scope_of: ScopeLookup

    def dependents_of(self, uid: str) -> list[Node]:
        return [self.nodes[dep] for dep in self.dependents.get(uid, ())]

    def blocking_dependents(self, uid: str) -> list[Node]:
        """Dependents holding a blockOwnerDeletion=true reference to ``uid`` (they hold it open)."""
        return [
            dep
            for dep in self.dependents_of(uid)
            if any(o.uid == uid and o.block_owner_deletion for o in dep.owner_references)
        ]


def api_group(api_version: str) -> str:
    """The group of ``apps/v1`` is ``apps``; the core ``v1`` has the empty group."""
    return api_version.rpartition("/")[0]


def registry_scope(api_version: str, kind: str) -> bool | None:
    """Scope of a kind per podscale's kind registry, matched by group and kind (any version)."""
    group = api_group(api_version)
    for info in all_kinds():
        if info.group == group and info.kind == kind and info.top_level:
            return info.namespaced
    return None


def _owner_ref(raw: Mapping[str, Any]) -> OwnerRef:
    return OwnerRef(
        api_version=str(raw.get("apiVersion", "")),
        kind=str(raw.get("kind", "")),
        name=str(raw.get("name", "")),
        uid=str(raw.get("uid", "")),
        controller=raw.get("controller") is True,
        block_owner_deletion=raw.get("blockOwnerDeletion") is True,
    )


def node_from_object(obj: Mapping[str, Any]) -> Node | None:
    """The graph's view of one object (a full JSON dict); None without a uid."""
    meta = obj.get("metadata") or {}
    uid = meta.get("uid")
    if not uid:
        return None
    ref = ObjectRef(
        api_version=str(obj.get("apiVersion", "")),
        kind=str(obj.get("kind", "")),
        namespace=str(meta.get("namespace") or ""),
        name=str(meta.get("name", "")),
        uid=str(uid),
    )
    rv = meta.get("resourceVersion")
    return Node(
        ref=ref,
        owner_references=tuple(_owner_ref(o) for o in meta.get("ownerReferences") or ()),
        finalizers=tuple(str(f) for f in meta.get("finalizers") or ()),
        deletion_timestamp=meta.get("deletionTimestamp"),
        resource_version=None if rv is None else str(rv),
    )


def build_graph(
    objects: Iterable[Mapping[str, Any]], *, scope_of: ScopeLookup = registry_scope
) -> OwnershipGraph:
    """Index ``objects`` (full JSON dicts) by uid; objects without a uid are not observable."""
    nodes: dict[str, Node] = {}
    for obj in objects:
        node = node_from_object(obj)
        if node is not None:
            nodes[node.ref.uid] = node
    dependents: dict[str, list[str]] = {}
    for uid in sorted(nodes):
        for owner_uid in dict.fromkeys(o.uid for o in nodes[uid].owner_references):
            dependents.setdefault(owner_uid, []).append(uid)
    return OwnershipGraph(
        nodes=nodes,
        dependents={k: tuple(v) for k, v in dependents.items()},
        scope_of=scope_of,
    )
