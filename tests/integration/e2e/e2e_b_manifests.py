"""Manifests and scenarios of the ``test_e2e_b_*`` tests (see ``e2e_b_plane``).

Builders for what upstream's HPA e2e tests create: a Deployment of one ``web`` container
with a CPU request (``deployment``), an autoscaling/v2 HPA on it (``hpa``) with the metric
specs of ``cpu_utilization``, ``container_cpu_utilization``, ``external`` and
``pods_metric``, a load that makes CPU usage exact (``cpu_load``: ``r`` requests/s use ``r``
millicores over the ready pods, no noise), and ``scenario``, which wraps them in an inline
``podscale.scenario`` scenario on three 4-CPU nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from podscale.scenario.loader import parse_scenario
from podscale.scenario.model import Scenario

JSON = dict[str, Any]
NAMESPACE: Final = "default"


def deployment(
    name: str,
    replicas: int = 1,
    *,
    cpu_request: str = "200m",
    image: str = "web:1",
    strategy: JSON | None = None,
) -> JSON:
    """A Deployment of one container ``web`` requesting ``cpu_request``, labelled
    ``app=<name>``."""
    spec: JSON = {
        "replicas": replicas,
        "selector": {"matchLabels": {"app": name}},
        "template": {
            "metadata": {"labels": {"app": name}},
            "spec": {
                "containers": [
                    {"name": "web", "image": image, "resources": {"requests": {"cpu": cpu_request}}}
                ]
            },
        },
    }
    if strategy is not None:
        spec["strategy"] = strategy
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }


def hpa(
    name: str,
    target: str,
    metrics: list[JSON],
    *,
    min_replicas: int = 1,
    max_replicas: int = 10,
    behavior: JSON | None = None,
) -> JSON:
    """An autoscaling/v2 HPA on the Deployment ``target``."""
    spec: JSON = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
        "minReplicas": min_replicas,
        "maxReplicas": max_replicas,
        "metrics": metrics,
    }
    if behavior is not None:
        spec["behavior"] = behavior
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }


def cpu_utilization(percent: int) -> JSON:
    return {
        "type": "Resource",
        "resource": {
            "name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": percent},
        },
    }


def container_cpu_utilization(container: str, percent: int) -> JSON:
    return {
        "type": "ContainerResource",
        "containerResource": {
            "name": "cpu",
            "container": container,
            "target": {"type": "Utilization", "averageUtilization": percent},
        },
    }


def external(metric: str, *, average_value: str | None = None, value: str | None = None) -> JSON:
    """An External metric with an AverageValue target (replicas = value / average) or a
    Value target (replicas scale with value / target)."""
    target: JSON = (
        {"type": "AverageValue", "averageValue": average_value}
        if average_value is not None
        else {"type": "Value", "value": value}
    )
    return {"type": "External", "external": {"metric": {"name": metric}, "target": target}}


def pods_metric(metric: str, average_value: str) -> JSON:
    return {
        "type": "Pods",
        "pods": {
            "metric": {"name": metric},
            "target": {"type": "AverageValue", "averageValue": average_value},
        },
    }


def no_downscale_window() -> JSON:
    """``behavior`` with a zero scale-down stabilization window, as upstream's external
    metrics e2e uses "for faster scale-down"."""
    return {"scaleDown": {"stabilizationWindowSeconds": 0}}


def cpu_load(name: str, rate: float, *, at: Sequence[tuple[str, float]] = ()) -> JSON:
    """A workload entry: ``rate`` requests/s on Deployment ``name`` (then each ``(offset,
    rate)`` of ``at``), costing 1 millicore per request/s in container ``web`` and no noise,
    so utilization is exact: ``rate`` req/s is ``rate`` millicores spread over the ready
    pods."""
    steps = [{"at": "0s", "rate": rate}, *({"at": when, "rate": r} for when, r in at)]
    return {
        "target": {"kind": "Deployment", "name": name},
        "load": {"type": "step", "steps": steps},
        "containers": [{"name": "web", "perRequest": {"cpu": "1m"}}],
        "noise": {"stddev": 0},
    }


def scenario(
    name: str,
    manifests: list[JSON],
    workloads: list[JSON] | None = None,
    *,
    events: list[JSON] | None = None,
    readiness_delay: str = "3s",
    seed: int = 7,
    feature_gates: dict[str, bool] | None = None,
) -> Scenario:
    """An inline scenario on three 4-CPU nodes; the duration is only an upper bound (the
    test body decides how long it runs). Every Deployment among the manifests is one of its
    workloads, idle unless ``workloads`` loads it, so every snapshot shows it."""
    loaded = {w["target"]["name"] for w in workloads or []}
    idle = [
        cpu_load(m["metadata"]["name"], 0)
        for m in manifests
        if m["kind"] == "Deployment" and m["metadata"]["name"] not in loaded
    ]
    return parse_scenario(
        {
            "apiVersion": "podscale.dev/v1alpha1",
            "kind": "Scenario",
            "metadata": {"name": name},
            "spec": {
                "seed": seed,
                "duration": "1h",
                "nodes": {"count": 3, "capacity": {"cpu": "4", "memory": "8Gi"}},
                "pods": {"startupDelay": "2s", "readinessDelay": readiness_delay},
                "manifests": manifests,
                "workloads": [*(workloads or []), *idle],
                "events": events or [],
                **({"featureGates": feature_gates} if feature_gates is not None else {}),
            },
        }
    )
