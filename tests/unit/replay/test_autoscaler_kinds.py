"""Any autoscaler kind in a replay, read as plain JSON: the target from any object's
``spec.scaleTargetRef`` (a CronHPA's pointing at its HPA is not a workload), ``u`` from the
shared ``spec.metrics``, and every kind of the scenario's own autoscalers swapped out."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from podscale.replay.from_trace import TraceWorkload, scenario_document
from podscale.replay.target import (
    Autoscaler,
    choose_target,
    choose_utilization,
    replace_autoscalers,
    target_utilization,
)
from podscale.scenario.loader import parse_scenario
from podscale.scenario.model import Manifest

from .scenarios import HPA, step_scenario

TRACE = Path(__file__).resolve().parents[3] / "examples/traces/alibaba-genai-2026-qps.csv"
CPU_70 = [
    {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}},
    }
]
REF = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
PHPA: dict[str, Any] = {
    "apiVersion": "autoscaling.podscale.dev/v1alpha1",
    "kind": "PredictiveHorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {"scaleTargetRef": REF, "maxReplicas": 20, "metrics": CPU_70, "prediction": {}},
}
EHPA: dict[str, Any] = {
    "apiVersion": "autoscaling.crane.io/v1alpha1",
    "kind": "EffectiveHorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {
        "scaleTargetRef": REF,
        "minReplicas": 1,
        "maxReplicas": 20,
        "scaleStrategy": "Auto",
        "metrics": CPU_70,
        "prediction": {
            "predictionWindowSeconds": 3600,
            "predictionAlgorithm": {"algorithmType": "dsp"},
        },
    },
}
CRONHPA: dict[str, Any] = {
    "apiVersion": "autoscaling.alibabacloud.com/v1beta1",
    "kind": "CronHorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {
        "scaleTargetRef": {
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "name": "web",
        },
        "jobs": [{"name": "up", "schedule": "0 0 8 * * *", "targetSize": 5}],
    },
}


def scenario() -> Any:
    return parse_scenario(step_scenario([{"at": "0s", "rate": 10}], "10m"))


@pytest.mark.parametrize(
    ("objects", "utilization"),
    [
        ([PHPA], 70),
        ([EHPA], 70),
        ([CRONHPA, HPA], 50),
        ([{**PHPA, "spec": {"scaleTargetRef": REF, "prediction": {}}}], 80),
        ([CRONHPA], None),
    ],
    ids=["phpa", "ehpa", "cronhpa-then-its-hpa", "phpa-without-metrics", "cronhpa-alone"],
)
def test_the_target_and_utilization_of_any_kind(
    objects: list[dict[str, Any]], utilization: int | None
) -> None:
    loaded = scenario()
    run = Autoscaler("run", tuple(objects))
    if any(o.get("kind") != "CronHorizontalPodAutoscaler" for o in objects):
        assert str(choose_target(loaded, [run]).target) == "Deployment/default/web"
    assert target_utilization(objects) == utilization


def test_autoscalers_of_different_kinds_on_one_workload_compare_at_their_target() -> None:
    hpa = copy.deepcopy(HPA)
    hpa["spec"]["metrics"] = CPU_70
    runs = [Autoscaler("hpa", (hpa,)), Autoscaler("phpa", (PHPA,)), Autoscaler("ehpa", (EHPA,))]
    assert choose_utilization(scenario(), runs, None) == 70


def test_autoscalers_on_different_workloads_are_refused() -> None:
    other = {**PHPA, "spec": {**PHPA["spec"], "scaleTargetRef": {**REF, "name": "api"}}}
    with pytest.raises(ValueError, match="must scale one workload"):
        choose_target(scenario(), [Autoscaler("a", (HPA,)), Autoscaler("b", (other,))])


def test_every_autoscaler_kind_of_the_scenario_is_replaced() -> None:
    loaded = scenario()
    own = (*loaded.manifests, Manifest("cron.yaml", CRONHPA), Manifest("p.yaml", PHPA))
    with_own = dataclasses.replace(loaded, manifests=own)
    replaced = replace_autoscalers(with_own, Autoscaler("ehpa", (EHPA,), "ehpa.yaml"))
    kinds = [m.object["kind"] for m in replaced if m.object["kind"] != "CustomResourceDefinition"]
    assert kinds == ["Deployment", "EffectiveHorizontalPodAutoscaler"]


def test_a_shipped_crd_comes_along_when_the_scenario_lacks_it() -> None:
    # The CronHPA's CRD ships with podscale: a trace scenario (no spec.crds) gets it.
    loaded = parse_scenario(scenario_document(TraceWorkload(TRACE, "10m", "100m")))
    replaced = replace_autoscalers(loaded, Autoscaler("cron", (HPA, CRONHPA)))
    crds = [m for m in replaced if m.object["kind"] == "CustomResourceDefinition"]
    assert [c.object["spec"]["names"]["kind"] for c in crds] == ["CronHorizontalPodAutoscaler"]
    # Defined already (or an HPA alone): nothing added.
    again = dataclasses.replace(loaded, manifests=replaced)
    assert replace_autoscalers(again, Autoscaler("cron", (HPA, CRONHPA))).count(crds[0]) == 1
    hpa_only = replace_autoscalers(loaded, Autoscaler("hpa", (HPA,)))
    assert all(m.object["kind"] != "CustomResourceDefinition" for m in hpa_only)
