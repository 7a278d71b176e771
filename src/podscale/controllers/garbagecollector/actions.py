"""The garbage collector's actions: what ``plan`` asks the API server (or a simulator) to do.

Each action is one write the real collector performs in pkg/controller/garbagecollector
(operations.go and patch.go): a DELETE with a propagation policy and a uid precondition, a
patch removing or unblocking ownerReferences, a finalizer removal, or a Warning event. Actions
of one plan are ordered: an executor applies them in order and stops at the first failure,
then replans; ``plan`` is written so that replanning from any prefix converges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from podscale.controllers.garbagecollector.graph import ObjectRef

__all__ = [
    "Action",
    "DeleteObject",
    "Event",
    "Propagation",
    "RemoveFinalizer",
    "RemoveOwnerReferences",
    "UnblockOwnerReferences",
]

Propagation = Literal["Background", "Foreground", "Orphan"]


@dataclass(frozen=True)
class DeleteObject:
    """DELETE ``ref`` with ``propagationPolicy``; preconditions guard against a recreated object.

    ``precondition_resource_version`` is the version the decision was made on (upstream sends
    it too and, on conflict, retries only if the ownerReferences did not change).
    """

    ref: ObjectRef
    propagation: Propagation
    precondition_uid: str
    precondition_resource_version: str | None = None


@dataclass(frozen=True)
class RemoveOwnerReferences:
    """Patch ``ref`` to drop every ownerReference whose uid is in ``owner_uids``."""

    ref: ObjectRef
    owner_uids: tuple[str, ...]


@dataclass(frozen=True)
class UnblockOwnerReferences:
    """Patch ``ref`` so that none of its ownerReferences has blockOwnerDeletion=true.

    Upstream's answer to a dependency circle under foreground deletion
    (unblockOwnerReferencesStrategicMergePatch); it always precedes the item's DeleteObject.
    """

    ref: ObjectRef


@dataclass(frozen=True)
class RemoveFinalizer:
    """Remove ``finalizer`` ("foregroundDeletion" or "orphan") from ``ref``'s metadata."""

    ref: ObjectRef
    finalizer: str


@dataclass(frozen=True)
class Event:
    """An event to record with ``ref`` as the involved object."""

    ref: ObjectRef
    type: str
    reason: str
    message: str


Action = DeleteObject | RemoveOwnerReferences | UnblockOwnerReferences | RemoveFinalizer | Event
