"""A scenario's target may be any kind with a scale subresource: a built-in workload kind, or a
namespaced kind a CRD of the scenario defines with ``subresources.scale``. Anything else is
refused on load with a message saying why; the WebApp example runs with its load declared
as a workload, and its snapshots show the load, replicas and ready pods of the WebApp (read
through its Scale), as ``podscale demo`` prints them."""

from __future__ import annotations

import copy
import dataclasses
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from podscale.controllers.webapp.kind import CRD_NAME, definition
from podscale.demo.driver import DemoRecorder
from podscale.scenario.loader import ScenarioError, load_scenario, parse_scenario
from podscale.scenario.model import WorkloadTarget
from podscale.scenario.play import run_scenario

ROOT = Path(__file__).parents[3]
EXAMPLE = ROOT / "examples" / "webapp-operator" / "scenario.yaml"
API_VERSION = "examples.podscale.dev/v1alpha1"
WEB: dict[str, Any] = {
    "apiVersion": API_VERSION,
    "kind": "WebApp",
    "metadata": {"name": "web"},
    "spec": {"image": "nginx", "replicas": 1},
}
LOAD: dict[str, Any] = {"type": "constant", "rate": 5}
WEBAPP_TARGET = WorkloadTarget("WebApp", "web", "default", API_VERSION)


def without_scale() -> dict[str, Any]:
    crd = definition()
    for version in crd["spec"]["versions"]:
        del version["subresources"]["scale"]
    return crd


def cluster_scoped() -> dict[str, Any]:
    crd = definition()
    crd["spec"]["scope"] = "Cluster"
    return crd


def in_other_group() -> dict[str, Any]:
    crd = copy.deepcopy(definition())
    crd["metadata"]["name"] = "webapps.other.example.com"
    crd["spec"]["group"] = "other.example.com"
    return crd


def scenario(manifests: list[Any], target: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "podscale.dev/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "custom-target"},
        "spec": {
            "duration": "5m",
            "manifests": manifests,
            "workloads": [{"target": target, "load": LOAD}],
            **spec,
        },
    }


@pytest.mark.parametrize(
    ("manifests", "target"),
    [
        ([WEB], {"kind": "WebApp", "name": "web"}),
        ([WEB], {"apiVersion": API_VERSION, "kind": "WebApp", "name": "web"}),
        ([definition(), WEB], {"kind": "WebApp", "name": "web"}),
    ],
    ids=["shipped-crd-kind-only", "shipped-crd-api-version", "crd-manifest"],
)
def test_a_scalable_custom_kind_is_a_target(
    manifests: list[Any], target: dict[str, Any], tmp_path: Path
) -> None:
    spec: dict[str, Any] = {} if len(manifests) > 1 else {"crds": [CRD_NAME]}
    loaded = parse_scenario(scenario(manifests, target, **spec), base_dir=tmp_path)
    assert loaded.workloads[0].target == WEBAPP_TARGET
    assert not loaded.workloads[0].target.built_in


def test_a_custom_kind_is_a_scale_and_crash_target(tmp_path: Path) -> None:
    document = scenario([WEB], {"kind": "WebApp", "name": "web"}, crds=[CRD_NAME])
    document["spec"]["events"] = [
        {"at": "1m", "type": "scale", "target": {"kind": "WebApp", "name": "web"}, "replicas": 3},
        {"at": "2m", "type": "crash", "target": {"kind": "WebApp", "name": "web"}},
    ]
    loaded = parse_scenario(document, base_dir=tmp_path)
    assert [e.target for e in loaded.events] == [WEBAPP_TARGET, WEBAPP_TARGET]


NO_SCALE = (
    'spec.workloads[0].target.kind: Invalid value: "WebApp": the CustomResourceDefinition '
    "webapps.examples.podscale.dev serves no scale subresource for "
    "examples.podscale.dev/v1alpha1: a target needs one (spec.versions[*].subresources.scale), "
    "as an HPA's scaleTargetRef does"
)
CLUSTER_SCOPED = (
    'spec.workloads[0].target.kind: Invalid value: "WebApp": the CustomResourceDefinition '
    "webapps.examples.podscale.dev is cluster-scoped: a target must be namespaced, as an "
    "HPA's scaleTargetRef is"
)


@pytest.mark.parametrize(
    ("manifests", "target", "error"),
    [
        ([without_scale(), WEB], {"kind": "WebApp", "name": "web"}, NO_SCALE),
        (
            [without_scale(), WEB],
            {"apiVersion": API_VERSION, "kind": "WebApp", "name": "web"},
            NO_SCALE,
        ),
        ([cluster_scoped(), WEB], {"kind": "WebApp", "name": "web"}, CLUSTER_SCOPED),
        (
            [definition(), WEB],
            {"kind": "Widget", "name": "web"},
            'spec.workloads[0].target.kind: Unsupported value: "Widget": supported values: '
            '"Deployment", "ReplicaSet", "StatefulSet", "WebApp"',
        ),
        (
            [definition(), WEB],
            {"apiVersion": "examples.podscale.dev/v1", "kind": "WebApp", "name": "web"},
            'spec.workloads[0].target.apiVersion: Unsupported value: "examples.podscale.dev/v1":'
            ' supported values: "examples.podscale.dev/v1alpha1"',
        ),
        (
            [definition(), WEB],
            {"apiVersion": API_VERSION, "kind": "Deployment", "name": "web"},
            "spec.workloads[0].target.apiVersion: Unsupported value: "
            '"examples.podscale.dev/v1alpha1": supported values: "apps/v1"',
        ),
        (
            [definition(), in_other_group(), WEB],
            {"kind": "WebApp", "name": "web"},
            "spec.workloads[0].target.apiVersion: Required value: kind WebApp is defined in "
            "several groups (examples.podscale.dev, other.example.com): say which",
        ),
        (
            [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}}],
            {"apiVersion": "v1", "kind": "Pod", "name": "web"},
            'spec.workloads[0].target.kind: Unsupported value: "Pod": supported values: '
            '"Deployment", "ReplicaSet", "StatefulSet"',
        ),
        (
            [definition()],
            {"kind": "WebApp", "name": "web"},
            'spec.workloads[0].target.name: Not found: "web"',
        ),
    ],
    ids=[
        "crd-without-scale",
        "crd-without-scale-api-version",
        "cluster-scoped",
        "undefined-kind",
        "unserved-version",
        "built-in-kind-in-custom-group",
        "ambiguous-group",
        "built-in-without-scale",
        "custom-target-not-in-manifests",
    ],
)
def test_a_target_without_a_scale_subresource_is_refused(
    manifests: list[Any], target: dict[str, Any], error: str, tmp_path: Path
) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(scenario(manifests, target), base_dir=tmp_path)
    assert [str(e) for e in caught.value.errors] == [error]


def test_the_example_declares_its_load_on_the_webapp() -> None:
    loaded = load_scenario(EXAMPLE)
    assert [w.target for w in loaded.workloads] == [WEBAPP_TARGET]
    web = next(m.object for m in loaded.manifests if m.object["kind"] == "WebApp")
    assert "annotations" not in web["metadata"]


def test_the_demo_shows_the_load_and_ready_pods_of_the_webapp() -> None:
    """At 10 requests/s x 10m CPU on two pods of 200m: about 25% each; the load steps to 40
    at 2m and the HPA scales the WebApp to 4 (through its Scale), whose pods become ready."""
    loaded = dataclasses.replace(load_scenario(EXAMPLE), duration=timedelta(minutes=4))
    recorder = DemoRecorder("web", "default", None)
    result = run_scenario(loaded, on_tick=recorder.on_tick, tick=timedelta(seconds=15))
    at = {s.offset: s for s in recorder.timeline.samples}
    settled = at[timedelta(minutes=1, seconds=30)]
    assert (settled.load, settled.current_replicas, settled.ready_replicas) == (10.0, 2, 2)
    assert settled.utilization is not None
    assert 20 < settled.utilization < 30
    end = at[timedelta(minutes=4)]
    assert (end.load, end.current_replicas, end.ready_replicas) == (40.0, 4, 4)
    assert end.utilization is not None
    assert 40 < end.utilization < 60
    web = result.snapshots[-1].workload("web")
    assert (web.kind, web.offered_load, web.replicas, web.ready_pods) == ("WebApp", 40.0, 4, 4)


def test_events_scale_and_crash_a_webapp_through_its_scale(tmp_path: Path) -> None:
    document = scenario(
        [{**WEB, "spec": {"image": "nginx", "replicas": 2}}],
        {"kind": "WebApp", "name": "web"},
        crds=[CRD_NAME],
        duration="2m",
        pods={"startupDelay": "1s", "readinessDelay": "1s"},
    )
    target = {"kind": "WebApp", "name": "web"}
    document["spec"]["events"] = [
        {"at": "30s", "type": "crash", "target": target, "count": 1},
        {"at": "1m", "type": "scale", "target": target, "replicas": 3},
    ]
    loaded = parse_scenario(document, base_dir=tmp_path)
    result = run_scenario(loaded, tick=timedelta(seconds=10))
    at = {s.offset: s.workload("web") for s in result.snapshots}
    assert (at[timedelta(seconds=20)].replicas, at[timedelta(seconds=20)].ready_pods) == (2, 2)
    # The crashed container restarts: one pod is not ready for a moment.
    assert at[timedelta(seconds=30)].ready_pods == 1
    assert (at[timedelta(minutes=2)].replicas, at[timedelta(minutes=2)].ready_pods) == (3, 3)
    assert at[timedelta(minutes=2)].offered_load == 5.0
