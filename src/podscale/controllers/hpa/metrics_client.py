"""The HPA controller's ``MetricsClient``: the engine's four metric questions, asked async.

The engine (``podscale.hpa``) is pure and asks a synchronous ``MetricsSource``. The
controller therefore asks a ``MetricsClient`` first (``prefetch``), one call per metric
the decision needs, and hands the engine the recorded answers. The questions and their
arguments are exactly ``MetricsSource``'s; answers are milli-units; failures raise
``MetricsUnavailable`` with upstream's client error texts (``metrics_values``).

Implementations: ``metrics_rest.RestMetricsClient`` (the metrics APIs over HTTP, as
kube-controller-manager reads them) and ``metrics_inprocess.InProcessMetricsClient`` (the
same answers straight from a ``ServerState``'s providers).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from podscale.hpa.types import PodMetric

__all__ = ["MetricsClient"]


class MetricsClient(Protocol):
    """Upstream's ``MetricsClient`` (pkg/controller/podautoscaler/metrics/interfaces.go)."""

    async def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        """Per-pod usage of ``resource`` for the pods ``selector`` matches (metrics.k8s.io);
        ``container`` restricts it to one container."""
        ...

    async def pods_metric(
        self,
        metric_name: str,
        namespace: str,
        selector: str,
        metric_selector: dict[str, Any] | None,
    ) -> tuple[dict[str, PodMetric], datetime]:
        """A custom metric of every pod ``selector`` matches (custom.metrics.k8s.io)."""
        ...

    async def object_metric(
        self,
        metric_name: str,
        namespace: str,
        described_object: dict[str, Any],
        metric_selector: dict[str, Any] | None,
    ) -> tuple[int, datetime]:
        """A custom metric of one object (``describedObject``: apiVersion, kind, name)."""
        ...

    async def external_metric(
        self, metric_name: str, namespace: str, metric_selector: dict[str, Any] | None
    ) -> tuple[list[int], datetime]:
        """Every series of an external metric matching ``metric_selector``."""
        ...
