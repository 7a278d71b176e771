"""A ReplicaSet as the Deployment controller's arithmetic sees it, and upstream's orderings.

``ReplicaSetState`` holds the few numbers and annotations the rollout decisions read
(``rollout``, ``proportional``, ``revisions``, ``status``); ``replica_set_state`` reads it
from a ReplicaSet dict, and ``StateMemo`` remembers it per stored version so that a sync
does not re-read ReplicaSets that did not change since the last one. The sort helpers
reproduce ``controller.ReplicaSetsByCreationTimestamp``, ``ReplicaSetsBySizeOlder`` /
``ReplicaSetsBySizeNewer`` (``pkg/controller/controller_utils.go``):
each is a total order (ties broken by name), so results never depend on input order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from podscale.api.timestamps import parse_time

__all__ = [
    "ReplicaSetState",
    "StateMemo",
    "active",
    "replica_set_state",
    "sort_by_creation",
    "sort_by_size_newer",
    "sort_by_size_older",
    "total_available",
    "total_ready",
    "total_spec_replicas",
    "total_status_replicas",
]

_EPOCH = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class ReplicaSetState:
    """What the Deployment controller reads of one ReplicaSet.

    ``replicas`` is ``spec.replicas``; the ``status_*`` / ``*_replicas`` counts come from
    ``status``. ``conditions`` keeps the raw status conditions (ReplicaFailure is promoted
    to the Deployment). ``deleting`` is true once ``deletionTimestamp`` is set.
    """

    name: str
    replicas: int
    created: datetime = _EPOCH
    uid: str = ""
    status_replicas: int = 0
    ready_replicas: int = 0
    available_replicas: int = 0
    generation: int = 0
    observed_generation: int = 0
    deleting: bool = False
    annotations: Mapping[str, str] = field(default_factory=dict)
    conditions: tuple[Mapping[str, Any], ...] = ()


def _parse_time(text: Any) -> datetime:
    if not isinstance(text, str) or not text:
        return _EPOCH
    return parse_time(text)


def replica_set_state(rs: Mapping[str, Any]) -> ReplicaSetState:
    """Read a ReplicaSet dict; ``spec.replicas`` defaults to 1 as apps/v1 does."""
    meta = rs.get("metadata") or {}
    spec = rs.get("spec") or {}
    status = rs.get("status") or {}
    replicas = spec.get("replicas")
    return ReplicaSetState(
        name=str(meta.get("name", "")),
        replicas=1 if replicas is None else int(replicas),
        created=_parse_time(meta.get("creationTimestamp")),
        uid=str(meta.get("uid", "")),
        status_replicas=int(status.get("replicas") or 0),
        ready_replicas=int(status.get("readyReplicas") or 0),
        available_replicas=int(status.get("availableReplicas") or 0),
        generation=int(meta.get("generation") or 0),
        observed_generation=int(status.get("observedGeneration") or 0),
        deleting=meta.get("deletionTimestamp") is not None,
        annotations=dict(meta.get("annotations") or {}),
        conditions=tuple(status.get("conditions") or ()),
    )


class StateMemo:
    """``replica_set_state`` remembered per ReplicaSet version.

    Exact because the result depends only on the dict's content, and the API server gives
    every stored change of an object a new ``metadata.resourceVersion``: two dicts with
    the same ``(uid, resourceVersion)`` hold the same object. A dict lacking either (one
    built locally, not read from the server) is read afresh every time. One entry per
    uid (a newer version replaces it); ``forget`` drops a deleted ReplicaSet's entry.
    Callers must not change a dict in place after reading it (the informer cache's
    read-only contract; the Deployment controller writes copies).
    """

    __slots__ = ("_by_uid",)

    def __init__(self) -> None:
        self._by_uid: dict[object, tuple[object, ReplicaSetState]] = {}

    def state(self, rs: Mapping[str, Any]) -> ReplicaSetState:
        meta = rs.get("metadata") or {}
        uid = meta.get("uid")
        version = meta.get("resourceVersion")
        if not uid or not version:
            return replica_set_state(rs)
        entry = self._by_uid.get(uid)
        if entry is not None and entry[0] == version:
            return entry[1]
        state = replica_set_state(rs)
        self._by_uid[uid] = (version, state)
        return state

    def forget(self, uid: object) -> None:
        self._by_uid.pop(uid, None)

    def __len__(self) -> int:
        return len(self._by_uid)


def active(replica_sets: Iterable[ReplicaSetState | None]) -> list[ReplicaSetState]:
    """ReplicaSets that want pods (``spec.replicas > 0``), in input order; ``None`` skipped."""
    return [rs for rs in replica_sets if rs is not None and rs.replicas > 0]


def sort_by_creation(replica_sets: Iterable[ReplicaSetState]) -> list[ReplicaSetState]:
    """Oldest first; equal timestamps by name."""
    return sorted(replica_sets, key=lambda rs: (rs.created, rs.name))


def sort_by_size_older(replica_sets: Iterable[ReplicaSetState]) -> list[ReplicaSetState]:
    """Largest first; equal sizes oldest first (used when scaling down)."""
    return sorted(sort_by_creation(replica_sets), key=lambda rs: -rs.replicas)


def sort_by_size_newer(replica_sets: Iterable[ReplicaSetState]) -> list[ReplicaSetState]:
    """Largest first; equal sizes newest first (used when scaling up)."""
    newest_first = sort_by_creation(replica_sets)[::-1]
    return sorted(newest_first, key=lambda rs: -rs.replicas)


def total_spec_replicas(replica_sets: Iterable[ReplicaSetState | None]) -> int:
    """Sum of ``spec.replicas`` (upstream ``GetReplicaCountForReplicaSets``)."""
    return sum(rs.replicas for rs in replica_sets if rs is not None)


def total_status_replicas(replica_sets: Iterable[ReplicaSetState | None]) -> int:
    """Sum of ``status.replicas`` (upstream ``GetActualReplicaCountForReplicaSets``)."""
    return sum(rs.status_replicas for rs in replica_sets if rs is not None)


def total_ready(replica_sets: Iterable[ReplicaSetState | None]) -> int:
    return sum(rs.ready_replicas for rs in replica_sets if rs is not None)


def total_available(replica_sets: Iterable[ReplicaSetState | None]) -> int:
    return sum(rs.available_replicas for rs in replica_sets if rs is not None)
