"""Scenarios with custom resources: CRDs from ``spec.crds`` (shipped with podscale) or the
manifests are installed first; a kind neither built in nor defined is refused on load with
kubectl's words; the WebApp example scenario runs on virtual time with an autoscaling/v2
HPA scaling the WebApp through its scale subresource, and its ReplicaSet and pods follow."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.controllers.shipped_crds import SHIPPED_CRDS
from podscale.controllers.webapp.kind import CRD_NAME, NAME_LABEL, WEBAPP, definition
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.virtual_time import DEFAULT_START
from podscale.scenario.loader import ScenarioError, load_scenario, parse_scenario
from podscale.scenario.play import beside_plane
from podscale.scenario.run import ScenarioRun, plane_for

ROOT = Path(__file__).parents[3]
EXAMPLE = ROOT / "examples" / "webapp-operator" / "scenario.yaml"
RS = kind_for("apps/v1", "ReplicaSet")
POD = kind_for("v1", "Pod")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
NO_MATCH = (
    'no matches for kind "WebApp" in version "examples.podscale.dev/v1alpha1": ensure CRDs '
    "are installed first (a CustomResourceDefinition in spec.manifests, or a CRD podscale "
    "ships in spec.crds)"
)
WEB: dict[str, Any] = {
    "apiVersion": "examples.podscale.dev/v1alpha1",
    "kind": "WebApp",
    "metadata": {"name": "web"},
    "spec": {"image": "nginx", "replicas": 1},
}


def scenario(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "podscale.dev/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "crs"},
        "spec": {"duration": "1m", **spec},
    }


@pytest.mark.parametrize(
    "spec",
    [
        {"crds": [CRD_NAME], "manifests": [WEB]},
        {"manifests": [definition(), WEB]},
        # Order among the manifests does not matter: CRDs are created first.
        {"manifests": [WEB, definition()]},
    ],
    ids=["shipped", "crd-manifest", "crd-after-its-resource"],
)
def test_a_defined_custom_kind_loads(spec: dict[str, Any], tmp_path: Path) -> None:
    loaded = parse_scenario(scenario(**spec), base_dir=tmp_path)
    kinds = [m.object["kind"] for m in loaded.manifests]
    assert sorted(kinds) == ["CustomResourceDefinition", "WebApp"]


@pytest.mark.parametrize(
    ("spec", "error", "file"),
    [
        (
            {"manifests": [WEB]},
            f'spec.manifests[0].kind: Invalid value: "WebApp": {NO_MATCH}',
            False,
        ),
        (
            {"manifests": ["web.yaml"]},
            'spec.manifests[0]: Invalid value: "web.yaml": {file}: object 1: ' + NO_MATCH,
            True,
        ),
        (
            {"crds": ["widgets.example.com"]},
            'spec.crds[0]: Unsupported value: "widgets.example.com": supported values: '
            + ", ".join(f'"{name}"' for name in sorted(SHIPPED_CRDS)),
            False,
        ),
        ({"crds": [CRD_NAME, CRD_NAME]}, f'spec.crds[1]: Duplicate value: "{CRD_NAME}"', False),
    ],
    ids=["inline-undefined", "file-undefined", "not-shipped", "twice"],
)
def test_undefined_kinds_are_refused_on_load(
    spec: dict[str, Any], error: str, file: bool, tmp_path: Path
) -> None:
    if file:
        (tmp_path / "web.yaml").write_text(
            "apiVersion: examples.podscale.dev/v1alpha1\nkind: WebApp\nmetadata: {name: web}\n"
        )
        error = error.format(file=tmp_path / "web.yaml")
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(scenario(**spec), base_dir=tmp_path)
    assert [str(e) for e in caught.value.errors] == [error]


def test_an_hpa_scales_a_webapp_and_its_replica_set_follows() -> None:
    loaded = load_scenario(EXAMPLE)
    seen: dict[str, Any] = {}

    async def play(run: ScenarioRun) -> None:
        await run.plane.wait_started()
        await run.start()
        # The load steps up at 2m; a few syncs later the HPA has scaled the WebApp.
        await asyncio.sleep(timedelta(minutes=6).total_seconds())
        api = run.plane.api
        seen["webapp"] = await api.get(WEBAPP, "default", "web")
        seen["rs"] = await api.get(RS, "default", "web")
        seen["hpa"] = await api.get(HPA, "default", "web")
        pods = await api.list(POD, "default", label_selector=f"{NAME_LABEL}=web")
        seen["pods"] = pods["items"]

    async def main() -> None:
        plane = plane_for(loaded, VirtualClock(DEFAULT_START))
        await beside_plane(plane, play(ScenarioRun(plane, loaded)))

    run_virtual(main(), start=DEFAULT_START)
    hpa = seen["hpa"]
    assert hpa["status"]["desiredReplicas"] > 2
    assert hpa["spec"]["scaleTargetRef"]["kind"] == "WebApp"
    replicas = seen["webapp"]["spec"]["replicas"]
    assert replicas == hpa["status"]["desiredReplicas"]
    assert seen["rs"]["spec"]["replicas"] == replicas
    assert seen["webapp"]["status"]["replicas"] == replicas
    assert len(seen["pods"]) == replicas


def test_shipped_crds_come_first() -> None:
    loaded = load_scenario(EXAMPLE)
    assert loaded.manifests[0].object == definition()
    assert loaded.manifests[0].source == f"podscale:{CRD_NAME}"
