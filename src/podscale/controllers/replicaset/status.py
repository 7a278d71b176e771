"""ReplicaSet status: replica counts, observedGeneration and the ReplicaFailure condition.

Mirrors upstream's ``calculateStatus`` (pkg/controller/replicaset/replica_set_utils.go) and
the event texts of ``RealPodControl`` (pkg/controller/controller_utils.go). Counts cover the
active pods the ReplicaSet controls; ``fullyLabeledReplicas`` counts those whose labels carry
every template label; ``availableReplicas`` honours ``spec.minReadySeconds``. Fields that Go
serializes with ``omitempty`` are dropped at zero, so an unchanged status compares equal and
the controller writes only on change. Unknown status fields survive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from podscale.api.json_copy import copy_json
from podscale.controllers.replicaset.podstate import (
    is_pod_active,
    is_pod_available,
    is_pod_ready,
    is_pod_terminating,
)
from podscale.hpa.conditions import format_time

__all__ = [
    "REPLICA_FAILURE",
    "created_event_message",
    "deleted_event_message",
    "failed_create_event_message",
    "failed_delete_event_message",
    "replica_set_status",
]

REPLICA_FAILURE: Final = "ReplicaFailure"
_OMIT_WHEN_ZERO: Final = (
    "fullyLabeledReplicas",
    "readyReplicas",
    "availableReplicas",
    "observedGeneration",
)


def created_event_message(pod_name: str) -> str:
    """Message of the ``SuccessfulCreate`` event."""
    return f"Created pod: {pod_name}"


def deleted_event_message(pod_name: str) -> str:
    """Message of the ``SuccessfulDelete`` event."""
    return f"Deleted pod: {pod_name}"


def failed_create_event_message(error: str) -> str:
    """Message of the ``FailedCreate`` event; ``error`` is the API error's text."""
    return f"Error creating: {error}"


def failed_delete_event_message(error: str) -> str:
    """Message of the ``FailedDelete`` event; ``error`` is the API error's text."""
    return f"Error deleting: {error}"


def _has_template_labels(template_labels: Mapping[str, str], pod: Mapping[str, Any]) -> bool:
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return all(labels.get(key) == value for key, value in template_labels.items())


def _with_failure_condition(
    conditions: list[dict[str, Any]], reason: str, message: str, now: datetime
) -> list[dict[str, Any]]:
    # Upstream sets the condition only when none exists yet: a failure keeps its first
    # reason and message until a sync succeeds and clears it.
    if any(c.get("type") == REPLICA_FAILURE for c in conditions):
        return conditions
    condition = {
        "type": REPLICA_FAILURE,
        "status": "True",
        "lastTransitionTime": format_time(now),
        "reason": reason,
        "message": message,
    }
    return [*conditions, condition]


def replica_set_status(
    rs: Mapping[str, Any],
    pods: Sequence[Mapping[str, Any]],
    *,
    now: datetime,
    manage_error: str | None = None,
    count_terminating: bool = False,
) -> dict[str, Any]:
    """The status ``rs`` should have, given the pods it controls.

    ``manage_error`` is the text of the error the last create/delete round returned, if
    any: it adds ``ReplicaFailure`` (reason ``FailedCreate`` when pods are missing,
    ``FailedDelete`` when there are too many, empty when neither); no error removes it.
    ``count_terminating`` (upstream's ``DeploymentReplicaSetTerminatingReplicas``) reports
    ``terminatingReplicas``, the pods being deleted that have not finished; otherwise the
    field is dropped.
    """
    spec = rs.get("spec") or {}
    active = [pod for pod in pods if is_pod_active(pod)]
    template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    min_ready_seconds = int(spec.get("minReadySeconds") or 0)
    status: dict[str, Any] = copy_json(dict(rs.get("status") or {}))
    status["replicas"] = len(active)
    status["fullyLabeledReplicas"] = sum(_has_template_labels(template_labels, p) for p in active)
    status["readyReplicas"] = sum(is_pod_ready(p) for p in active)
    status["availableReplicas"] = sum(is_pod_available(p, min_ready_seconds, now) for p in active)
    status["observedGeneration"] = int((rs.get("metadata") or {}).get("generation") or 0)
    if count_terminating:
        status["terminatingReplicas"] = sum(is_pod_terminating(p) for p in pods)
    else:
        status.pop("terminatingReplicas", None)
    for field in _OMIT_WHEN_ZERO:
        if not status[field]:
            del status[field]
    conditions: list[dict[str, Any]] = list(status.get("conditions") or [])
    if manage_error is not None:
        diff = len(active) - int(spec.get("replicas", 1))
        reason = "FailedCreate" if diff < 0 else "FailedDelete" if diff > 0 else ""
        conditions = _with_failure_condition(conditions, reason, manage_error, now)
    else:
        conditions = [c for c in conditions if c.get("type") != REPLICA_FAILURE]
    if conditions:
        status["conditions"] = conditions
    else:
        status.pop("conditions", None)
    return status
