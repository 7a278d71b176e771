"""Scale-down order: which of a ReplicaSet's pods to delete first.

Mirrors upstream's ``ActivePodsWithRanks.Less`` (pkg/controller/controller_utils.go) and
``getPodsRankedByRelatedPodsOnSameNode`` (pkg/controller/replicaset/replica_set.go). Rules,
first difference wins: unassigned before assigned; Pending < Unknown < Running (any other
phase ranks with Pending, as a missing Go map key reads 0); not ready before ready; lower
``controller.kubernetes.io/pod-deletion-cost`` first; higher rank (more related active pods
on the same node) first; for two ready pods, more recently ready first; more container
restarts first (regular containers, then sidecars, i.e. restartable init containers, as
upstream's ``compareMaxContainerRestarts``); newer creation first. Under
``LogarithmicScaleDown`` the two time rules compare ``floor(log2(now - t))`` in
nanoseconds, and equal buckets (for different times)
fall back to the pod UIDs, a pseudo-random but deterministic choice. An unset time sorts
first. Pods no rule separates keep their input order (Python's sort is stable).

Used by ``decisions.plan_replicas``; predicates come from ``podstate``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import cmp_to_key
from typing import Any, Final

from podscale.api.feature_gates import (
    DEFAULT_FEATURE_GATES,
    LOGARITHMIC_SCALE_DOWN,
    POD_DELETION_COST,
)
from podscale.controllers.replicaset.podstate import (
    creation_time,
    is_pod_active,
    is_pod_ready,
    max_container_restarts,
    max_sidecar_restarts,
    node_name,
    ready_time,
)

__all__ = [
    "CONTROLLER_DEFAULT_FEATURE_GATES",
    "DEPLOYMENT_REPLICASET_TERMINATING_REPLICAS",
    "LOGARITHMIC_SCALE_DOWN",
    "POD_DELETION_COST",
    "POD_DELETION_COST_ANNOTATION",
    "deletion_cost",
    "logarithmic_bucket",
    "rank_by_related_pods",
    "sort_for_deletion",
]

POD_DELETION_COST_ANNOTATION: Final = "controller.kubernetes.io/pod-deletion-cost"
# Beta and on by default upstream (v1.34+): ReplicaSet status reports terminatingReplicas.
# Not (yet) in ``podscale.api.feature_gates``, which the controller does not own.
DEPLOYMENT_REPLICASET_TERMINATING_REPLICAS: Final = "DeploymentReplicaSetTerminatingReplicas"
# The project defaults include both ordering gates (PodDeletionCost and LogarithmicScaleDown,
# on by default upstream); the controller adds the terminating-replicas gate to them.
CONTROLLER_DEFAULT_FEATURE_GATES: Final = DEFAULT_FEATURE_GATES | {
    DEPLOYMENT_REPLICASET_TERMINATING_REPLICAS
}

_PHASE_ORDINAL: Final = {"Pending": 0, "Unknown": 1, "Running": 2}
# Upstream rejects "+1" and leading zeros before parsing as int32; "0" and "-…" pass.
_COST_RE: Final = re.compile(r"-?[0-9]+")
_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1

Pod = Mapping[str, Any]


def deletion_cost(pod: Pod) -> int:
    """The pod's deletion cost annotation as an int32; 0 when unset or invalid."""
    value = ((pod.get("metadata") or {}).get("annotations") or {}).get(POD_DELETION_COST_ANNOTATION)
    if not isinstance(value, str) or not value:
        return 0
    if value[0] == "+" or (value[0] == "0" and value != "0") or not _COST_RE.fullmatch(value):
        return 0
    cost = int(value)
    return cost if _INT32_MIN <= cost <= _INT32_MAX else 0


def logarithmic_bucket(then: datetime, now: datetime) -> int:
    """``floor(log2(now - then))`` with the age in nanoseconds; -1 when not in the past."""
    age = now - then
    nanos = (age.days * 86_400 + age.seconds) * 1_000_000_000 + age.microseconds * 1_000
    return int(math.log2(float(nanos))) if nanos > 0 else -1


def rank_by_related_pods(pods: Iterable[Pod], related_pods: Iterable[Pod]) -> dict[str, int]:
    """Rank each pod by how many active ``related_pods`` share its node (itself included).

    ``related_pods`` is normally a superset of ``pods``: the ReplicaSet's own pods plus
    those of its sibling ReplicaSets under the same Deployment.
    """
    on_node: dict[str, int] = {}
    for pod in related_pods:
        if is_pod_active(pod):
            node = node_name(pod)
            on_node[node] = on_node.get(node, 0) + 1
    return {_name(pod): on_node.get(node_name(pod), 0) for pod in pods}


def sort_for_deletion(
    pods: list[dict[str, Any]],
    *,
    ranks: dict[str, int] | None = None,
    now: datetime,
    feature_gates: frozenset[str] = CONTROLLER_DEFAULT_FEATURE_GATES,
) -> list[dict[str, Any]]:
    """Return ``pods`` in deletion order (first = delete first); the input is not modified.

    ``ranks`` maps pod name to rank; ``None`` ranks the pods among themselves
    (``rank_by_related_pods(pods, pods)``); a pod missing from ``ranks`` has rank 0.
    """
    rank_of = rank_by_related_pods(pods, pods) if ranks is None else ranks
    use_cost = POD_DELETION_COST in feature_gates
    logarithmic = LOGARITHMIC_SCALE_DOWN in feature_gates

    def compare(a: Pod, b: Pod) -> int:
        return _compare(a, b, rank_of, now, use_cost=use_cost, logarithmic=logarithmic)

    return sorted(pods, key=cmp_to_key(compare))


def _name(pod: Pod) -> str:
    return str((pod.get("metadata") or {}).get("name") or "")


def _uid(pod: Pod) -> str:
    return str((pod.get("metadata") or {}).get("uid") or "")


def _first_if(condition: bool) -> int:
    return -1 if condition else 1


def _compare_times(
    a: Pod, b: Pod, t_a: datetime | None, t_b: datetime | None, now: datetime, logarithmic: bool
) -> int:
    """Newer (or unset) first; 0 when the times are equal so the next rule decides."""
    if t_a == t_b:
        return 0
    if t_a is None or t_b is None:
        return _first_if(t_a is None)
    if logarithmic:
        bucket_diff = logarithmic_bucket(t_a, now) - logarithmic_bucket(t_b, now)
        if bucket_diff == 0:
            # Upstream: "a.UID < b.UID"; equal UIDs leave the pair unordered.
            return 0 if _uid(a) == _uid(b) else _first_if(_uid(a) < _uid(b))
        return _first_if(bucket_diff < 0)
    return _first_if(t_a > t_b)


def _compare(
    a: Pod,
    b: Pod,
    rank_of: Mapping[str, int],
    now: datetime,
    *,
    use_cost: bool,
    logarithmic: bool,
) -> int:
    node_a, node_b = node_name(a), node_name(b)
    if node_a != node_b and (not node_a or not node_b):
        return _first_if(not node_a)
    phase_a = _PHASE_ORDINAL.get((a.get("status") or {}).get("phase") or "", 0)
    phase_b = _PHASE_ORDINAL.get((b.get("status") or {}).get("phase") or "", 0)
    if phase_a != phase_b:
        return _first_if(phase_a < phase_b)
    ready_a, ready_b = is_pod_ready(a), is_pod_ready(b)
    if ready_a != ready_b:
        return _first_if(not ready_a)
    if use_cost:
        cost_a, cost_b = deletion_cost(a), deletion_cost(b)
        if cost_a != cost_b:
            return _first_if(cost_a < cost_b)
    rank_a, rank_b = rank_of.get(_name(a), 0), rank_of.get(_name(b), 0)
    if rank_a != rank_b:
        return _first_if(rank_a > rank_b)
    if ready_a and ready_b:
        by_ready = _compare_times(a, b, ready_time(a), ready_time(b), now, logarithmic)
        if by_ready:
            return by_ready
    restarts_a, restarts_b = max_container_restarts(a), max_container_restarts(b)
    if restarts_a != restarts_b:
        return _first_if(restarts_a > restarts_b)
    sidecar_a, sidecar_b = max_sidecar_restarts(a), max_sidecar_restarts(b)
    if sidecar_a != sidecar_b:
        return _first_if(sidecar_a > sidecar_b)
    return _compare_times(a, b, creation_time(a), creation_time(b), now, logarithmic)
