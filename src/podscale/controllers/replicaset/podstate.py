"""Facts about one pod that the ReplicaSet controller decides on: active, ready, available.

Shared by ``ordering`` (deletion order) and ``status`` (replica counts). Mirrors upstream's
``IsPodActive`` (pkg/controller/controller_utils.go) and ``IsPodReady``/``IsPodAvailable``
(pkg/api/v1/pod/util.go). Timestamps are parsed with ``podscale.hpa.pods.parse_time``;
a missing timestamp is ``None``, upstream's zero time.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    """Ready, and ready for strictly longer than ``min_ready_seconds`` (0: ready suffices).

    A ready pod without a transition time is available only when ``min_ready_seconds`` is 0.
    """
    if not is_pod_ready(pod):
        return False
    if min_ready_seconds == 0:
        return True
    since = ready_time(pod)
    return since is not None and since + timedelta(seconds=min_ready_seconds) < now


def max_container_restarts(pod: Mapping[str, Any]) -> int:
    """The highest restart count among the pod's (regular) containers; 0 without statuses."""
    statuses = (pod.get("status") or {}).get("containerStatuses") or ()
    return max((int(s.get("restartCount") or 0) for s in statuses), default=0)
