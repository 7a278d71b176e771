"""Which events a kubelet status change announces: container started, back-off, node lost.

Pure: compares the pod status before and after one step of
``podscale.runtime.simulated.kubelet_state`` and names the kubelet events upstream records for it,
with upstream's reasons and messages (``Started`` "Started container c"; ``BackOff`` "Back-off
restarting failed container c in pod <name_ns(uid)>"; the node controller's ``NodeNotReady`` "Node
is not ready" when a lost node's pod turns not ready). ``kubelets`` records them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from podscale.runtime.simulated.pod_status import pod_ref

__all__ = ["PodEvent", "container_events", "node_not_ready_event"]


@dataclass(frozen=True, slots=True)
class PodEvent:
    """One event about a pod: ``event_type`` is Normal or Warning."""

    event_type: str
    reason: str
    message: str


def _by_name(status: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {str(c.get("name", "")): c for c in status.get("containerStatuses") or []}


def _running_since(container: Mapping[str, Any] | None) -> Any:
    if container is None:
        return None
    return ((container.get("state") or {}).get("running") or {}).get("startedAt")


def _backing_off(container: Mapping[str, Any] | None) -> bool:
    if container is None:
        return False
    waiting = (container.get("state") or {}).get("waiting") or {}
    return waiting.get("reason") == "CrashLoopBackOff"


def container_events(
    pod: Mapping[str, Any], old: Mapping[str, Any], new: Mapping[str, Any]
) -> list[PodEvent]:
    """Events for containers that started, or entered back-off, between ``old`` and ``new``."""
    before = _by_name(old)
    events: list[PodEvent] = []
    for name, container in _by_name(new).items():
        previous = before.get(name)
        started = _running_since(container)
        if started is not None and started != _running_since(previous):
            events.append(PodEvent("Normal", "Started", f"Started container {name}"))
        elif _backing_off(container) and not _backing_off(previous):
            message = f"Back-off restarting failed container {name} in pod {pod_ref(dict(pod))}"
            events.append(PodEvent("Warning", "BackOff", message))
    return events


def _ready(status: Mapping[str, Any]) -> str | None:
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Ready":
            return str(condition.get("status"))
    return None


def node_not_ready_event(old: Mapping[str, Any], new: Mapping[str, Any]) -> PodEvent | None:
    """The node controller's event when a lost node's pod stops being ready."""
    if _ready(old) == "True" and _ready(new) == "False":
        return PodEvent("Warning", "NodeNotReady", "Node is not ready")
    return None
