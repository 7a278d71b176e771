"""Pod status bookkeeping for the simulated kubelet: conditions, times, back-off.

Helpers of ``podscale.runtime.simulated.kubelet_state`` kept apart so the state machine reads as one
concept. Conditions follow upstream's ``UpdatePodCondition``: ``lastTransitionTime`` moves
only when the status flips. Ready and ContainersReady are derived from the container
statuses with the kubelet's reason ``ContainersNotReady`` and message shape.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api import timestamps
from podscale.api.durations import format_go_duration
from podscale.hpa.conditions import format_time

__all__ = [
    "INITIAL_BACKOFF",
    "MAX_BACKOFF",
    "crash_loop_backoff",
    "format_go_duration",
    "parse_time",
    "pod_ref",
    "set_condition",
    "update_readiness",
]

# Upstream kubelet: ``backOffPeriod`` 10s and ``MaxContainerBackOff`` 300s.
INITIAL_BACKOFF: Final = timedelta(seconds=10)
MAX_BACKOFF: Final = timedelta(seconds=300)


def parse_time(text: str) -> datetime:
    """An RFC 3339 ``metav1.Time`` (``...Z``) as an aware datetime."""
    return timestamps.parse_time(text)


def crash_loop_backoff(restart_count: int) -> timedelta:
    """The wait before restarting a container that has already restarted ``restart_count``
    times: none for the first restart (the kubelet has no back-off entry yet), then 10s,
    20s, 40s ... capped at 300s. The reset after 10 quiet minutes is not modelled."""
    if restart_count <= 0:
        return timedelta(0)
    # Bound the exponent: past a few doublings the cap applies anyway.
    doubled: timedelta = INITIAL_BACKOFF * (2 ** min(restart_count - 1, 16))
    return min(doubled, MAX_BACKOFF)


def pod_ref(pod: dict[str, Any]) -> str:
    """Upstream ``format.Pod``: ``name_namespace(uid)``."""
    metadata = pod.get("metadata") or {}
    return (
        f"{metadata.get('name', '')}_{metadata.get('namespace', 'default')}"
        f"({metadata.get('uid', '')})"
    )


def set_condition(
    status: dict[str, Any],
    condition_type: str,
    value: str,
    now: datetime,
    reason: str | None = None,
    message: str | None = None,
) -> None:
    """Set one condition in place; the transition time moves only if the status changes."""
    conditions: list[dict[str, Any]] = list(status.get("conditions") or [])
    for index, condition in enumerate(conditions):
        if condition.get("type") != condition_type:
            continue
        updated = dict(condition)
        if condition.get("status") != value:
            updated["lastTransitionTime"] = format_time(now)
        updated["status"] = value
        _set_reason(updated, reason, message)
        conditions[index] = updated
        status["conditions"] = conditions
        return
    created: dict[str, Any] = {
        "type": condition_type,
        "status": value,
        "lastProbeTime": None,
        "lastTransitionTime": format_time(now),
    }
    _set_reason(created, reason, message)
    conditions.append(created)
    status["conditions"] = conditions


def _set_reason(condition: dict[str, Any], reason: str | None, message: str | None) -> None:
    if reason is None:
        condition.pop("reason", None)
        condition.pop("message", None)
    else:
        condition["reason"] = reason
        condition["message"] = message or ""


def update_readiness(status: dict[str, Any], now: datetime) -> None:
    """Derive ContainersReady and Ready from the container statuses."""
    containers = status.get("containerStatuses") or []
    if not containers:
        return  # not started by the kubelet yet: nothing to derive
    unready = [str(c.get("name", "")) for c in containers if not c.get("ready")]
    if unready:
        message = f"containers with unready status: [{' '.join(unready)}]"
        for kind in ("ContainersReady", "Ready"):
            set_condition(status, kind, "False", now, "ContainersNotReady", message)
    else:
        for kind in ("ContainersReady", "Ready"):
            set_condition(status, kind, "True", now)
