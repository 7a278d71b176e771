"""Deployment condition types, reasons, messages, and upstream's set/remove semantics.

Texts match ``util/deployment_util.go`` and ``progress.go`` / ``sync.go`` word for word:
``kubectl rollout status`` and ``kubectl describe`` print them, and ``rollout status``
keys off the ``ProgressDeadlineExceeded`` reason. ``status`` computes the
Available/Progressing outcome of a sync; this module builds and stores conditions, and
decides the ones written outside that computation (pause/resume, new ReplicaSet created
or found, from ``sync.go``). Conditions are plain dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from podscale.hpa.conditions import format_time

__all__ = [
    "AVAILABLE",
    "FAILED_RS_CREATE",
    "FOUND_NEW_RS",
    "MINIMUM_REPLICAS_AVAILABLE",
    "MINIMUM_REPLICAS_UNAVAILABLE",
    "NEW_RS_AVAILABLE",
    "NEW_RS_CREATED",
    "PAUSED",
    "PROGRESSING",
    "REPLICA_FAILURE",
    "REPLICA_SET_UPDATED",
    "RESUMED",
    "TIMED_OUT",
    "get_condition",
    "has_progress_deadline",
    "new_condition",
    "new_replica_set_condition",
    "paused_condition",
    "remove_condition",
    "set_condition",
    "set_new_condition",
]

# Condition types.
AVAILABLE: Final = "Available"
PROGRESSING: Final = "Progressing"
REPLICA_FAILURE: Final = "ReplicaFailure"

# Progressing reasons.
REPLICA_SET_UPDATED: Final = "ReplicaSetUpdated"
FAILED_RS_CREATE: Final = "ReplicaSetCreateError"
NEW_RS_CREATED: Final = "NewReplicaSetCreated"
FOUND_NEW_RS: Final = "FoundNewReplicaSet"
NEW_RS_AVAILABLE: Final = "NewReplicaSetAvailable"
TIMED_OUT: Final = "ProgressDeadlineExceeded"
PAUSED: Final = "DeploymentPaused"
RESUMED: Final = "DeploymentResumed"

# Available reasons.
MINIMUM_REPLICAS_AVAILABLE: Final = "MinimumReplicasAvailable"
MINIMUM_REPLICAS_UNAVAILABLE: Final = "MinimumReplicasUnavailable"

_INT32_MAX: Final = 2**31 - 1


def new_condition(
    condition_type: str, status: str, reason: str, message: str, now: datetime
) -> dict[str, Any]:
    """A condition stamped at ``now`` (both update and transition time), in apps/v1 key order."""
    stamp = format_time(now)
    return {
        "type": condition_type,
        "status": status,
        "lastUpdateTime": stamp,
        "lastTransitionTime": stamp,
        "reason": reason,
        "message": message,
    }


def get_condition(
    conditions: Sequence[dict[str, Any]], condition_type: str
) -> dict[str, Any] | None:
    for condition in conditions:
        if condition.get("type") == condition_type:
            return condition
    return None


def set_condition(conditions: list[dict[str, Any]], condition: dict[str, Any]) -> None:
    """Store ``condition`` the way upstream's ``SetDeploymentCondition`` does.

    Same status and reason as the stored one: nothing changes (not even the message or
    update time). Same status, new reason: replaced, keeping ``lastTransitionTime``.
    Replacements move to the end of the list, as upstream filters and appends.
    """
    current = get_condition(conditions, condition["type"])
    if (
        current is not None
        and current.get("status") == condition["status"]
        and current.get("reason") == condition["reason"]
    ):
        return
    stored = dict(condition)
    if current is not None and current.get("status") == condition["status"]:
        stored["lastTransitionTime"] = current.get("lastTransitionTime")
    remove_condition(conditions, condition["type"])
    conditions.append(stored)


def set_new_condition(
    conditions: list[dict[str, Any]],
    condition_type: str,
    status: str,
    reason: str,
    message: str,
    now: datetime,
) -> None:
    """``set_condition(conditions, new_condition(...))``, without stamping a condition
    that would not be stored: a stored one with the same status and reason stays as is
    (``set_condition``'s first rule). Every sync restates Available this way."""
    current = get_condition(conditions, condition_type)
    if current is not None and current.get("status") == status and current.get("reason") == reason:
        return
    set_condition(conditions, new_condition(condition_type, status, reason, message, now))


def remove_condition(conditions: list[dict[str, Any]], condition_type: str) -> None:
    conditions[:] = [c for c in conditions if c.get("type") != condition_type]


def has_progress_deadline(deployment: Mapping[str, Any]) -> bool:
    """``progressDeadlineSeconds`` is set and not int32 max (which means "no deadline")."""
    deadline = (deployment.get("spec") or {}).get("progressDeadlineSeconds")
    return deadline is not None and deadline != _INT32_MAX


def paused_condition(deployment: Mapping[str, Any], now: datetime) -> dict[str, Any] | None:
    """The Progressing condition to set on pause or resume, or ``None`` (``checkPausedConditions``).

    Only with a progress deadline, and never over ProgressDeadlineExceeded: pausing
    stops the clock (Unknown/DeploymentPaused), resuming restarts it
    (Unknown/DeploymentResumed).
    """
    if not has_progress_deadline(deployment):
        return None
    stored = get_condition((deployment.get("status") or {}).get("conditions") or [], PROGRESSING)
    paused = bool((deployment.get("spec") or {}).get("paused"))
    reason = None if stored is None else stored.get("reason")
    if reason == TIMED_OUT:
        return None  # a reported lack of progress is never masked by a pause
    if paused and reason != PAUSED:
        return new_condition(PROGRESSING, "Unknown", PAUSED, "Deployment is paused", now)
    if not paused and reason == PAUSED:
        return new_condition(PROGRESSING, "Unknown", RESUMED, "Deployment is resumed", now)
    return None


def new_replica_set_condition(
    deployment: Mapping[str, Any], rs_name: str, *, created: bool, now: datetime
) -> dict[str, Any] | None:
    """Progressing after creating (or first finding) the new ReplicaSet, or ``None``.

    A created ReplicaSet always records ``NewReplicaSetCreated``; a found one records
    ``FoundNewReplicaSet`` only when no Progressing condition exists yet. Both need a
    progress deadline.
    """
    if not has_progress_deadline(deployment):
        return None
    if created:
        return new_condition(
            PROGRESSING,
            "True",
            NEW_RS_CREATED,
            f'Created new replica set "{rs_name}"',
            now,
        )
    stored = get_condition((deployment.get("status") or {}).get("conditions") or [], PROGRESSING)
    if stored is not None:
        return None
    return new_condition(
        PROGRESSING, "True", FOUND_NEW_RS, f'Found new replica set "{rs_name}"', now
    )
