"""Simulated Node objects: a builder with capacity and a Ready condition, and node loss.

Plain JSON dicts as the API server stores them, so ``podscale.runtime.simulated.scheduling`` and
``podscale.runtime.simulated.kubelet_state`` read them like real nodes. Pure: times are parameters.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from podscale.hpa.conditions import format_time

__all__ = ["node", "set_node_ready"]


def _ready_condition(ready: bool, now: datetime | None) -> dict[str, Any]:
    condition: dict[str, Any] = {
        "type": "Ready",
        "status": "True" if ready else "Unknown",
        "reason": "KubeletReady" if ready else "NodeStatusUnknown",
        "message": "kubelet is posting ready status"
        if ready
        else "Kubelet stopped posting node status.",
    }
    if now is not None:
        condition["lastHeartbeatTime"] = format_time(now)
        condition["lastTransitionTime"] = format_time(now)
    return condition


def node(
    name: str,
    cpu: str = "4",
    memory: str = "8Gi",
    pods: int = 110,
    *,
    labels: dict[str, str] | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """A Ready node whose allocatable equals its capacity (no system reservations)."""
    resources = {"cpu": cpu, "memory": memory, "pods": str(pods)}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
            | (labels or {}),
        },
        "spec": {},
        "status": {
            "capacity": dict(resources),
            "allocatable": dict(resources),
            "conditions": [_ready_condition(True, now)],
        },
    }


def set_node_ready(node_obj: dict[str, Any], ready: bool, now: datetime) -> dict[str, Any]:
    """A copy of the node with Ready True, or Unknown as when its kubelet stops reporting
    (the node lifecycle controller's view of a lost node)."""
    # A new object along the path written (the object, its status, its conditions list);
    # the rest is shared with ``node_obj``, which is left as it was. The heartbeat's write
    # copies what it is given, and its other parts (metadata, nodeInfo, addresses, ...)
    # are most of a Node: copying them all on every heartbeat bought nothing.
    changed = dict(node_obj)
    status = changed["status"] = dict(changed.get("status") or {})
    kept = [c for c in status.get("conditions") or [] if c.get("type") != "Ready"]
    previous = next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), None)
    condition = _ready_condition(ready, now)
    if previous is not None and previous.get("status") == condition["status"]:
        condition["lastTransitionTime"] = previous.get("lastTransitionTime")
    status["conditions"] = [*kept, condition]
    return changed
