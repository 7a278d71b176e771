"""Facts about one pod that the ReplicaSet controller decides on: active, ready, available.

Shared by ``ordering`` (deletion order), ``status`` (replica counts) and the controller's
availability re-check. Mirrors upstream's ``IsPodActive``/``IsPodTerminating``,
``maxContainerRestarts`` and ``FindMinNextPodAvailabilityCheck``
(pkg/controller/controller_utils.go) and ``IsPodReady``/``IsPodAvailable``
(pkg/api/v1/pod/util.go). Timestamps are parsed with ``podscale.hpa.pods.parse_time``;
a missing timestamp is ``None``, upstream's zero time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from podscale.hpa.pods import parse_time

__all__ = [
    "creation_time",
    "is_pod_active",
    "is_pod_available",
    "is_pod_ready",
    "is_pod_terminating",
    "max_container_restarts",
    "max_sidecar_restarts",
    "next_availability_check",
    "node_name",
    "ready_time",
]

_TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


def _ready_condition(pod: Mapping[str, Any]) -> Mapping[str, Any] | None:
    # The first condition of type Ready, as upstream's GetPodReadyCondition.
    for condition in (pod.get("status") or {}).get("conditions") or ():
        if condition.get("type") == "Ready":
            return condition  # type: ignore[no-any-return]
    return None


def _optional_time(text: object) -> datetime | None:
    return parse_time(text) if isinstance(text, str) and text else None


def node_name(pod: Mapping[str, Any]) -> str:
    """``spec.nodeName``; empty while the pod is unscheduled."""
    return str((pod.get("spec") or {}).get("nodeName") or "")


def is_pod_active(pod: Mapping[str, Any]) -> bool:
    """Not terminating and not in a terminal phase: the pod still counts as a replica."""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return (pod.get("status") or {}).get("phase") not in _TERMINAL_PHASES


def is_pod_terminating(pod: Mapping[str, Any]) -> bool:
    """Being deleted but not yet in a terminal phase (upstream's ``IsPodTerminating``)."""
    if not (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return (pod.get("status") or {}).get("phase") not in _TERMINAL_PHASES


def is_pod_ready(pod: Mapping[str, Any]) -> bool:
    """The Ready condition is present with status ``True``."""
    condition = _ready_condition(pod)
    return condition is not None and condition.get("status") == "True"


def ready_time(pod: Mapping[str, Any]) -> datetime | None:
    """When a ready pod last turned ready; ``None`` when not ready or the time is unset."""
    condition = _ready_condition(pod)
    if condition is None or condition.get("status") != "True":
        return None
    return _optional_time(condition.get("lastTransitionTime"))


def creation_time(pod: Mapping[str, Any]) -> datetime | None:
    """``metadata.creationTimestamp``, ``None`` when unset."""
    return _optional_time((pod.get("metadata") or {}).get("creationTimestamp"))


def is_pod_available(pod: Mapping[str, Any], min_ready_seconds: int, now: datetime) -> bool:
    """Ready, and ready for at least ``min_ready_seconds`` (0: ready suffices).

    Current upstream counts the boundary itself as available (``Compare(now) <= 0``), so a
    re-check scheduled exactly ``min_ready_seconds`` after the transition sees the pod
    available. A ready pod without a transition time is available only at 0.
    """
    if not is_pod_ready(pod):
        return False
    if min_ready_seconds == 0:
        return True
    since = ready_time(pod)
    return since is not None and since + timedelta(seconds=min_ready_seconds) <= now


def _until_available(
    pod: Mapping[str, Any], min_ready_seconds: int, now: datetime
) -> timedelta | None:
    # Upstream's nextPodAvailabilityCheck: only ready, not yet available pods have one.
    if min_ready_seconds <= 0 or not is_pod_ready(pod):
        return None
    since = ready_time(pod)
    if since is None:
        return None
    remaining = since + timedelta(seconds=min_ready_seconds) - now
    return remaining if remaining > timedelta(0) else None


def next_availability_check(
    pods: Sequence[Mapping[str, Any]],
    min_ready_seconds: int,
    evaluated_at: datetime,
    now: datetime,
) -> timedelta | None:
    """How long until the next of ``pods`` becomes available (``FindMinNextPodAvailabilityCheck``).

    The pod is chosen as of ``evaluated_at`` (when the status was computed) and its wait is
    recomputed at ``now`` (after the status write); 0 when it has become available in
    between, ``None`` when no pod is waiting for ``minReadySeconds``.
    """
    soonest: tuple[timedelta, Mapping[str, Any]] | None = None
    for pod in pods:
        remaining = _until_available(pod, min_ready_seconds, evaluated_at)
        if remaining is not None and (soonest is None or remaining < soonest[0]):
            soonest = (remaining, pod)
    if soonest is None:
        return None
    later = _until_available(soonest[1], min_ready_seconds, now)
    return later if later is not None else timedelta(0)


def max_container_restarts(pod: Mapping[str, Any]) -> int:
    """The highest restart count among the pod's (regular) containers; 0 without statuses."""
    statuses = (pod.get("status") or {}).get("containerStatuses") or ()
    return max((int(s.get("restartCount") or 0) for s in statuses), default=0)


def max_sidecar_restarts(pod: Mapping[str, Any]) -> int:
    """The highest restart count among sidecars: init containers with ``restartPolicy:
    Always`` (upstream compares these only when regular restarts tie)."""
    sidecars = {
        c.get("name")
        for c in (pod.get("spec") or {}).get("initContainers") or ()
        if c.get("restartPolicy") == "Always"
    }
    statuses = (pod.get("status") or {}).get("initContainerStatuses") or ()
    return max(
        (int(s.get("restartCount") or 0) for s in statuses if s.get("name") in sidecars),
        default=0,
    )
