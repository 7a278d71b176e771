"""KEDA's ScaledObject as a replay autoscaler, read as plain JSON: its target defaults to
an apps/v1 Deployment as KEDA's does, ``u`` comes from a ``cpu`` trigger of type
Utilization (no ``spec.metrics``), and it replaces the scenario's HPA with the shipped
ScaledObject CRD brought along."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from podscale.replay.target import (
    AUTOSCALER_KINDS,
    Autoscaler,
    choose_target,
    choose_utilization,
    replace_autoscalers,
    target_utilization,
)
from podscale.scenario.loader import parse_scenario
from podscale.scenario.model import Manifest

from .scenarios import HPA, step_scenario


def scaled_object(target: dict[str, str], *triggers: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": target, "triggers": list(triggers)},
    }


PUSH = {"type": "podscale-push", "metadata": {"metricName": "q", "value": "30"}}
CPU_60 = {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}
CPU_LEGACY_70 = {"type": "cpu", "metadata": {"type": "Utilization", "value": "70"}}
CPU_AVERAGE = {"type": "cpu", "metricType": "AverageValue", "metadata": {"value": "200m"}}
CPU_BAD = {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "lots"}}


def scenario() -> Any:
    return parse_scenario(step_scenario([{"at": "0s", "rate": 10}], "10m"))


def test_a_scaled_object_is_an_autoscaler_kind() -> None:
    assert "ScaledObject" in AUTOSCALER_KINDS


@pytest.mark.parametrize(
    "target",
    [
        {"name": "web"},
        {"kind": "Deployment", "name": "web"},
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
    ],
    ids=["keda-default-kind", "kind-only", "explicit"],
)
def test_its_target_defaults_to_a_deployment(target: dict[str, str]) -> None:
    run = Autoscaler("so", (scaled_object(target, PUSH),))
    assert str(choose_target(scenario(), [run]).target) == "Deployment/default/web"
    # Next to an HPA on the same Deployment: one workload, not two.
    assert choose_target(scenario(), [run, Autoscaler("hpa", (HPA,))]).target.name == "web"


@pytest.mark.parametrize(
    ("triggers", "utilization"),
    [
        ([PUSH], None),
        ([PUSH, CPU_60], 60),
        ([CPU_LEGACY_70], 70),
        ([{**CPU_LEGACY_70, "metricType": "AverageValue"}], 70),
        ([CPU_AVERAGE], None),
        ([CPU_BAD], None),
    ],
    ids=[
        "no-cpu-trigger",
        "cpu-utilization-trigger",
        "legacy-metadata-type",
        "metadata-type-wins-over-metricType",
        "cpu-average-value",
        "unparsable-value",
    ],
)
def test_its_utilization_is_its_cpu_trigger(
    triggers: list[dict[str, Any]], utilization: int | None
) -> None:
    assert target_utilization([scaled_object({"name": "web"}, *triggers)]) == utilization


def test_without_a_cpu_target_runs_compare_at_50_percent() -> None:
    runs = [Autoscaler("so", (scaled_object({"name": "web"}, PUSH),)), Autoscaler("hpa", (HPA,))]
    assert choose_utilization(scenario(), runs, None) == 50


def test_it_replaces_the_scenario_s_autoscalers_and_brings_its_crd() -> None:
    loaded = scenario()
    so = scaled_object({"name": "web"}, PUSH)
    replaced = replace_autoscalers(loaded, Autoscaler("so", (so,), "so.yaml"))
    kinds = [m.object["kind"] for m in replaced]
    assert kinds == ["CustomResourceDefinition", "Deployment", "ScaledObject"]
    assert replaced[0].object["metadata"]["name"] == "scaledobjects.keda.sh"
    # A scenario's own ScaledObject is swapped out for an HPA too.
    own = dataclasses.replace(loaded, manifests=(*loaded.manifests, Manifest("so.yaml", so)))
    swapped = replace_autoscalers(own, Autoscaler("hpa", (HPA,)))
    assert [m.object["kind"] for m in swapped] == ["Deployment", "HorizontalPodAutoscaler"]
