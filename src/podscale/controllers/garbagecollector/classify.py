"""Classification of one object's ownerReferences: solid, dangling or waiting for dependents.

Follows upstream's ``classifyReferences``/``isDangling`` (pkg/controller/garbagecollector/
garbagecollector.go) over the in-memory ``graph`` instead of live GETs. An owner is looked up
where the API server would look: in the dependent's namespace for a namespaced kind, at cluster
scope otherwise; so an owner that exists only in another namespace, or under other
coordinates (kind, group or name), is dangling. Two cases are not decidable and leave the
dependent untouched, as upstream does: a kind the registry does not know (REST mapping error,
retried) and a cluster-scoped dependent naming a namespaced owner (never collected).
``plan`` is the consumer.
"""

from __future__ import annotations

from dataclasses import dataclass

from podscale.controllers.garbagecollector.graph import Node, OwnerRef, OwnershipGraph, api_group

__all__ = ["Classification", "classify_references", "invalid_namespace_owner_refs"]


@dataclass(frozen=True)
class Classification:
    """The three upstream sets; ``undecidable`` means "do nothing with this object"."""

    solid: tuple[OwnerRef, ...] = ()
    dangling: tuple[OwnerRef, ...] = ()
    waiting: tuple[OwnerRef, ...] = ()
    undecidable: bool = False


def _resolves(graph: OwnershipGraph, item: Node, ref: OwnerRef, namespaced: bool) -> Node | None:
    owner = graph.nodes.get(ref.uid)
    if owner is None:
        return None
    expected_namespace = item.ref.namespace if namespaced else ""
    same_coordinates = (
        owner.ref.namespace == expected_namespace
        and owner.ref.kind == ref.kind
        and api_group(owner.ref.api_version) == api_group(ref.api_version)
        and owner.ref.name == ref.name
    )
    return owner if same_coordinates else None


def classify_references(graph: OwnershipGraph, item: Node) -> Classification:
    """Sort ``item``'s ownerReferences the way attemptToDeleteItem needs them."""
    solid: list[OwnerRef] = []
    dangling: list[OwnerRef] = []
    waiting: list[OwnerRef] = []
    for ref in item.owner_references:
        namespaced = graph.scope_of(ref.api_version, ref.kind)
        if namespaced is None or (namespaced and not item.ref.namespace):
            return Classification(undecidable=True)
        owner = _resolves(graph, item, ref, namespaced)
        if owner is None:
            dangling.append(ref)
        elif owner.deleting_dependents:
            waiting.append(ref)
        else:
            solid.append(ref)
    return Classification(solid=tuple(solid), dangling=tuple(dangling), waiting=tuple(waiting))


def invalid_namespace_owner_refs(graph: OwnershipGraph, item: Node) -> list[OwnerRef]:
    """References to an observed namespaced owner living in another namespace than ``item``.

    Upstream reports these (addDependentToOwners -> reportInvalidNamespaceOwnerRef) whether
    the dependent is namespaced (cross-namespace owner) or cluster-scoped.
    """
    found: list[OwnerRef] = []
    for ref in item.owner_references:
        owner = graph.nodes.get(ref.uid)
        if owner is not None and owner.ref.namespace not in ("", item.ref.namespace):
            found.append(ref)
    return found
