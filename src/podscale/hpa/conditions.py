"""HPA status conditions: the types, upstream's reason constants and messages, and setting.

``decide`` (``podscale.hpa.decide``) records every condition through ``set_condition``,
which keeps upstream's ``setConditionInList`` contract: a condition keeps its place in
the list, is appended when new, and its ``lastTransitionTime`` moves only when its
status changes. Reason and message texts are part of the API contract: kubectl and
dashboards print them, so they match upstream's ``horizontal.go`` word for word.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from podscale.api import timestamps

__all__ = [
    "ABLE_TO_SCALE",
    "AMBIGUOUS_SELECTOR",
    "DESIRED_WITHIN_RANGE",
    "FAILED_GET_SCALE",
    "FAILED_UPDATE_SCALE",
    "INVALID_METRIC_SOURCE_TYPE",
    "INVALID_SELECTOR",
    "READY_FOR_NEW_SCALE",
    "SCALE_DOWN_LIMIT",
    "SCALE_DOWN_STABILIZED",
    "SCALE_UP_LIMIT",
    "SCALE_UP_STABILIZED",
    "SCALING_ACTIVE",
    "SCALING_DISABLED",
    "SCALING_LIMITED",
    "SUCCEEDED_GET_SCALE",
    "SUCCEEDED_RESCALE",
    "TOO_FEW_REPLICAS",
    "TOO_MANY_REPLICAS",
    "VALID_METRIC_FOUND",
    "format_time",
    "get_condition",
    "set_condition",
]

# Condition types.
ABLE_TO_SCALE: Final = "AbleToScale"
SCALING_ACTIVE: Final = "ScalingActive"
SCALING_LIMITED: Final = "ScalingLimited"

# Reasons, named as upstream's string literals.
SUCCEEDED_GET_SCALE: Final = "SucceededGetScale"
FAILED_GET_SCALE: Final = "FailedGetScale"
SUCCEEDED_RESCALE: Final = "SucceededRescale"
FAILED_UPDATE_SCALE: Final = "FailedUpdateScale"
READY_FOR_NEW_SCALE: Final = "ReadyForNewScale"
SCALE_UP_STABILIZED: Final = "ScaleUpStabilized"
SCALE_DOWN_STABILIZED: Final = "ScaleDownStabilized"
SCALING_DISABLED: Final = "ScalingDisabled"
VALID_METRIC_FOUND: Final = "ValidMetricFound"
INVALID_SELECTOR: Final = "InvalidSelector"
AMBIGUOUS_SELECTOR: Final = "AmbiguousSelector"
INVALID_METRIC_SOURCE_TYPE: Final = "InvalidMetricSourceType"
SCALE_UP_LIMIT: Final = "ScaleUpLimit"
SCALE_DOWN_LIMIT: Final = "ScaleDownLimit"
TOO_MANY_REPLICAS: Final = "TooManyReplicas"
TOO_FEW_REPLICAS: Final = "TooFewReplicas"
DESIRED_WITHIN_RANGE: Final = "DesiredWithinRange"


def format_time(moment: datetime) -> str:
    """RFC 3339 with second precision in UTC, as ``metav1.Time`` serializes."""
    return timestamps.format_time(moment)


def get_condition(conditions: list[dict[str, Any]], condition_type: str) -> dict[str, Any] | None:
    for condition in conditions:
        if condition.get("type") == condition_type:
            return condition
    return None


def set_condition(
    conditions: list[dict[str, Any]],
    condition_type: str,
    status: str,
    reason: str,
    message: str,
    *,
    now: datetime,
) -> None:
    """Set one condition in place, as upstream's ``setConditionInList``.

    The list is the decision's own working copy (``decide`` copies the HPA's conditions
    first), so mutating it keeps the caller's objects untouched.
    """
    index = -1
    for position, cond in enumerate(conditions):  # a loop, not next(genexpr): every sync
        if cond.get("type") == condition_type:
            index = position
            break
    if index < 0:
        conditions.append(
            {
                "type": condition_type,
                "status": status,
                "lastTransitionTime": format_time(now),
                "reason": reason,
                "message": message,
            }
        )
        return
    existing = conditions[index]
    if (
        existing.get("status") == status
        and existing.get("reason") == reason
        and existing.get("message") == message
    ):
        return  # the steady state: nothing to change, not even the transition time
    transition = existing.get("lastTransitionTime")
    if existing.get("status") != status or transition is None:
        transition = format_time(now)
    # Rebuilt in the field order Go serializes, keeping any extra keys a client added.
    updated: dict[str, Any] = {
        "type": condition_type,
        "status": status,
        "lastTransitionTime": transition,
        "reason": reason,
        "message": message,
    }
    for key, value in existing.items():
        updated.setdefault(key, value)
    conditions[index] = updated
