"""One step of a rollout: how far to scale the new ReplicaSet up and the old ones down.

Behaviour of upstream's ``rolling.go`` (``reconcileNewReplicaSet``, ``reconcileOldReplicaSets``,
``cleanupUnhealthyReplicas``, ``scaleDownOldReplicaSetsForRollingUpdate``), ``NewRSNewReplicas``
in ``util/deployment_util.go``, and ``recreate.go``. Every function returns target
``spec.replicas`` values keyed by ReplicaSet name; the controller writes them through the
API. Inputs come from ``replicasets``; surge/unavailable limits from ``fenceposts``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from podscale.controllers.deployment.fenceposts import Strategy, max_surge, max_unavailable
from podscale.controllers.deployment.replicasets import (
    ReplicaSetState,
    active,
    sort_by_creation,
    total_available,
    total_spec_replicas,
    total_status_replicas,
)

__all__ = [
    "OldScaleDown",
    "RecreateStep",
    "StaleScaleDown",
    "new_replica_set_replicas",
    "old_pods_running",
    "plan_old_scale_down",
    "plan_recreate",
    "reconcile_new_replica_set",
]


def new_replica_set_replicas(
    replicas: int,
    strategy: Strategy,
    all_replica_sets: Sequence[ReplicaSetState],
    new_rs: ReplicaSetState,
) -> int:
    """The new ReplicaSet's next size (upstream ``NewRSNewReplicas``).

    Rolling update: grow by whatever surge room is left (``replicas + maxSurge`` minus the
    pods all ReplicaSets already ask for), never past ``replicas``. Recreate: straight to
    ``replicas``. ``all_replica_sets`` includes ``new_rs``.
    """
    if not strategy.is_rolling_update:
        return replicas
    current_total = total_spec_replicas(all_replica_sets)
    ceiling = replicas + max_surge(strategy, replicas)
    if current_total >= ceiling:
        return new_rs.replicas
    room = min(ceiling - current_total, replicas - new_rs.replicas)
    return new_rs.replicas + room


def reconcile_new_replica_set(
    replicas: int,
    strategy: Strategy,
    all_replica_sets: Sequence[ReplicaSetState],
    new_rs: ReplicaSetState,
) -> int | None:
    """Target size for the new ReplicaSet in a rolling step, or ``None`` if it stays put.

    An oversized new ReplicaSet (the Deployment shrank) goes straight down to ``replicas``.
    """
    if new_rs.replicas == replicas:
        return None
    if new_rs.replicas > replicas:
        return replicas
    target = new_replica_set_replicas(replicas, strategy, all_replica_sets, new_rs)
    return None if target == new_rs.replicas else target


@dataclass(frozen=True, slots=True)
class OldScaleDown:
    """Result of ``plan_old_scale_down``.

    ``targets`` maps each old ReplicaSet that shrinks to its new ``spec.replicas``;
    ``cleaned_up`` counts unhealthy replicas removed first, ``scaled_down`` the healthy
    ones removed after. ``scaled`` says whether the step changed anything.
    """

    targets: Mapping[str, int]
    cleaned_up: int
    scaled_down: int

    @property
    def scaled(self) -> bool:
        return self.cleaned_up + self.scaled_down > 0


class StaleScaleDown(ValueError):
    """Cleaning up unhealthy replicas would have grown ``name`` from ``current`` to ``target``.

    The shell reports it with upstream's text (which names the namespace) via ``message``.
    """

    def __init__(self, name: str, current: int, target: int) -> None:
        super().__init__(name, current, target)
        self.name = name
        self.current = current
        self.target = target

    def message(self, namespace: str) -> str:
        return (
            "when cleaning up unhealthy replicas, got invalid request to scale down "
            f"{namespace}/{self.name} {self.current} -> {self.target}"
        )


def _cleanup_unhealthy(old: list[ReplicaSetState], budget: int, targets: dict[str, int]) -> int:
    # Oldest first; only pods the ReplicaSet asks for but that are not available go.
    # The ReplicaSet controller deletes not-ready pods first, so availability holds.
    removed = 0
    for rs in old:
        if removed >= budget:
            break
        size = targets.get(rs.name, rs.replicas)
        if size == 0 or size == rs.available_replicas:
            continue
        count = min(budget - removed, size - rs.available_replicas)
        if count < 0:
            # A status reporting more available pods than asked for is stale (the
            # ReplicaSet controller has not caught up with a scale-down): upstream refuses
            # the step rather than trust it, and the sync is retried.
            raise StaleScaleDown(rs.name, size, size - count)
        targets[rs.name] = size - count
        removed += count
    return removed


def _scale_down_healthy(
    replicas: int,
    strategy: Strategy,
    old: list[ReplicaSetState],
    new_rs: ReplicaSetState,
    targets: dict[str, int],
) -> int:
    min_available = replicas - max_unavailable(strategy, replicas)
    available = total_available([*old, new_rs])
    if available <= min_available:
        return 0
    budget = available - min_available
    removed = 0
    for rs in old:
        if removed >= budget:
            break
        size = targets.get(rs.name, rs.replicas)
        if size == 0:
            continue
        count = min(size, budget - removed)
        targets[rs.name] = size - count
        removed += count
    return removed


def plan_old_scale_down(
    replicas: int,
    strategy: Strategy,
    all_replica_sets: Sequence[ReplicaSetState],
    old_replica_sets: Iterable[ReplicaSetState],
    new_rs: ReplicaSetState,
) -> OldScaleDown:
    """How far the old ReplicaSets may shrink in this rolling step (``reconcileOldReplicaSets``).

    The budget is ``all pods - (replicas - maxUnavailable) - unavailable new pods``, so
    broken new pods never let the rollout eat into old healthy capacity. Unhealthy old
    replicas are cleaned up first (oldest ReplicaSet first), then healthy old replicas go
    while the available count stays above ``replicas - maxUnavailable``. Only active old
    ReplicaSets of ``old_replica_sets`` are touched.
    """
    old = sort_by_creation(active(old_replica_sets))
    targets: dict[str, int] = {}
    if total_spec_replicas(old) == 0:
        return OldScaleDown(targets, 0, 0)
    min_available = replicas - max_unavailable(strategy, replicas)
    new_unavailable = new_rs.replicas - new_rs.available_replicas
    budget = total_spec_replicas(all_replica_sets) - min_available - new_unavailable
    if budget <= 0:
        return OldScaleDown(targets, 0, 0)
    cleaned = _cleanup_unhealthy(old, budget, targets)
    scaled = _scale_down_healthy(replicas, strategy, old, new_rs, targets)
    changed = {name: size for name, size in targets.items() if size != _size_of(old, name)}
    return OldScaleDown(changed, cleaned, scaled)


def _size_of(replica_sets: Sequence[ReplicaSetState], name: str) -> int:
    return next(rs.replicas for rs in replica_sets if rs.name == name)


@dataclass(frozen=True, slots=True)
class RecreateStep:
    """The next Recreate action: exactly one field is meaningful.

    ``scale_old_to_zero`` lists old ReplicaSets still asking for pods; ``wait_for_old_pods``
    means their pods still run; ``create_new`` means the new ReplicaSet must be created;
    ``new_replicas`` is the new ReplicaSet's target (``None`` when already there).
    """

    scale_old_to_zero: tuple[str, ...] = ()
    wait_for_old_pods: bool = False
    create_new: bool = False
    new_replicas: int | None = None


def old_pods_running(
    new_rs: ReplicaSetState | None,
    old_replica_sets: Iterable[ReplicaSetState],
    pods_by_owner_uid: Mapping[str, Iterable[Mapping[str, Any]]],
) -> bool:
    """Whether any pod outside the new ReplicaSet may still run (upstream ``oldPodsRunning``).

    Old ReplicaSets reporting ``status.replicas`` count; so does any pod of another owner
    that is not Succeeded or Failed (Unknown counts: it might be running).
    """
    if total_status_replicas(old_replica_sets) > 0:
        return True
    for owner_uid, pods in pods_by_owner_uid.items():
        if new_rs is not None and owner_uid == new_rs.uid:
            continue
        for pod in pods:
            phase = (pod.get("status") or {}).get("phase")
            if phase not in ("Failed", "Succeeded"):
                return True
    return False


def plan_recreate(
    replicas: int,
    new_rs: ReplicaSetState | None,
    old_replica_sets: Sequence[ReplicaSetState],
    pods_by_owner_uid: Mapping[str, Iterable[Mapping[str, Any]]],
) -> RecreateStep:
    """The next step of a Recreate rollout (upstream ``rolloutRecreate``).

    Old ReplicaSets go to 0 first; nothing new starts while any old pod still runs; then
    the new ReplicaSet is created if missing and scaled straight to ``replicas``.
    """
    to_zero = tuple(rs.name for rs in active(old_replica_sets))
    if to_zero:
        return RecreateStep(scale_old_to_zero=to_zero)
    if old_pods_running(new_rs, old_replica_sets, pods_by_owner_uid):
        return RecreateStep(wait_for_old_pods=True)
    if new_rs is None:
        return RecreateStep(create_new=True)
    if new_rs.replicas == replicas:
        return RecreateStep()
    return RecreateStep(new_replicas=replicas)
