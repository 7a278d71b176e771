"""Pod facts the StatefulSet controller decides on: created, running and ready, available.

Upstream's predicates in pkg/controller/statefulset/stateful_set_utils.go. They differ from
the ReplicaSet's on purpose: a pod counts as created only once it has a phase (the API
server's copy; a pod the plan still has to create has none), "ready" also requires phase
``Running``, and a terminating pod is unavailable whatever its conditions say. ``now`` is
always a parameter. Used by ``plan`` (ordering and blocking) and ``status`` (counts).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from podscale.controllers.replicaset.podstate import is_pod_available, is_pod_ready

__all__ = [
    "has_finished",
    "is_created",
    "is_running_and_available",
    "is_running_and_ready",
    "is_terminating",
    "is_unavailable",
]

_FINISHED: Final = frozenset({"Failed", "Succeeded"})


def _phase(pod: Mapping[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def is_created(pod: Mapping[str, Any]) -> bool:
    """The pod exists on the server (it has a phase)."""
    return _phase(pod) != ""


def has_finished(pod: Mapping[str, Any]) -> bool:
    """Failed or Succeeded: a StatefulSet replaces such a pod whatever its exit code."""
    return _phase(pod) in _FINISHED


def is_terminating(pod: Mapping[str, Any]) -> bool:
    """Its deletion has started."""
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def is_running_and_ready(pod: Mapping[str, Any]) -> bool:
    """Phase ``Running`` and the Ready condition ``True``."""
    return _phase(pod) == "Running" and is_pod_ready(pod)


def is_running_and_available(pod: Mapping[str, Any], min_ready_seconds: int, now: datetime) -> bool:
    """Ready for longer than ``min_ready_seconds`` (upstream's ``IsPodAvailable``)."""
    return is_pod_available(pod, min_ready_seconds, now)


def is_unavailable(pod: Mapping[str, Any], min_ready_seconds: int, now: datetime) -> bool:
    """Not available, or being deleted."""
    return not is_running_and_available(pod, min_ready_seconds, now) or is_terminating(pod)
