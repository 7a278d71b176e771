"""The ScaleInput document: parsing, shorthand pods, and errors that name the field."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from podscale.hpa import decide
from podscale.hpa.scenario import ScaleInputError, parse_scale_input

EXAMPLES = Path(__file__).parents[3] / "examples"


def minimal(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": "podscale.dev/v1alpha1",
        "kind": "ScaleInput",
        "now": "2026-11-22T10:00:00Z",
        "hpa": {
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "maxReplicas": 10,
            },
        },
        "scale": {"spec": {"replicas": 2}, "status": {"replicas": 2, "selector": "app=web"}},
        "pods": [{"name": "web-1", "requests": {"cpu": "100m"}}],
        "metrics": {"resource": {"cpu": {"web-1": "90m"}}},
    }
    doc.update(overrides)
    return doc


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_parses_and_decides(path: Path) -> None:
    scenario = parse_scale_input(yaml.safe_load(path.read_text()))
    decision = decide(
        scenario.hpa,
        scale=scenario.scale,
        pods=scenario.pods,
        metrics=scenario.metrics,
        history=scenario.history,
        now=scenario.now,
        config=scenario.config,
    )
    assert decision.status["conditions"]


def test_shorthand_pod_becomes_a_running_ready_pod() -> None:
    scenario = parse_scale_input(minimal())
    pod = scenario.pods[0]
    assert pod["metadata"]["name"] == "web-1"
    assert pod["status"]["phase"] == "Running"
    assert pod["status"]["conditions"][0]["status"] == "True"
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "100m"}
    assert scenario.now == datetime(2026, 11, 22, 10, tzinfo=UTC)
    assert (
        scenario.metrics.resource_metric("cpu", "default", "app=web", None)[0]["web-1"].value == 90
    )


def test_v1_hpa_is_converted_and_config_is_read() -> None:
    hpa = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "maxReplicas": 5,
            "targetCPUUtilizationPercentage": 60,
        },
    }
    config = {
        "tolerance": 0.2,
        "downscaleStabilizationSeconds": 60,
        "featureGates": "HPAScaleToZero=true",
    }
    scenario = parse_scale_input(minimal(hpa=hpa, config=config))
    assert scenario.hpa["apiVersion"] == "autoscaling/v2"
    assert scenario.hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 60
    assert scenario.config.tolerance == 0.2
    assert scenario.config.downscale_stabilization == timedelta(seconds=60)
    assert "HPAScaleToZero" in scenario.config.feature_gates


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"apiVersion": "v1"}, "apiVersion: Unsupported value: 'v1'"),
        ({"kind": "Pod"}, "kind: Unsupported value: 'Pod'"),
        ({"now": "yesterday"}, 'now: Invalid value: "yesterday": must be an RFC 3339 time'),
        ({"scale": {"spec": {}}}, "scale.spec.replicas: Required value"),
        ({"pods": [{"requests": {}}]}, "pods[0].name: Required value"),
        (
            {"pods": [{"name": "a", "requests": {"cpu": "1x"}}]},
            'pods[0].requests.cpu: Invalid value: "1x"',
        ),
        (
            {"metrics": {"resource": {"cpu": {"a": "fast"}}}},
            'metrics.resource.cpu.a: Invalid value: "fast"',
        ),
        ({"config": {"tolerance": -1}}, "config.tolerance: Invalid value: -1"),
        (
            {"config": {"featureGates": "Nope=true"}},
            "config.featureGates: Invalid value: unrecognized feature gate: Nope",
        ),
        (
            {"history": {"scaleUpEvents": [{"change": 0, "time": "2026-11-22T09:00:00Z"}]}},
            "history.scaleUpEvents[0].change",
        ),
    ],
    ids=[
        "api-version",
        "kind",
        "bad-time",
        "no-replicas",
        "pod-name",
        "pod-quantity",
        "metric-quantity",
        "tolerance",
        "gate",
        "event",
    ],
)
def test_errors_name_the_field(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ScaleInputError) as caught:
        parse_scale_input(minimal(**overrides))
    assert str(caught.value).startswith(message)


def test_not_a_mapping() -> None:
    with pytest.raises(ScaleInputError, match="must be a mapping"):
        parse_scale_input(["not", "a", "document"])
