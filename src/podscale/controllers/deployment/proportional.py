"""Scaling a Deployment whose replicas changed: which ReplicaSets get how many pods.

Behaviour of upstream's ``sync.go`` ``scale`` and ``isScalingEvent`` plus ``GetProportion``,
``getReplicaSetFraction``, ``IsSaturated``, ``FindActiveOrLatest`` and the replicas
annotations (``util/deployment_util.go``). This is what happens when an HPA resizes a
Deployment mid-rollout: every active ReplicaSet grows or shrinks in proportion to its
share of the old maximum, and the rounding leftover goes to the largest one. Neighbours:
``fenceposts`` (surge), ``replicasets`` (state and orderings), ``rollout`` (the step after).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from podscale.controllers.deployment.fenceposts import Strategy, max_surge
from podscale.controllers.deployment.replicasets import (
    ReplicaSetState,
    active,
    sort_by_creation,
    sort_by_size_newer,
    sort_by_size_older,
    total_spec_replicas,
)

__all__ = [
    "DESIRED_REPLICAS_ANNOTATION",
    "MAX_REPLICAS_ANNOTATION",
    "find_active_or_latest",
    "is_saturated",
    "is_scaling_event",
    "replicas_annotations",
    "scale_replica_sets",
]

DESIRED_REPLICAS_ANNOTATION: Final = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION: Final = "deployment.kubernetes.io/max-replicas"


def replicas_annotations(replicas: int, strategy: Strategy) -> dict[str, str]:
    """The two annotations a ReplicaSet carries after being scaled for ``replicas``."""
    return {
        DESIRED_REPLICAS_ANNOTATION: str(replicas),
        MAX_REPLICAS_ANNOTATION: str(replicas + max_surge(strategy, replicas)),
    }


def _int_annotation(rs: ReplicaSetState, key: str) -> int | None:
    try:
        return int(rs.annotations[key])
    except (KeyError, ValueError):
        return None


def is_saturated(replicas: int, rs: ReplicaSetState | None) -> bool:
    """The ReplicaSet asks for, was sized for, and has available exactly ``replicas`` pods."""
    if rs is None:
        return False
    desired = _int_annotation(rs, DESIRED_REPLICAS_ANNOTATION)
    return desired == replicas and rs.replicas == replicas and rs.available_replicas == replicas


def is_scaling_event(replicas: int, replica_sets: Sequence[ReplicaSetState]) -> bool:
    """Some active ReplicaSet was sized for a different ``replicas`` (upstream ``isScalingEvent``).

    ReplicaSets without a readable desired-replicas annotation are ignored.
    """
    for rs in active(replica_sets):
        desired = _int_annotation(rs, DESIRED_REPLICAS_ANNOTATION)
        if desired is not None and desired != replicas:
            return True
    return False


def find_active_or_latest(
    new_rs: ReplicaSetState | None, old_replica_sets: Sequence[ReplicaSetState]
) -> ReplicaSetState | None:
    """The one ReplicaSet to scale directly, or ``None`` if several are active.

    With no active ReplicaSet that is the new one, else the newest old one.
    """
    newest_first = list(reversed(sort_by_creation(old_replica_sets)))
    candidates = active([*newest_first, new_rs])
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        return None
    if new_rs is not None:
        return new_rs
    return newest_first[0] if newest_first else None


def _fraction(rs: ReplicaSetState, replicas: int, strategy: Strategy, status_replicas: int) -> int:
    # The ReplicaSet's share of the new maximum, relative to the maximum it was sized for.
    if replicas == 0:
        return -rs.replicas
    new_max = replicas + max_surge(strategy, replicas)
    old_max = _int_annotation(rs, MAX_REPLICAS_ANNOTATION)
    if not old_max:
        # No usable annotation: fall back to the Deployment's current size; the min/max
        # clamp in the caller keeps the total right even if this guess is off.
        old_max = status_replicas
        if old_max == 0:
            return 0
    exact = rs.replicas * new_max / old_max
    # Go's math.Round: halves away from zero (sizes are non-negative here).
    return int(exact + 0.5) - rs.replicas


def scale_replica_sets(
    replicas: int,
    strategy: Strategy,
    new_rs: ReplicaSetState | None,
    old_replica_sets: Sequence[ReplicaSetState],
    *,
    status_replicas: int,
) -> dict[str, int]:
    """New ``spec.replicas`` for the ReplicaSets affected by a scaling event (upstream ``scale``).

    Returns every ReplicaSet to write (including unchanged active ones in the proportional
    case: upstream rewrites their replicas annotations). ``status_replicas`` is the
    Deployment's ``status.replicas``, the fallback scale base. Cases:

    - at most one active ReplicaSet: it (or the latest) takes all ``replicas``;
    - a saturated new ReplicaSet: every active old one goes to 0;
    - rolling update: the difference between ``replicas + maxSurge`` (0 when scaling to 0)
      and the current total is spread over active ReplicaSets largest first (newer first
      on ties when growing, older first when shrinking), each getting its proportional
      share capped by what is left; the rounding leftover goes to the first (largest).
    - Recreate with several active ReplicaSets: nothing (the rollout resolves it).
    """
    single = find_active_or_latest(new_rs, old_replica_sets)
    if single is not None:
        return {} if single.replicas == replicas else {single.name: replicas}
    if is_saturated(replicas, new_rs):
        return {rs.name: 0 for rs in active(old_replica_sets)}
    if not strategy.is_rolling_update:
        return {}
    everyone = active([*old_replica_sets, new_rs])
    allowed = replicas + max_surge(strategy, replicas) if replicas > 0 else 0
    to_add = allowed - total_spec_replicas(everyone)
    if to_add == 0:
        return {rs.name: rs.replicas for rs in everyone}
    ordered = sort_by_size_newer(everyone) if to_add > 0 else sort_by_size_older(everyone)
    sizes: dict[str, int] = {}
    added = 0
    for rs in ordered:
        share = 0
        if rs.replicas != 0 and added != to_add:
            fraction = _fraction(rs, replicas, strategy, status_replicas)
            remaining = to_add - added
            share = min(fraction, remaining) if to_add > 0 else max(fraction, remaining)
        sizes[rs.name] = rs.replicas + share
        added += share
    largest = ordered[0].name
    sizes[largest] = max(0, sizes[largest] + to_add - added)
    return sizes
