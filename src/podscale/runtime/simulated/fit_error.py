"""The whole message kube-scheduler reports for a pod that fits no node, preemption included.

``podscale.runtime.simulated.scheduling.unschedulable_reason`` gives the filter part (``0/3 nodes
are available: 3 Insufficient cpu.``). Upstream then runs the PostFilter plugins, and the
DefaultPreemption plugin's verdict is appended (FitError's " %v." separator, hence the double period
real clusters show): ``... preemption: 0/3 nodes are available: 3 No preemption victims found for
incoming pod..``. Per node, preemption is "not helpful" where the rejection is
UnschedulableAndUnresolvable (unschedulable node, untolerated taint, selector mismatch, or a request
larger than the node's whole allocatable) and finds "no victims" elsewhere: the simulation has no
pod priorities, so there is never a lower-priority pod to evict. A pod with ``preemptionPolicy:
Never`` is not eligible at all. Pure; used by ``scheduler``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, Final

from podscale.runtime.simulated.resources import node_allocatable, pod_requests
from podscale.runtime.simulated.scheduling import (
    NO_NODES_AVAILABLE,
    PodsOnNode,
    filter_node,
    unschedulable_reason,
)

__all__ = ["fit_error_message", "preemption_message"]

JSON = dict[str, Any]
_NOT_HELPFUL: Final = "Preemption is not helpful for scheduling"
_NO_VICTIMS: Final = "No preemption victims found for incoming pod"
_NEVER: Final = "not eligible due to preemptionPolicy=Never."
# NodeResourcesFit's reasons; the other filters' rejections are always unresolvable.
_RESOURCE_REASONS: Final = frozenset({"Too many pods", "Insufficient cpu", "Insufficient memory"})


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def _unresolvable(pod: JSON, node: JSON, reasons: list[str]) -> bool:
    """Upstream's UnschedulableAndUnresolvable: evicting pods from this node cannot help."""
    if not set(reasons) <= _RESOURCE_REASONS:
        return True
    wanted = pod_requests(pod)
    allocatable = node_allocatable(node)
    return ("Insufficient cpu" in reasons and wanted.milli_cpu > allocatable.milli_cpu) or (
        "Insufficient memory" in reasons and wanted.memory > allocatable.memory
    )


def preemption_message(
    pod: JSON, nodes: list[JSON], pods_on_nodes: Mapping[str, PodsOnNode]
) -> str:
    """DefaultPreemption's PostFilter message for ``pod``, which fits none of ``nodes``."""
    if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
        return f"preemption: {_NEVER}"
    counts: Counter[str] = Counter()
    for node in nodes:
        reasons = filter_node(pod, node, pods_on_nodes.get(_name(node), []))
        counts[_NOT_HELPFUL if _unresolvable(pod, node, reasons) else _NO_VICTIMS] += 1
    histogram = ", ".join(sorted(f"{count} {reason}" for reason, count in counts.items()))
    return f"preemption: 0/{len(nodes)} nodes are available: {histogram}."


def fit_error_message(pod: JSON, nodes: list[JSON], pods_on_nodes: Mapping[str, PodsOnNode]) -> str:
    """The FailedScheduling message and PodScheduled condition message for ``pod``.

    With no nodes at all the scheduler fails before filtering, so there is no preemption.
    """
    if not nodes:
        return NO_NODES_AVAILABLE
    filtered = unschedulable_reason(pod, nodes, pods_on_nodes)
    return f"{filtered} {preemption_message(pod, nodes, pods_on_nodes)}."
