"""Builders for the objects the engine reads: HPAs, Scales and Pods as Kubernetes JSON.

Public test helpers (``podscale.testing``): they produce the same JSON the API server
stores, with only what a test cares about spelled out, so a test reads as its scenario.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from podscale.hpa.conditions import format_time

__all__ = ["cpu_metric", "make_hpa", "make_pod", "make_scale"]


def cpu_metric(utilization: int = 50) -> dict[str, Any]:
    """A Resource cpu metric with an averageUtilization target."""
    return {
        "type": "Resource",
        "resource": {
            "name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": utilization},
        },
    }


def make_hpa(
    name: str = "web",
    *,
    namespace: str = "default",
    min_replicas: int | None = 1,
    max_replicas: int = 10,
    metrics: Sequence[dict[str, Any]] | None = None,
    behavior: dict[str, Any] | None = None,
    status: dict[str, Any] | None = None,
    target_kind: str = "Deployment",
) -> dict[str, Any]:
    """An autoscaling/v2 HPA targeting ``<target_kind>/<name>``."""
    spec: dict[str, Any] = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": target_kind, "name": name},
        "maxReplicas": max_replicas,
        "metrics": list(metrics) if metrics is not None else [cpu_metric()],
    }
    if min_replicas is not None:
        spec["minReplicas"] = min_replicas
    if behavior is not None:
        spec["behavior"] = behavior
    hpa: dict[str, Any] = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }
    if status is not None:
        hpa["status"] = status
    return hpa


def make_scale(
    replicas: int, *, selector: str = "app=web", status_replicas: int | None = None
) -> dict[str, Any]:
    """An autoscaling/v1 Scale as the ``scale`` subresource returns it."""
    return {
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "spec": {"replicas": replicas},
        "status": {
            "replicas": replicas if status_replicas is None else status_replicas,
            "selector": selector,
        },
    }


def make_pod(
    name: str,
    *,
    now: datetime,
    requests: Mapping[str, str] | None = None,
    ready: bool = True,
    phase: str = "Running",
    started_ago: timedelta = timedelta(minutes=10),
    ready_since_ago: timedelta | None = None,
    labels: Mapping[str, str] | None = None,
    deleted: bool = False,
    containers: Sequence[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A pod of one container ``app`` requesting ``requests`` (default cpu 100m).

    ``started_ago``/``ready_since_ago`` place its start and its last readiness transition
    relative to ``now`` (the transition defaults to the start).
    """
    started = now - started_ago
    since = now - (ready_since_ago if ready_since_ago is not None else started_ago)
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": "default",
        "labels": dict(labels or {"app": "web"}),
    }
    if deleted:
        metadata["deletionTimestamp"] = format_time(now)
    if containers is None:
        containers = [{"name": "app", "resources": {"requests": dict(requests or {"cpu": "100m"})}}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": list(containers)},
        "status": {
            "phase": phase,
            "startTime": format_time(started),
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True" if ready else "False",
                    "lastTransitionTime": format_time(since),
                }
            ],
        },
    }
