"""The scheduler's view of which pods sit on which node, including pods it has just bound.

kube-scheduler's cache in miniature. The pod informer tells where pods are bound, but only
after the binding has round-tripped through a watch; a scheduler that waited for that would
place the next pod against stale node usage. So a pod is *assumed* on its node as soon as the
scheduler decides (before the Binding is posted) and the assumption is dropped when the
informer shows the pod bound, when the pod goes away, or when the binding fails
(``forget``). Per node it keeps running totals (``simulated.resources.NodeUsage``, upstream's
``NodeInfo``), so a decision costs per node, not per pod. Used by ``scheduler``; pure
bookkeeping, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podscale.client.cache import object_key
from podscale.runtime.simulated.cluster_api import node_name_of
from podscale.runtime.simulated.resources import NodeUsage

__all__ = ["AssignedPods"]

JSON = dict[str, Any]


class AssignedPods:
    """Pods per node, keyed ``namespace/name``; assumed pods count until confirmed."""

    def __init__(self) -> None:
        self._usage: dict[str, NodeUsage] = {}
        self._placed: dict[str, tuple[str, JSON]] = {}  # key -> (node, pod as counted)
        self._assumed: set[str] = set()

    def is_assumed(self, key: str) -> bool:
        return key in self._assumed

    def assume(self, pod: Mapping[str, Any], node_name: str) -> JSON:
        """Count ``pod`` on ``node_name`` now; returns the bound copy that is counted."""
        bound = {**pod, "spec": {**(pod.get("spec") or {}), "nodeName": node_name}}
        key = object_key(bound)
        self._place(key, bound, node_name)
        self._assumed.add(key)
        return bound

    def forget(self, key: str) -> None:
        """Drop an assumption whose binding failed (a confirmed pod stays)."""
        if key in self._assumed:
            self._assumed.discard(key)
            self._unplace(key)

    def observe(self, pod: JSON) -> None:
        """An informer add or update. An unbound version (an event older than our binding)
        leaves an assumption alone: a pod never becomes unbound again."""
        node_name = node_name_of(pod)
        if not node_name:
            return
        key = object_key(pod)
        self._assumed.discard(key)
        self._place(key, pod, node_name)

    def remove(self, pod: Mapping[str, Any]) -> bool:
        """An informer delete; True when the pod had been counted on a node."""
        key = object_key(pod)
        self._assumed.discard(key)
        return self._unplace(key)

    def by_node(self) -> dict[str, NodeUsage]:
        """Node name -> the usage counted there (for ``scheduling.choose_node``)."""
        return dict(self._usage)

    def _place(self, key: str, pod: JSON, node_name: str) -> None:
        self._unplace(key)
        self._usage[node_name] = self._usage.get(node_name, NodeUsage()).with_pod(pod)
        self._placed[key] = (node_name, pod)

    def _unplace(self, key: str) -> bool:
        placed = self._placed.pop(key, None)
        if placed is None:
            return False
        node_name, pod = placed
        # A terminal pod counted nothing, so its node may have no entry left to adjust.
        usage = self._usage.get(node_name, NodeUsage()).without_pod(pod)
        if usage == NodeUsage():
            self._usage.pop(node_name, None)
        else:
            self._usage[node_name] = usage
        return True
