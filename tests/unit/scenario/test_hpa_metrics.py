"""Each HPA metric read as a value against its target, whatever its type."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.scenario.hpa_metrics import MetricReading, read_metrics, targets_cell

CPU = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
}
CPU_NOW = {
    "type": "Resource",
    "resource": {"name": "cpu", "current": {"averageUtilization": 75, "averageValue": "150m"}},
}
SIDECAR = {
    "type": "ContainerResource",
    "containerResource": {
        "name": "cpu",
        "container": "app",
        "target": {"type": "Utilization", "averageUtilization": 60},
    },
}
SIDECAR_NOW = {
    "type": "ContainerResource",
    "containerResource": {"name": "cpu", "container": "app", "current": {"averageUtilization": 90}},
}
QUEUE = {
    "type": "External",
    "external": {
        "metric": {"name": "queue_messages_ready"},
        "target": {"type": "AverageValue", "averageValue": "30"},
    },
}
QUEUE_NOW = {
    "type": "External",
    "external": {"metric": {"name": "queue_messages_ready"}, "current": {"averageValue": "600"}},
}
HITS = {
    "type": "Object",
    "object": {
        "metric": {"name": "hits"},
        "describedObject": {"kind": "Ingress", "name": "main"},
        "target": {"type": "Value", "value": "2k"},
    },
}
HITS_NOW = {"type": "Object", "object": {"metric": {"name": "hits"}, "current": {"value": "500"}}}
PODS = {
    "type": "Pods",
    "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "500m"}},
}


@pytest.mark.parametrize(
    ("spec", "current", "reading", "cell"),
    [
        (CPU, CPU_NOW, MetricReading("cpu", 75.0, 50.0, "%", True), "cpu: 75%/50%"),
        (
            SIDECAR,
            SIDECAR_NOW,
            MetricReading("cpu (container app)", 90.0, 60.0, "%", True),
            "cpu: 90%/60%",
        ),
        (
            QUEUE,
            QUEUE_NOW,
            MetricReading("queue_messages_ready", 600.0, 30.0, "", True),
            "600/30 (avg)",
        ),
        (HITS, HITS_NOW, MetricReading("hits (Ingress/main)", 500.0, 2000.0, "", False), "500/2k"),
        (PODS, None, MetricReading("rps", None, 0.5, "", True), "<unknown>/500m"),
    ],
    ids=["resource", "container-resource", "external-average", "object-value", "pods-unknown"],
)
def test_read_metrics(
    spec: dict[str, Any], current: dict[str, Any] | None, reading: MetricReading, cell: str
) -> None:
    status = {"currentMetrics": [current] if current else []}
    assert read_metrics({"metrics": [spec]}, status) == (reading,)
    assert targets_cell({"metrics": [spec]}, status) == cell


def test_metrics_pair_by_position_and_unknown_types_are_left_out() -> None:
    spec = {"metrics": [QUEUE, {"type": "Future"}, CPU]}
    status = {"currentMetrics": [QUEUE_NOW, {}, CPU_NOW]}
    labels = [(r.label, r.current) for r in read_metrics(spec, status)]
    assert labels == [("queue_messages_ready", 600.0), ("cpu", 75.0)]


@pytest.mark.parametrize(
    ("reading", "ratio", "shown"),
    [
        (MetricReading("q", 600.0, 30.0, "", True), 20.0, "600"),
        (MetricReading("cpu", 75.0, 50.0, "%", True), 1.5, "75%"),
        (MetricReading("cpu", None, 50.0, "%", True), None, "<unknown>"),
        (MetricReading("q", 3.0, 0.0, "", False), None, "3"),
    ],
    ids=["quantity", "percent", "unknown", "zero-target"],
)
def test_ratio_and_format(reading: MetricReading, ratio: float | None, shown: str) -> None:
    assert reading.ratio == ratio
    assert reading.format_value(reading.current) == shown
