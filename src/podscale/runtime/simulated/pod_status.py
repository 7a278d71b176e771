"""Pod status bookkeeping for the simulated kubelet: conditions, times, back-off.

Helpers of ``podscale.runtime.simulated.kubelet_state`` kept apart so the state machine reads as one
concept. Conditions follow upstream's ``UpdatePodCondition``: ``lastTransitionTime`` moves
only when the status flips. Ready and ContainersReady are derived from the container
statuses with the kubelet's reason ``ContainersNotReady`` and message shape, and Ready
also from the pod's readiness gates (``ReadinessGatesNotReady``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api import timestamps
from podscale.api.durations import format_go_duration
from podscale.hpa.conditions import format_time

__all__ = [
    "INITIAL_BACKOFF",
    "MAX_BACKOFF",
    "READINESS_GATES_NOT_READY",
    "crash_loop_backoff",
    "format_go_duration",
    "parse_time",
    "pod_ref",
    "readiness_gates",
    "set_condition",
    "update_readiness",
]

# Upstream kubelet: ``backOffPeriod`` 10s and ``MaxContainerBackOff`` 300s.
INITIAL_BACKOFF: Final = timedelta(seconds=10)
MAX_BACKOFF: Final = timedelta(seconds=300)
# Upstream kubelet's reason for a pod whose containers are ready but a readiness gate is not.
READINESS_GATES_NOT_READY: Final = "ReadinessGatesNotReady"


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


def readiness_gates(pod: Mapping[str, Any]) -> tuple[str, ...]:
    """The condition types the pod's ``spec.readinessGates`` name, in order."""
    gates = (pod.get("spec") or {}).get("readinessGates") or ()
    return tuple(str(g.get("conditionType") or "") for g in gates)


def _gates_not_ready(status: Mapping[str, Any], gates: Sequence[str]) -> str | None:
    """The kubelet's message for the gates whose condition is missing or not True."""
    conditions = {
        str(c.get("type")): c for c in reversed(status.get("conditions") or ()) if c.get("type")
    }
    problems: list[str] = []
    for gate in gates:
        condition = conditions.get(gate)
        if condition is None:
            problems.append(
                f'corresponding condition of pod readiness gate "{gate}" does not exist.'
            )
        elif condition.get("status") != "True":
            problems.append(
                f'the status of pod readiness gate "{gate}" is not "True", '
                f"but {condition.get('status') or ''}"
            )
    return ", ".join(problems) if problems else None


def update_readiness(status: dict[str, Any], now: datetime, gates: Sequence[str] = ()) -> None:
    """Derive ContainersReady and Ready from the container statuses and ``gates``.

    As upstream's ``GeneratePodReadyCondition``: Ready follows ContainersReady while that
    is not True; then every readiness gate's condition must be True, else Ready is False
    with reason ``ReadinessGatesNotReady``. Conditions the kubelet does not own (a gate's)
    are left as they are.
    """
    containers = status.get("containerStatuses") or []
    if not containers:
        return  # not started by the kubelet yet: nothing to derive
    unready = [str(c.get("name", "")) for c in containers if not c.get("ready")]
    if unready:
        message = f"containers with unready status: [{' '.join(unready)}]"
        for kind in ("ContainersReady", "Ready"):
            set_condition(status, kind, "False", now, "ContainersNotReady", message)
        return
    set_condition(status, "ContainersReady", "True", now)
    gated = _gates_not_ready(status, gates)
    if gated is None:
        set_condition(status, "Ready", "True", now)
    else:
        set_condition(status, "Ready", "False", now, READINESS_GATES_NOT_READY, gated)
