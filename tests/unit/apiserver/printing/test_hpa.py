"""HPA rows: the TARGETS cell of every metric type, truncation, and autoscaling/v1 objects."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.apiserver.printing.hpa import format_hpa_metrics, print_hpa

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)


def resource(name: str, **target: Any) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": name, "target": target}}


def resource_status(name: str, **current: Any) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": name, "current": current}}


def container_resource(name: str, **target: Any) -> dict[str, Any]:
    spec = {"name": name, "container": "app", "target": target}
    return {"type": "ContainerResource", "containerResource": spec}


def container_status(name: str, **current: Any) -> dict[str, Any]:
    status = {"name": name, "container": "app", "current": current}
    return {"type": "ContainerResource", "containerResource": status}


def pods_metric(average: str) -> dict[str, Any]:
    target = {"type": "AverageValue", "averageValue": average}
    return {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": target}}


def pods_status(average: str) -> dict[str, Any]:
    return {
        "type": "Pods",
        "pods": {"metric": {"name": "qps"}, "current": {"averageValue": average}},
    }


def object_metric(**target: Any) -> dict[str, Any]:
    ref = {"kind": "Service", "name": "front", "apiVersion": "v1"}
    source = {"describedObject": ref, "metric": {"name": "hits"}, "target": target}
    return {"type": "Object", "object": source}


def object_status(**current: Any) -> dict[str, Any]:
    ref = {"kind": "Service", "name": "front", "apiVersion": "v1"}
    status = {"describedObject": ref, "metric": {"name": "hits"}, "current": current}
    return {"type": "Object", "object": status}


def external(**target: Any) -> dict[str, Any]:
    return {"type": "External", "external": {"metric": {"name": "queue"}, "target": target}}


def external_status(**current: Any) -> dict[str, Any]:
    return {"type": "External", "external": {"metric": {"name": "queue"}, "current": current}}


CPU_50 = resource("cpu", type="Utilization", averageUtilization=50)

TARGETS = [
    ("no-metrics", [], [], "<none>"),
    ("cpu-utilization", [CPU_50], [resource_status("cpu", averageUtilization=75)], "cpu: 75%/50%"),
    ("cpu-no-status-yet", [CPU_50], [], "cpu: <unknown>/50%"),
    (
        "cpu-status-without-utilization",
        [CPU_50],
        [resource_status("cpu", averageValue="250m")],
        "cpu: <unknown>/50%",
    ),
    (
        "utilization-target-missing",
        [resource("cpu", type="Utilization")],
        [],
        "cpu: <unknown>/<auto>",
    ),
    (
        "memory-average-value",
        [resource("memory", type="AverageValue", averageValue="200Mi")],
        [resource_status("memory", averageValue="100Mi")],
        "memory: 100Mi/200Mi",
    ),
    (
        "memory-average-value-canonical",
        [resource("memory", type="AverageValue", averageValue="0.5Gi")],
        [resource_status("memory", averageValue="1000")],
        "memory: 1k/512Mi",
    ),
    (
        "memory-average-value-unknown",
        [resource("memory", type="AverageValue", averageValue="200Mi")],
        [],
        "memory: <unknown>/200Mi",
    ),
    (
        "memory-status-without-value-is-nil",
        [resource("memory", type="AverageValue", averageValue="200Mi")],
        [resource_status("memory", averageUtilization=40)],
        "memory: <nil>/200Mi",
    ),
    (
        "container-resource-utilization",
        [container_resource("cpu", type="Utilization", averageUtilization=70)],
        [container_status("cpu", averageUtilization=60)],
        "cpu: 60%/70%",
    ),
    (
        "container-resource-average-value",
        [container_resource("memory", type="AverageValue", averageValue="1Gi")],
        [container_status("memory", averageValue="300Mi")],
        "memory: 300Mi/1Gi",
    ),
    ("pods-metric", [pods_metric("1")], [pods_status("500m")], "500m/1"),
    ("pods-metric-unknown", [pods_metric("10")], [], "<unknown>/10"),
    ("object-value", [object_metric(type="Value", value="10")], [object_status(value="2")], "2/10"),
    (
        "object-average",
        [object_metric(type="AverageValue", averageValue="1")],
        [object_status(averageValue="1500m")],
        "1500m/1 (avg)",
    ),
    (
        "object-average-unknown",
        [object_metric(type="AverageValue", averageValue="1")],
        [object_status(value="3")],
        "<unknown>/1 (avg)",
    ),
    ("external-value", [external(type="Value", value="10")], [external_status(value="3")], "3/10"),
    ("external-value-unknown", [external(type="Value", value="10")], [], "<unknown>/10"),
    (
        "external-average",
        [external(type="AverageValue", averageValue="30")],
        [external_status(averageValue="12")],
        "12/30 (avg)",
    ),
    (
        "external-average-unknown",
        [external(type="AverageValue", averageValue="30")],
        [],
        "<unknown>/30 (avg)",
    ),
    ("unknown-type", [{"type": "Custom"}], [], "<unknown type>"),
    (
        "paired-by-position-not-name",
        [CPU_50, resource("memory", type="AverageValue", averageValue="1Gi")],
        [resource_status("memory", averageValue="600Mi")],
        "cpu: <unknown>/50%, memory: <unknown>/1Gi",
    ),
    (
        "two-metrics-no-truncation",
        [CPU_50, external(type="Value", value="10")],
        [resource_status("cpu", averageUtilization=20), external_status(value="4")],
        "cpu: 20%/50%, 4/10",
    ),
    (
        "three-metrics-truncated",
        [CPU_50, resource("memory", type="AverageValue", averageValue="1Gi"), pods_metric("5")],
        [],
        "cpu: <unknown>/50%, memory: <unknown>/1Gi + 1 more...",
    ),
    (
        "five-metrics-truncated",
        [CPU_50, pods_metric("1"), pods_metric("2"), pods_metric("3"), pods_metric("4")],
        [resource_status("cpu", averageUtilization=99)],
        "cpu: 99%/50%, <unknown>/1 + 3 more...",
    ),
]


@pytest.mark.parametrize(
    ("specs", "statuses", "expected"),
    [case[1:] for case in TARGETS],
    ids=[case[0] for case in TARGETS],
)
def test_targets_cell(
    specs: list[dict[str, Any]], statuses: list[dict[str, Any]], expected: str
) -> None:
    assert format_hpa_metrics(specs, statuses) == expected


def hpa_v2(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "creationTimestamp": "2026-11-22T11:54:58Z",
        },
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "maxReplicas": 10,
            **spec,
        },
        "status": {
            "currentReplicas": 3,
            "desiredReplicas": 3,
            "currentMetrics": [resource_status("cpu", averageUtilization=75)],
        },
    }


def hpa_v1(status: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "creationTimestamp": "2026-11-22T11:54:58Z"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "frontend"},
            "maxReplicas": 4,
            **spec,
        },
        "status": {"currentReplicas": 2, "desiredReplicas": 2, **(status or {})},
    }


ROWS = [
    (
        "v2",
        hpa_v2(minReplicas=1, metrics=[CPU_50]),
        ["web", "Deployment/web", "cpu: 75%/50%", "1", 10, 3, "5m2s"],
    ),
    (
        "v2-min-unset",
        hpa_v2(metrics=[CPU_50]),
        ["web", "Deployment/web", "cpu: 75%/50%", "<unset>", 10, 3, "5m2s"],
    ),
    (
        "v2-scale-to-zero",
        hpa_v2(minReplicas=0, metrics=[]),
        ["web", "Deployment/web", "<none>", "0", 10, 3, "5m2s"],
    ),
    (
        "v1-cpu",
        hpa_v1(
            minReplicas=1,
            targetCPUUtilizationPercentage=50,
            status={"currentCPUUtilizationPercentage": 75},
        ),
        ["web", "ReplicaSet/frontend", "cpu: 75%/50%", "1", 4, 2, "5m2s"],
    ),
    (
        "v1-no-current",
        hpa_v1(minReplicas=2, targetCPUUtilizationPercentage=60),
        ["web", "ReplicaSet/frontend", "cpu: <unknown>/60%", "2", 4, 2, "5m2s"],
    ),
    (
        "v1-implicit-80",
        hpa_v1(),
        ["web", "ReplicaSet/frontend", "cpu: <unknown>/80%", "<unset>", 4, 2, "5m2s"],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [case[1:] for case in ROWS], ids=[case[0] for case in ROWS]
)
def test_hpa_row(obj: dict[str, Any], expected: list[Any]) -> None:
    assert print_hpa(obj, NOW) == {"cells": expected}


def test_v1_annotation_metrics_are_printed() -> None:
    """Extra v1 metrics ride in an annotation; upstream prints them from its internal type."""
    obj = hpa_v1(targetCPUUtilizationPercentage=50)
    obj["metadata"]["annotations"] = {
        "autoscaling.alpha.kubernetes.io/metrics": (
            '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]'
        )
    }
    assert print_hpa(obj, NOW)["cells"][2] == "<unknown>/10, cpu: <unknown>/50%"


def test_printing_a_v1_object_does_not_modify_it() -> None:
    obj = hpa_v1(targetCPUUtilizationPercentage=50)
    before = repr(obj)
    print_hpa(obj, NOW)
    assert repr(obj) == before
