"""The garbage collector's pure decisions: ownership graph, classification, plan.

``build_graph`` indexes a listing of objects by uid; ``plan`` returns the ordered writes
(deletes with a propagation policy, ownerReference and finalizer removals, warning events)
that upstream's collector would make in that state. The controller shell is imported from
its own modules, like the ReplicaSet controller's: ``controller.GarbageCollectorController``
(informers and reconcile), ``live_graph`` (the graph kept from events) and ``operations``
(the actions as API calls); this package stays importable without them.
"""

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
    Classification,
    classify_references,
    invalid_namespace_owner_refs,
)
from podscale.controllers.garbagecollector.graph import (
    FINALIZER_DELETE_DEPENDENTS,
    FINALIZER_ORPHAN_DEPENDENTS,
    Node,
    ObjectRef,
    OwnerRef,
    OwnershipGraph,
    ScopeLookup,
    build_graph,
    node_from_object,
    registry_scope,
)
from podscale.controllers.garbagecollector.plan import (
    REASON_OWNER_REF_INVALID_NAMESPACE,
    plan,
    plan_events,
    plan_node,
)

__all__ = [
    "FINALIZER_DELETE_DEPENDENTS",
    "FINALIZER_ORPHAN_DEPENDENTS",
    "REASON_OWNER_REF_INVALID_NAMESPACE",
    "Action",
    "Classification",
    "DeleteObject",
    "Event",
    "Node",
    "ObjectRef",
    "OwnerRef",
    "OwnershipGraph",
    "Propagation",
    "RemoveFinalizer",
    "RemoveOwnerReferences",
    "ScopeLookup",
    "UnblockOwnerReferences",
    "build_graph",
    "classify_references",
    "invalid_namespace_owner_refs",
    "node_from_object",
    "plan",
    "plan_events",
    "plan_node",
    "registry_scope",
]
