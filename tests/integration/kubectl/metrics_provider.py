"""A test ``MetricsProvider`` that reports fixed usage for the pods and nodes in a store.

``podscale.apiserver.state.MetricsProvider`` is the seam metrics-server
(``podscale.metrics.server``) fills; ``test_top`` plugs this one into ``create_app`` to drive real
``kubectl top``. Like metrics-server, it reports only what it has measured: a stored pod or node
without a usage entry has no metrics, and usage for an object that is not stored is never reported.
Metadata (name, namespace, labels, creationTimestamp) comes from the stored object, so the API
server's ``labelSelector`` filtering sees the pod's real labels. Shapes follow kubectl-wire.md §5.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from podscale.store.interface import Store

__all__ = ["ContainerUsage", "FixedUsageProvider", "Usage"]

JSON = dict[str, Any]
WINDOW = "30s"


@dataclass(frozen=True)
class Usage:
    """A ResourceList of quantities as metrics-server renders them (``"250m"``, ``"64Mi"``)."""

    cpu: str
    memory: str

    def as_resource_list(self) -> dict[str, str]:
        return {"cpu": self.cpu, "memory": self.memory}


# Per pod, its containers' usage in container order: ((container name, usage), ...).
ContainerUsage = tuple[tuple[str, Usage], ...]


@dataclass(frozen=True)
class FixedUsageProvider:
    """``pod_usage`` is keyed by (namespace, name), ``node_usage`` by node name."""

    store: Store
    timestamp: str
    pod_usage: Mapping[tuple[str, str], ContainerUsage] = field(default_factory=dict)
    node_usage: Mapping[str, Usage] = field(default_factory=dict)

    def pod_metrics(self, namespace: str | None) -> list[JSON]:
        reported = []
        for pod in self.store.list("pods", namespace).items:
            meta = pod["metadata"]
            containers = self.pod_usage.get((meta["namespace"], meta["name"]))
            if containers is None:
                continue
            reported.append(
                {
                    "metadata": _metrics_metadata(meta),
                    "timestamp": self.timestamp,
                    "window": WINDOW,
                    "containers": [
                        {"name": name, "usage": usage.as_resource_list()}
                        for name, usage in containers
                    ],
                }
            )
        return reported

    def node_metrics(self) -> list[JSON]:
        reported = []
        for node in self.store.list("nodes").items:
            usage = self.node_usage.get(node["metadata"]["name"])
            if usage is None:
                continue
            reported.append(
                {
                    "metadata": _metrics_metadata(node["metadata"]),
                    "timestamp": self.timestamp,
                    "window": WINDOW,
                    "usage": usage.as_resource_list(),
                }
            )
        return reported


def _metrics_metadata(meta: JSON) -> JSON:
    """The object's identity and labels only: metrics objects carry no uid or versions."""
    kept = {key: meta[key] for key in ("name", "namespace", "labels") if meta.get(key)}
    kept["creationTimestamp"] = meta["creationTimestamp"]
    return kept
