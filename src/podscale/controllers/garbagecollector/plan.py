"""The planner: from an ownership graph, every write the garbage collector should make now.

A level-triggered rendering of upstream's workers (pkg/controller/garbagecollector/
garbagecollector.go): instead of reacting to queued events, ``plan`` looks at every node and
applies the same decisions. For an owner being deleted with the ``orphan`` finalizer
(attemptToOrphanWorker) its uid is removed from each dependent, and the finalizer goes once no
dependent refers to it. For an owner deleting its dependents (processDeletingDependentsItem) the
``foregroundDeletion`` finalizer goes once no dependent holds a blockOwnerDeletion reference.
Every other object with ownerReferences goes through attemptToDeleteItem's table: a solid
owner keeps it (dangling and waiting references are pruned), a waiting owner makes an object
that has dependents of its own go in Foreground (after unblocking its references if a
dependent is itself deleting dependents: the circle breaker), and otherwise the object is
deleted with the policy its own finalizers ask for, Background by default.

Being stateless, ``plan`` cannot know which warnings it already raised; the caller passes the
(dependent uid, owner uid) pairs already reported so each OwnerRefInvalidNamespace event is
raised once, as upstream raises it once when the graph first observes the reference.
Neighbours: ``graph`` (input), ``classify`` (reference sets), ``actions`` (output).
"""

from __future__ import annotations

from collections.abc import Set

from podscale.controllers.garbagecollector.actions import (
    Action,
    DeleteObject,
    Event,
    Propagation,
    RemoveFinalizer,
    RemoveOwnerReferences,
    UnblockOwnerReferences,
)
from podscale.controllers.garbagecollector.classify import (
    classify_references,
    invalid_namespace_owner_refs,
)
from podscale.controllers.garbagecollector.graph import (
    FINALIZER_DELETE_DEPENDENTS,
    FINALIZER_ORPHAN_DEPENDENTS,
    Node,
    ObjectRef,
    OwnershipGraph,
)

__all__ = ["REASON_OWNER_REF_INVALID_NAMESPACE", "plan", "plan_events", "plan_node"]

REASON_OWNER_REF_INVALID_NAMESPACE = "OwnerRefInvalidNamespace"


def plan_events(graph: OwnershipGraph, node: Node, reported: Set[tuple[str, str]]) -> list[Action]:
    """Warning events for ``node``'s cross-namespace owner references not yet reported."""
    events: list[Action] = []
    namespace = node.ref.namespace
    for ref in invalid_namespace_owner_refs(graph, node):
        if (node.ref.uid, ref.uid) in reported:
            continue
        # The owner as the dependent names it: its coordinates, in the dependent's namespace.
        claimed = ObjectRef(ref.api_version, ref.kind, namespace, ref.name, ref.uid)
        events.append(
            Event(
                ref=node.ref,
                type="Warning",
                reason=REASON_OWNER_REF_INVALID_NAMESPACE,
                message=f'ownerRef {claimed} does not exist in namespace "{namespace}"',
            )
        )
    return events


def _plan_orphaning(graph: OwnershipGraph, owner: Node) -> list[Action]:
    dependents = graph.dependents_of(owner.ref.uid)
    if not dependents:
        return [RemoveFinalizer(owner.ref, FINALIZER_ORPHAN_DEPENDENTS)]
    return [RemoveOwnerReferences(dep.ref, (owner.ref.uid,)) for dep in dependents]


def _own_policy(node: Node) -> Propagation:
    # A collected object keeps the cascade its own finalizers already ask for.
    if FINALIZER_ORPHAN_DEPENDENTS in node.finalizers:
        return "Orphan"
    if FINALIZER_DELETE_DEPENDENTS in node.finalizers:
        return "Foreground"
    return "Background"


def _delete(node: Node, propagation: Propagation) -> DeleteObject:
    return DeleteObject(node.ref, propagation, node.ref.uid, node.resource_version)


def _plan_collection(graph: OwnershipGraph, item: Node) -> list[Action]:
    """attemptToDeleteItem for an object that is not itself being deleted."""
    refs = classify_references(graph, item)
    if refs.undecidable:
        return []
    if refs.solid:
        pruned = tuple(dict.fromkeys(r.uid for r in refs.dangling + refs.waiting))
        return [RemoveOwnerReferences(item.ref, pruned)] if pruned else []
    dependents = graph.dependents_of(item.ref.uid)
    if refs.waiting and dependents:
        actions: list[Action] = []
        in_circle = any(dep.deleting_dependents for dep in dependents)
        if in_circle and any(r.block_owner_deletion for r in item.owner_references):
            actions.append(UnblockOwnerReferences(item.ref))
        actions.append(_delete(item, "Foreground"))
        return actions
    return [_delete(item, _own_policy(item))]


def plan_node(graph: OwnershipGraph, node: Node) -> list[Action]:
    """The writes (events aside) the collector makes for ``node`` in the current state."""
    actions: list[Action] = []
    if node.orphaning_dependents:
        actions.extend(_plan_orphaning(graph, node))
    if node.deleting_dependents:
        if not graph.blocking_dependents(node.ref.uid):
            actions.append(RemoveFinalizer(node.ref, FINALIZER_DELETE_DEPENDENTS))
        return actions
    if node.being_deleted or not node.owner_references:
        # Being deleted is a one-way trip: wait for the deletion, then handle the dependents.
        return actions
    actions.extend(_plan_collection(graph, node))
    return actions


def plan(graph: OwnershipGraph, *, reported: Set[tuple[str, str]] = frozenset()) -> list[Action]:
    """Every action due now, grouped per object in uid order; empty once the graph is settled."""
    actions: list[Action] = []
    for uid in sorted(graph.nodes):
        node = graph.nodes[uid]
        actions.extend(plan_events(graph, node, reported))
        actions.extend(plan_node(graph, node))
    return actions
