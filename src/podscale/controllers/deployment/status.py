"""Deployment status and its Available / Progressing / ReplicaFailure conditions.

Behaviour of upstream's ``calculateStatus`` and ``syncRolloutStatus`` / ``getReplicaFailures``
/ ``requeueStuckDeployment`` (``sync.go``, ``progress.go``) and ``DeploymentComplete``,
``DeploymentProgressing``, ``DeploymentTimedOut``, ``HasProgressDeadline``
(``util/deployment_util.go``). ``now`` is always a parameter. Counts come from
``replicasets``; condition texts and storage rules from ``conditions``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from podscale.controllers.deployment import conditions as cond
from podscale.controllers.deployment.conditions import has_progress_deadline
from podscale.controllers.deployment.fenceposts import Strategy, max_unavailable, strategy_of
from podscale.controllers.deployment.replicasets import (
    ReplicaSetState,
    total_available,
    total_ready,
    total_spec_replicas,
    total_status_replicas,
)
from podscale.hpa.pods import parse_time

__all__ = [
    "calculate_status",
    "deployment_complete",
    "deployment_progressing",
    "deployment_timed_out",
    "requeue_after",
    "rollout_status",
]


def _spec(deployment: Mapping[str, Any]) -> Mapping[str, Any]:
    return deployment.get("spec") or {}


def _replicas(deployment: Mapping[str, Any]) -> int:
    value = _spec(deployment).get("replicas")
    return 1 if value is None else int(value)


def _generation(deployment: Mapping[str, Any]) -> int:
    return int((deployment.get("metadata") or {}).get("generation") or 0)


def _name(deployment: Mapping[str, Any]) -> str:
    return str((deployment.get("metadata") or {}).get("name", ""))


def calculate_status(
    deployment: Mapping[str, Any],
    all_replica_sets: Sequence[ReplicaSetState],
    new_rs: ReplicaSetState | None,
    now: datetime,
    *,
    strategy: Strategy | None = None,
) -> dict[str, Any]:
    """The counts and the Available condition (upstream ``calculateStatus``).

    Other existing conditions are carried over (copied). Available is True when
    ``availableReplicas >= replicas - maxUnavailable``. ``strategy`` is
    ``strategy_of(deployment)``, passed by a caller that already read it.
    """
    old_status = deployment.get("status") or {}
    replicas = _replicas(deployment)
    available = total_available(all_replica_sets)
    unavailable = max(0, total_spec_replicas(all_replica_sets) - available)
    status: dict[str, Any] = {
        "observedGeneration": _generation(deployment),
        "replicas": total_status_replicas(all_replica_sets),
        "updatedReplicas": total_status_replicas([new_rs]),
        "readyReplicas": total_ready(all_replica_sets),
        "availableReplicas": available,
        "unavailableReplicas": unavailable,
    }
    if old_status.get("collisionCount") is not None:
        status["collisionCount"] = old_status["collisionCount"]
    conditions = [dict(c) for c in old_status.get("conditions") or ()]
    if strategy is None:
        strategy = strategy_of(deployment)
    if available >= replicas - max_unavailable(strategy, replicas):
        cond.set_new_condition(
            conditions,
            cond.AVAILABLE,
            "True",
            cond.MINIMUM_REPLICAS_AVAILABLE,
            "Deployment has minimum availability.",
            now,
        )
    else:
        cond.set_new_condition(
            conditions,
            cond.AVAILABLE,
            "False",
            cond.MINIMUM_REPLICAS_UNAVAILABLE,
            "Deployment does not have minimum availability.",
            now,
        )
    status["conditions"] = conditions
    return status


def _count(status: Mapping[str, Any], key: str) -> int:
    return int(status.get(key) or 0)


def deployment_complete(deployment: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    """All ``replicas`` are updated, exist, and are available, for the latest generation."""
    replicas = _replicas(deployment)
    return (
        _count(status, "updatedReplicas") == replicas
        and _count(status, "replicas") == replicas
        and _count(status, "availableReplicas") == replicas
        and _count(status, "observedGeneration") >= _generation(deployment)
    )


def deployment_progressing(deployment: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    """Progress since the stored status: more updated/ready/available pods, or fewer old ones."""
    old = deployment.get("status") or {}
    old_outdated = _count(old, "replicas") - _count(old, "updatedReplicas")
    new_outdated = _count(status, "replicas") - _count(status, "updatedReplicas")
    return (
        _count(status, "updatedReplicas") > _count(old, "updatedReplicas")
        or new_outdated < old_outdated
        or _count(status, "readyReplicas") > _count(old, "readyReplicas")
        or _count(status, "availableReplicas") > _count(old, "availableReplicas")
    )


def _deadline(deployment: Mapping[str, Any], condition: Mapping[str, Any]) -> datetime:
    seconds = int(_spec(deployment)["progressDeadlineSeconds"])
    return parse_time(str(condition["lastUpdateTime"])) + timedelta(seconds=seconds)


def deployment_timed_out(
    deployment: Mapping[str, Any], status: Mapping[str, Any], now: datetime
) -> bool:
    """No progress reported within ``progressDeadlineSeconds`` of the last Progressing update.

    A completed rollout never times out; a timed-out one stays timed out.
    """
    if not has_progress_deadline(deployment):
        return False
    condition = cond.get_condition(status.get("conditions") or [], cond.PROGRESSING)
    if condition is None or condition.get("reason") == cond.NEW_RS_AVAILABLE:
        return False
    if condition.get("reason") == cond.TIMED_OUT:
        return True
    return _deadline(deployment, condition) < now


def _subject(deployment: Mapping[str, Any], new_rs: ReplicaSetState | None) -> str:
    if new_rs is not None:
        return f'ReplicaSet "{new_rs.name}"'
    return f'Deployment "{_name(deployment)}"'


def _replica_failures(
    all_replica_sets: Sequence[ReplicaSetState], new_rs: ReplicaSetState | None
) -> list[dict[str, Any]]:
    # The new ReplicaSet's failure wins over any old one's.
    for group in ([new_rs], all_replica_sets):
        found = [
            {
                "type": c.get("type"),
                "status": c.get("status"),
                "lastUpdateTime": c.get("lastTransitionTime"),
                "lastTransitionTime": c.get("lastTransitionTime"),
                "reason": c.get("reason"),
                "message": c.get("message"),
            }
            for rs in group
            if rs is not None
            for c in rs.conditions
            if c.get("type") == cond.REPLICA_FAILURE
        ]
        if found:
            return found
    return []


def rollout_status(
    deployment: Mapping[str, Any],
    all_replica_sets: Sequence[ReplicaSetState],
    new_rs: ReplicaSetState | None,
    now: datetime,
    *,
    strategy: Strategy | None = None,
) -> dict[str, Any]:
    """The full new status (upstream ``syncRolloutStatus``); compare with the stored one.

    Progressing is only estimated with a deadline and while the latest rollout is not
    already recorded complete: complete -> True/NewReplicaSetAvailable; progress -> True/
    ReplicaSetUpdated with a fresh ``lastUpdateTime``; past the deadline -> False/
    ProgressDeadlineExceeded. A ReplicaFailure of a ReplicaSet is copied up.
    """
    status = calculate_status(deployment, all_replica_sets, new_rs, now, strategy=strategy)
    conditions: list[dict[str, Any]] = status["conditions"]
    if not has_progress_deadline(deployment):
        cond.remove_condition(conditions, cond.PROGRESSING)
    stored = cond.get_condition(
        (deployment.get("status") or {}).get("conditions") or [], cond.PROGRESSING
    )
    already_complete = (
        status["replicas"] == status["updatedReplicas"]
        and stored is not None
        and stored.get("reason") == cond.NEW_RS_AVAILABLE
    )
    if has_progress_deadline(deployment) and not already_complete:
        subject = _subject(deployment, new_rs)
        if deployment_complete(deployment, status):
            cond.set_condition(
                conditions,
                cond.new_condition(
                    cond.PROGRESSING,
                    "True",
                    cond.NEW_RS_AVAILABLE,
                    f"{subject} has successfully progressed.",
                    now,
                ),
            )
        elif deployment_progressing(deployment, status):
            # Unlike set_condition's rule, progress with an unchanged reason must still
            # refresh lastUpdateTime: that is what the deadline is measured from.
            condition = cond.new_condition(
                cond.PROGRESSING,
                "True",
                cond.REPLICA_SET_UPDATED,
                f"{subject} is progressing.",
                now,
            )
            if stored is not None:
                if stored.get("status") == "True":
                    condition["lastTransitionTime"] = stored.get("lastTransitionTime")
                cond.remove_condition(conditions, cond.PROGRESSING)
            cond.set_condition(conditions, condition)
        elif deployment_timed_out(deployment, status, now):
            cond.set_condition(
                conditions,
                cond.new_condition(
                    cond.PROGRESSING,
                    "False",
                    cond.TIMED_OUT,
                    f"{subject} has timed out progressing.",
                    now,
                ),
            )
    failures = _replica_failures(all_replica_sets, new_rs)
    if failures:
        cond.set_condition(conditions, failures[0])
    else:
        cond.remove_condition(conditions, cond.REPLICA_FAILURE)
    return status


def requeue_after(
    deployment: Mapping[str, Any], status: Mapping[str, Any], now: datetime
) -> float | None:
    """Seconds until the deadline check is due (upstream ``requeueStuckDeployment``).

    ``None``: no requeue needed (no deadline, no Progressing condition, complete, or
    already timed out). ``0.0``: check now (less than a second left).
    """
    condition = cond.get_condition(status.get("conditions") or [], cond.PROGRESSING)
    if (
        condition is None
        or not has_progress_deadline(deployment)
        or deployment_complete(deployment, status)
        or condition.get("reason") == cond.TIMED_OUT
    ):
        return None
    left = (_deadline(deployment, condition) - now).total_seconds()
    return 0.0 if left < 1 else left
