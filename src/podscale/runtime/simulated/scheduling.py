"""The simulated cluster's scheduler decision: which node a pending pod goes to, or why none.

A minimal kube-scheduler over plain JSON values, pure (``now`` is a parameter). Filters run
per node in upstream's default plugin order and stop at the first rejection, so each node
contributes the reasons of one plugin, as in the framework's ``NodeToStatus`` map:
NodeUnschedulable, TaintToleration (NoSchedule/NoExecute; a node whose Ready condition is
not True carries the ``node.kubernetes.io/not-ready`` taint the node lifecycle controller
would add), NodeAffinity (``spec.nodeSelector`` only) and NodeResourcesFit (pods count, CPU,
memory). Feasible nodes are scored by LeastAllocated over non-zero requests with equal CPU
and memory weights; ties go to a seeded random choice (as upstream) or the smallest name.

Requests come from ``podscale.runtime.simulated.resources``; the kubelet side of the simulation is
``podscale.runtime.simulated.kubelet_state``.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from podscale.hpa.conditions import format_time
from podscale.runtime.simulated.resources import (
    NodeUsage,
    node_allocatable,
    node_usage,
    pod_non_zero_requests,
    pod_requests,
)

__all__ = [
    "NO_NODES_AVAILABLE",
    "PodsOnNode",
    "bind",
    "choose_node",
    "filter_node",
    "is_node_ready",
    "mark_unschedulable",
    "score_node",
    "unschedulable_reason",
]

NO_NODES_AVAILABLE: Final = "no nodes available to schedule pods"
_MAX_NODE_SCORE: Final = 100
_TAINT_NOT_READY: Final = "node.kubernetes.io/not-ready"
_TAINT_UNSCHEDULABLE: Final = "node.kubernetes.io/unschedulable"
_REASON_UNSCHEDULABLE: Final = "node(s) were unschedulable"
_REASON_SELECTOR: Final = "node(s) didn't match Pod's node affinity/selector"
_REASON_TOO_MANY_PODS: Final = "Too many pods"


def _name(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def is_node_ready(node: dict[str, Any]) -> bool:
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return bool(condition.get("status") == "True")
    return False


def _tolerates(tolerations: list[dict[str, Any]], taint: dict[str, Any]) -> bool:
    """Upstream ``Toleration.ToleratesTaint``: effect, key (empty key + Exists is a wildcard),
    then value unless the operator is Exists."""
    for toleration in tolerations:
        effect = toleration.get("effect") or ""
        if effect and effect != taint.get("effect"):
            continue
        key = toleration.get("key") or ""
        operator = toleration.get("operator") or "Equal"
        if key and key != taint.get("key"):
            continue
        if operator == "Exists":
            return True
        if key and (toleration.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def _effective_taints(node: dict[str, Any]) -> list[dict[str, Any]]:
    taints = list((node.get("spec") or {}).get("taints") or [])
    if not is_node_ready(node) and not any(t.get("key") == _TAINT_NOT_READY for t in taints):
        taints.append({"key": _TAINT_NOT_READY, "effect": "NoSchedule"})
    return taints


# The pods on a node, or their running totals (``simulated.resources.NodeUsage``): a caller that
# keeps totals up to date avoids re-reading every pod's requests for every decision.
PodsOnNode = list[dict[str, Any]] | NodeUsage


def _usage(pods_on_node: PodsOnNode) -> NodeUsage:
    return pods_on_node if isinstance(pods_on_node, NodeUsage) else node_usage(pods_on_node)


def filter_node(pod: dict[str, Any], node: dict[str, Any], pods_on_node: PodsOnNode) -> list[str]:
    """Why ``pod`` cannot go to ``node`` (the first rejecting plugin's reasons); [] if it fits."""
    spec = pod.get("spec") or {}
    tolerations = list(spec.get("tolerations") or [])
    if (node.get("spec") or {}).get("unschedulable") and not _tolerates(
        tolerations, {"key": _TAINT_UNSCHEDULABLE, "effect": "NoSchedule"}
    ):
        return [_REASON_UNSCHEDULABLE]
    for taint in _effective_taints(node):
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not _tolerates(
            tolerations, taint
        ):
            key, value = taint.get("key", ""), taint.get("value", "")
            return [f"node(s) had untolerated taint {{{key}: {value}}}"]
    labels = (node.get("metadata") or {}).get("labels") or {}
    selector = spec.get("nodeSelector") or {}
    if any(labels.get(key) != value for key, value in selector.items()):
        return [_REASON_SELECTOR]
    return _fit_resources(pod, node, pods_on_node)


def _fit_resources(
    pod: dict[str, Any], node: dict[str, Any], pods_on_node: PodsOnNode
) -> list[str]:
    allocatable = node_allocatable(node)
    usage = _usage(pods_on_node)
    reasons: list[str] = []
    if usage.pods + 1 > allocatable.pods:
        reasons.append(_REASON_TOO_MANY_PODS)
    wanted = pod_requests(pod)
    used = usage.requested
    if wanted.milli_cpu > 0 and allocatable.milli_cpu < wanted.milli_cpu + used.milli_cpu:
        reasons.append("Insufficient cpu")
    if wanted.memory > 0 and allocatable.memory < wanted.memory + used.memory:
        reasons.append("Insufficient memory")
    return reasons


def _least_allocated(requested: int, allocatable: int) -> int:
    if allocatable == 0 or requested > allocatable:
        return 0
    return (allocatable - requested) * _MAX_NODE_SCORE // allocatable


def score_node(pod: dict[str, Any], node: dict[str, Any], pods_on_node: PodsOnNode) -> int:
    """LeastAllocated, 0..100: the share of CPU and memory left free once ``pod`` is added."""
    allocatable = node_allocatable(node)
    requested = _usage(pods_on_node).non_zero_requested + pod_non_zero_requests(pod)
    cpu = _least_allocated(requested.milli_cpu, allocatable.milli_cpu)
    memory = _least_allocated(requested.memory, allocatable.memory)
    return (cpu + memory) // 2


def choose_node(
    pod: dict[str, Any],
    nodes: list[dict[str, Any]],
    pods_on_nodes: Mapping[str, PodsOnNode],
    rng: random.Random | None = None,
) -> str | None:
    """The node to bind ``pod`` to, or None when no node passes the filters.

    A pod that already names its node (``spec.nodeName``) bypasses scheduling, as upstream.
    ``pods_on_nodes`` maps node name to the pods bound there (terminal ones are ignored)
    or to their ``NodeUsage``. Among equally scored nodes ``rng`` picks uniformly, as
    upstream's ``selectHost`` does; without one the smallest name wins (reproducible
    without a seed).
    """
    bound = (pod.get("spec") or {}).get("nodeName")
    if bound:
        return str(bound)
    best_score = -1
    best: list[str] = []
    for node in nodes:
        name = _name(node)
        on_node = _usage(pods_on_nodes.get(name, []))
        if filter_node(pod, node, on_node):
            continue
        score = score_node(pod, node, on_node)
        if score > best_score:
            best_score, best = score, [name]
        elif score == best_score:
            best.append(name)
    if not best:
        return None
    best.sort()
    return best[0] if rng is None else rng.choice(best)


def unschedulable_reason(
    pod: dict[str, Any],
    nodes: list[dict[str, Any]],
    pods_on_nodes: Mapping[str, PodsOnNode],
) -> str:
    """The FitError message: ``0/3 nodes are available: 1 Too many pods, 2 Insufficient cpu.``

    Reasons are counted over nodes and sorted as strings, like upstream's histogram. The
    preemption part (``preemption: ...``) that follows it in upstream's message is added by
    ``podscale.runtime.simulated.fit_error.fit_error_message``.
    """
    if not nodes:
        return NO_NODES_AVAILABLE
    counts: Counter[str] = Counter()
    for node in nodes:
        counts.update(filter_node(pod, node, pods_on_nodes.get(_name(node), [])))
    histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
    message = f"0/{len(nodes)} nodes are available:"
    if histogram:
        message += f" {', '.join(histogram)}."
    return message


def bind(pod: dict[str, Any], node_name: str, now: datetime) -> dict[str, Any]:
    """A copy of ``pod`` bound to ``node_name`` with PodScheduled=True (as the Binding does)."""
    bound = copy.deepcopy(pod)
    bound.setdefault("spec", {})["nodeName"] = node_name
    status = bound.setdefault("status", {})
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
    conditions.append(
        {
            "type": "PodScheduled",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": format_time(now),
        }
    )
    status["conditions"] = conditions
    status.setdefault("phase", "Pending")
    return bound


def mark_unschedulable(pod: dict[str, Any], message: str, now: datetime) -> dict[str, Any]:
    """The pod's status with PodScheduled=False, reason ``Unschedulable``, as the scheduler
    records a failed attempt (the transition time moves only when the status flips)."""
    status = copy.deepcopy(pod.get("status") or {})
    conditions = list(status.get("conditions") or [])
    previous = next((c for c in conditions if c.get("type") == "PodScheduled"), None)
    moved = previous is None or previous.get("status") != "False"
    condition = {
        "type": "PodScheduled",
        "status": "False",
        "lastProbeTime": None,
        "lastTransitionTime": format_time(now)
        if moved or previous is None
        else previous.get("lastTransitionTime"),
        "reason": "Unschedulable",
        "message": message,
    }
    status["conditions"] = [c for c in conditions if c.get("type") != "PodScheduled"]
    status["conditions"].append(condition)
    status.setdefault("phase", "Pending")
    return status
