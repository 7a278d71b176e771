"""One ReplicaSet sync's pod decisions: how many pods to create, which to delete.

Mirrors upstream's ``manageReplicas``/``getPodsToDelete`` (pkg/controller/replicaset/
replica_set.go) and ``slowStartBatch``. Only active pods count (``FilterActivePods``:
neither terminating nor Succeeded/Failed), so failed and terminating pods get replaced.
Each sync creates or deletes at most ``burst`` pods (upstream's ``BurstReplicas``, 500);
creations go out in slow-start batches of 1, 2, 4, ... so a failing quota costs one call.
A ReplicaSet that is being deleted creates and deletes nothing. Callers pass only the
pods the ReplicaSet controls (see ``ownership.claim_action``); deletion order comes
from ``ordering.sort_for_deletion``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from podscale.controllers.replicaset.ordering import (
    CONTROLLER_DEFAULT_FEATURE_GATES,
    rank_by_related_pods,
    sort_for_deletion,
)
from podscale.controllers.replicaset.podstate import is_pod_active

__all__ = [
    "BURST_REPLICAS",
    "SLOW_START_INITIAL_BATCH_SIZE",
    "ReplicaPlan",
    "filter_active_pods",
    "plan_replicas",
    "slow_start_batches",
]

BURST_REPLICAS: Final = 500
SLOW_START_INITIAL_BATCH_SIZE: Final = 1


@dataclass(frozen=True, slots=True)
class ReplicaPlan:
    """What one sync does: ``diff`` is active pods minus ``spec.replicas`` (uncapped)."""

    active: list[dict[str, Any]]
    diff: int
    to_create: int
    to_delete: list[dict[str, Any]]


def filter_active_pods(pods: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pods that still count as replicas, in input order."""
    return [pod for pod in pods if is_pod_active(pod)]


def plan_replicas(
    rs: dict[str, Any],
    pods: list[dict[str, Any]],
    *,
    now: datetime,
    burst: int = BURST_REPLICAS,
    related_pods: list[dict[str, Any]] | None = None,
    feature_gates: frozenset[str] = CONTROLLER_DEFAULT_FEATURE_GATES,
) -> ReplicaPlan:
    """Plan the creations and deletions that bring ``rs`` toward ``spec.replicas``.

    ``related_pods`` (the pods of every ReplicaSet under the same owner) feed the
    same-node ranking; by default the ReplicaSet's own pods are used.
    """
    active = filter_active_pods(pods)
    desired = int((rs.get("spec") or {}).get("replicas", 1))
    diff = len(active) - desired
    if (rs.get("metadata") or {}).get("deletionTimestamp"):
        return ReplicaPlan(active=active, diff=diff, to_create=0, to_delete=[])
    if diff < 0:
        return ReplicaPlan(active=active, diff=diff, to_create=min(-diff, burst), to_delete=[])
    count = min(diff, burst)
    if count == 0:
        return ReplicaPlan(active=active, diff=diff, to_create=0, to_delete=[])
    ranks = rank_by_related_pods(active, active if related_pods is None else related_pods)
    # Upstream sorts only when some pods survive; deleting all needs no order.
    ordered = (
        sort_for_deletion(active, ranks=ranks, now=now, feature_gates=feature_gates)
        if count < len(active)
        else active
    )
    return ReplicaPlan(active=active, diff=diff, to_create=0, to_delete=ordered[:count])


def slow_start_batches(count: int, initial: int = SLOW_START_INITIAL_BATCH_SIZE) -> list[int]:
    """Batch sizes for ``count`` calls: ``initial``, then doubling, the last one trimmed.

    The caller stops at the first batch with an error and skips the rest.
    """
    batches: list[int] = []
    remaining = count
    size = min(remaining, initial)
    while size > 0:
        batches.append(size)
        remaining -= size
        size = min(2 * size, remaining)
    return batches
