"""Pure decisions of the pod GC's orphaned-pod pass (upstream's gcOrphaned).

A pod is orphaned when ``spec.nodeName`` names a node the node informer does not know.
Because an informer can lag behind a freshly registered node, upstream does not act at
once: a missing node is put in quarantine (a delaying queue, 40 s), and only once that has
passed is it looked up with a live GET; only a NotFound then makes its pods garbage.
``quarantine_missing_nodes`` is that bookkeeping over plain values: it takes the remembered
release times, the nodes the pods are bound to and the nodes that exist, and returns the
new release times plus the nodes due for the GET (a due node leaves the quarantine whatever
the GET says; if its pods are still there on a later pass it is quarantined afresh, as an
item leaves upstream's queue once processed). ``orphaned_pods`` lists the pods bound to
the confirmed-missing nodes; ``failed_status`` is the status upstream patches before the
force delete: phase Failed with the ``DisruptionTarget`` condition, so an owner (or a Job's
pod failure policy) sees why the pod went. ``pass_has_work`` says whether a pass could do
anything at all (the controller then skips listing the pods).
``podscale.controllers.podgc.controller`` calls them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from datetime import datetime, timedelta
from typing import Any, Final

__all__ = [
    "DELETION_BY_POD_GC",
    "DISRUPTION_TARGET",
    "NODE_GONE_MESSAGE",
    "failed_status",
    "node_name_of",
    "orphaned_pods",
    "pass_has_work",
    "quarantine_missing_nodes",
]

JSON = dict[str, Any]
DISRUPTION_TARGET: Final = "DisruptionTarget"
DELETION_BY_POD_GC: Final = "DeletionByPodGC"
NODE_GONE_MESSAGE: Final = "PodGC: node no longer exists"
_TERMINAL_PHASES: Final = frozenset({"Succeeded", "Failed"})


def node_name_of(pod: JSON) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def quarantine_missing_nodes(
    quarantined: Mapping[str, datetime],
    bound_nodes: Iterable[str],
    existing: Set[str],
    now: datetime,
    quarantine: timedelta,
) -> tuple[dict[str, datetime], list[str]]:
    """The new quarantine (node -> release time) and, sorted, the nodes released now that
    the informer still does not know (to be confirmed with a GET)."""
    waiting = dict(quarantined)
    for node in bound_nodes:
        if node and node not in existing:
            # The earliest release wins, as a delaying queue keeps an item's first deadline.
            waiting.setdefault(node, now + quarantine)
    released = sorted(node for node, at in waiting.items() if at <= now)
    for node in released:
        del waiting[node]
    return waiting, [node for node in released if node not in existing]


def pass_has_work(
    quarantined: Mapping[str, datetime], bound_nodes: Iterable[str], existing: Set[str]
) -> bool:
    """Whether a pass over pods bound to ``bound_nodes`` could change anything. False when
    no node is in quarantine and every bound node exists: ``quarantine_missing_nodes`` then
    returns an empty quarantine and no node to look up, so no pod is orphaned."""
    return bool(quarantined) or any(node and node not in existing for node in bound_nodes)


def orphaned_pods(pods: Iterable[JSON], gone: Set[str]) -> list[JSON]:
    """The pods bound to a node of ``gone``, by namespace and name."""
    found = [pod for pod in pods if node_name_of(pod) in gone]
    return sorted(
        found,
        key=lambda p: (str(p["metadata"].get("namespace", "")), str(p["metadata"]["name"])),
    )


def failed_status(pod: JSON, now: str) -> JSON | None:
    """The pod's status as Failed with a ``DisruptionTarget`` condition (``now`` is its
    RFC 3339 transition time); None when the pod already ended (upstream writes nothing
    then, and only deletes)."""
    status: JSON = dict(pod.get("status") or {})
    if status.get("phase") in _TERMINAL_PHASES:
        return None
    condition: JSON = {
        "type": DISRUPTION_TARGET,
        "status": "True",
        "lastTransitionTime": now,
        "reason": DELETION_BY_POD_GC,
        "message": NODE_GONE_MESSAGE,
    }
    conditions: list[JSON] = []
    replaced = False
    for existing in status.get("conditions") or []:
        if existing.get("type") == DISRUPTION_TARGET:
            if existing.get("status") == "True":
                # An unchanged status keeps its transition time (upstream's UpdatePodCondition).
                condition["lastTransitionTime"] = existing.get("lastTransitionTime", now)
            conditions.append(condition)
            replaced = True
        else:
            conditions.append(existing)
    if not replaced:
        conditions.append(condition)
    status["phase"] = "Failed"
    status["conditions"] = conditions
    return status
