"""Kapacity's IntelligentHorizontalPodAutoscaler as a replay autoscaler, read as plain JSON:
``u`` comes from its first Dynamic portrait provider's cpu metric (it has no
``spec.metrics``), and swapping it in brings both shipped CRDs its controller needs (the
IHPA's and the ReplicaProfile's it writes)."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.replay.target import (
    AUTOSCALER_KINDS,
    Autoscaler,
    choose_target,
    replace_autoscalers,
    target_utilization,
)
from podscale.scenario.loader import parse_scenario

from .scenarios import step_scenario

CPU_60 = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}},
}
PODS_QPS = {
    "type": "Pods",
    "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "5"}},
}


def ihpa(*providers: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling.kapacitystack.io/v1alpha1",
        "kind": "IntelligentHorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 10,
            "portraitProviders": list(providers),
        },
    }


def dynamic(*metrics: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "Dynamic",
        "priority": 0,
        "dynamic": {
            "portraitType": "Reactive",
            "metrics": list(metrics),
            "algorithm": {"type": "KubeHPA"},
        },
    }


STATIC = {"type": "Static", "priority": 1, "static": {"replicas": 3}}


def test_an_ihpa_is_an_autoscaler_kind() -> None:
    assert "IntelligentHorizontalPodAutoscaler" in AUTOSCALER_KINDS


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (ihpa(STATIC, dynamic(CPU_60)), 60),
        (ihpa(dynamic(PODS_QPS, CPU_60)), 60),
        (ihpa(dynamic(PODS_QPS)), None),
        (ihpa(STATIC), None),
    ],
    ids=["reactive-cpu-after-static", "cpu-second-metric", "no-cpu-metric", "static-only"],
)
def test_its_utilization_is_its_dynamic_providers_cpu_target(
    obj: dict[str, Any], expected: int | None
) -> None:
    assert target_utilization([obj]) == expected


def test_swapping_it_in_brings_the_ihpa_and_replica_profile_crds() -> None:
    scenario = parse_scenario(step_scenario([{"at": "0s", "rate": 10}], "10m"))
    autoscaler = Autoscaler("ihpa", (ihpa(STATIC),), "ihpa.yaml")
    assert choose_target(scenario, [autoscaler]).target.name == "web"
    names = {
        m.object["metadata"]["name"]
        for m in replace_autoscalers(scenario, autoscaler)
        if m.object.get("kind") == "CustomResourceDefinition"
    }
    assert names == {
        "intelligenthorizontalpodautoscalers.autoscaling.kapacitystack.io",
        "replicaprofiles.autoscaling.kapacitystack.io",
    }
