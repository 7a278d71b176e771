"""``podscale replay`` on a custom target: the WebApp example (an HPA scaling a WebApp through
its scale subresource) is scored like a Deployment. The WebApp has no pod template, so its
pods' CPU request and cost per request come from the pods its operator made; its replicas
and Ready pods are read through its Scale (``spec.replicas``, ``status.selector``)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from podscale.cli.main import cli
from podscale.replay.replay import replay
from podscale.replay.target import Autoscaler
from podscale.replay.window import choose_window
from podscale.scenario.loader import load_scenario, parse_scenario

EXAMPLE = Path(__file__).parents[3] / "examples" / "webapp-operator" / "scenario.yaml"


def test_replay_scores_the_webapp_example() -> None:
    args = ["replay", str(EXAMPLE), "--duration", "5m", "--jobs", "1", "-o", "json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["target"] == "WebApp/default/web"
    # One pod of the operator's: one container "app" requesting 200m, limited to 500m,
    # 10m per request/s from the scenario's load profile.
    assert (
        report["cpuRequestMillicores"],
        report["cpuLimitMillicores"],
        report["cpuPerRequestMillicores"],
    ) == (200.0, 500.0, 10.0)
    assert report["cpuDemandMillicores"] == [100.0, 100.0, 400.0, 400.0, 400.0]
    assert report["neededPods"] == [1, 1, 4, 4, 4]
    run = report["runs"][0]
    assert run["name"] == "scenario"
    assert not run["reference"]
    # Two pods Ready 15 s in (5 s start, 10 s readiness); the HPA scales to 4 after the
    # step at minute 2, and the new pods are Ready a little later.
    assert run["replicas"][:2] == [2.0, 2.0]
    assert run["readyPods"][0] == pytest.approx(1.5)
    assert (run["replicas"][-1], run["readyPods"][-1]) == (4.0, 4.0)
    assert [(e["from"], e["to"]) for e in run["scaleEvents"]] == [(2, 4)]
    assert run["hpa"]["name"] == "web"


def test_a_custom_target_without_pods_cannot_be_scored(tmp_path: Path) -> None:
    """No replica ever runs (the WebApp asks for none and no HPA scales it): there is no pod
    to read the shape from."""
    document = {
        "apiVersion": "podscale.dev/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "idle-webapp"},
        "spec": {
            "duration": "2m",
            "crds": ["webapps.examples.podscale.dev"],
            "manifests": [
                {
                    "apiVersion": "examples.podscale.dev/v1alpha1",
                    "kind": "WebApp",
                    "metadata": {"name": "web"},
                    "spec": {"image": "nginx", "replicas": 0},
                }
            ],
            "workloads": [
                {
                    "target": {"kind": "WebApp", "name": "web"},
                    "load": {"type": "constant", "rate": 1},
                }
            ],
        },
    }
    scenario = parse_scenario(document, base_dir=tmp_path)
    window = choose_window(scenario.duration, timedelta(0), None, timedelta(0))
    with pytest.raises(ValueError, match="WebApp/default/web ran no pods"):
        replay(scenario, [Autoscaler("scenario")], window, workers=1)


def test_the_example_loads_with_its_workload() -> None:
    loaded = load_scenario(EXAMPLE)
    assert [str(w.target) for w in loaded.workloads] == ["WebApp/default/web"]
