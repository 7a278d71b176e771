"""Loading valid scenario files: defaults, both node forms, manifests from files,
directories and inline, every load type, events; and the example scenarios."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from podscale.api.quantity import parse_quantity
from podscale.runtime.load import (
    ConstantRate,
    ContainerCost,
    RampRate,
    RateStep,
    SineRate,
    StepRate,
    TraceRate,
)
from podscale.runtime.simulated.kubelet_state import StartupProfile
from podscale.scenario.loader import load_scenario, parse_scenario
from podscale.scenario.model import NodeSpec, ScenarioEvent, WorkloadTarget

# The scenarios bundled with the package (podscale.cli.demo_catalog).
EXAMPLES = Path(__file__).resolve().parents[3] / "src" / "podscale" / "demo" / "scenarios"
MI = 1024 * 1024

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]},
        },
    },
}


def minimal(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "podscale.dev/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "demo"},
        "spec": {"duration": "10m", **spec},
    }


def test_minimal_scenario_takes_defaults(tmp_path: Path) -> None:
    scenario = parse_scenario(minimal(), base_dir=tmp_path)
    assert scenario.name == "demo"
    assert scenario.duration == timedelta(minutes=10)
    assert scenario.seed == 0
    assert scenario.nodes == (NodeSpec("node-1", parse_quantity("4"), parse_quantity("8Gi")),)
    assert scenario.pods == StartupProfile()
    assert (scenario.manifests, scenario.workloads, scenario.events) == ((), (), ())


@pytest.mark.parametrize(
    ("nodes", "expected"),
    [
        (
            {"count": 2, "capacity": {"cpu": "2", "memory": "4Gi", "pods": 20}},
            [("node-1", "2", "4Gi", 20), ("node-2", "2", "4Gi", 20)],
        ),
        ({"count": 1, "namePrefix": "w"}, [("w1", "4", "8Gi", 110)]),
        (
            [{"name": "big", "capacity": {"cpu": 16}}, {"name": "small", "labels": {"a": "b"}}],
            [("big", "16", "8Gi", 110), ("small", "4", "8Gi", 110)],
        ),
    ],
    ids=["count", "prefix", "list"],
)
def test_nodes(tmp_path: Path, nodes: Any, expected: list[tuple[str, str, str, int]]) -> None:
    scenario = parse_scenario(minimal(nodes=nodes), base_dir=tmp_path)
    assert [(n.name, str(n.cpu), str(n.memory), n.pods) for n in scenario.nodes] == expected


def test_node_spec_builds_a_node_object() -> None:
    spec = NodeSpec("n", parse_quantity("2"), parse_quantity("1Gi"), 10, {"zone": "a"})
    obj = spec.to_object()
    assert obj["status"]["allocatable"] == {"cpu": "2", "memory": "1Gi", "pods": "10"}
    assert obj["metadata"]["labels"]["zone"] == "a"


def test_pod_timing(tmp_path: Path) -> None:
    doc = minimal(pods={"startupDelay": "5s", "readinessDelay": "1m"})
    assert parse_scenario(doc, base_dir=tmp_path).pods == StartupProfile(
        startup=timedelta(seconds=5), readiness_delay=timedelta(minutes=1)
    )


def test_manifests_from_files_directories_and_inline(tmp_path: Path) -> None:
    other = {**DEPLOYMENT, "metadata": {"name": "api", "namespace": "shop"}}
    (tmp_path / "multi.yaml").write_text(yaml.safe_dump_all([DEPLOYMENT, None, other]))
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "b.yaml").write_text(yaml.safe_dump({**DEPLOYMENT, "kind": "ReplicaSet"}))
    (tmp_path / "dir" / "a.json").write_text(
        yaml.safe_dump({"kind": "List", "apiVersion": "v1", "items": [DEPLOYMENT]})
    )
    (tmp_path / "dir" / "notes.txt").write_text("ignored")
    inline = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}, "x": 1}
    scenario = parse_scenario(minimal(manifests=["multi.yaml", "dir", inline]), base_dir=tmp_path)
    assert [(m.object["kind"], m.object["metadata"]["name"]) for m in scenario.manifests] == [
        ("Deployment", "web"),
        ("Deployment", "api"),
        ("Deployment", "web"),
        ("ReplicaSet", "web"),
        ("Namespace", "shop"),
    ]
    assert scenario.manifests[0].source == str(tmp_path / "multi.yaml")
    assert scenario.manifests[-1].source == "spec.manifests[2]"
    assert scenario.manifests[-1].object["x"] == 1


def workload(load: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"target": {"kind": "Deployment", "name": "web"}, "load": load, **extra}


@pytest.mark.parametrize(
    ("load", "expected"),
    [
        ({"type": "constant", "rate": 5}, ConstantRate(5.0)),
        (
            {"type": "step", "steps": [{"at": "0s", "rate": 1}, {"at": "1m", "rate": 2.5}]},
            StepRate((RateStep(timedelta(0), 1.0), RateStep(timedelta(minutes=1), 2.5))),
        ),
        (
            {"type": "ramp", "from": 1, "to": 9, "over": "2m", "start": "30s"},
            RampRate(1.0, 9.0, timedelta(minutes=2), timedelta(seconds=30)),
        ),
        (
            {"type": "ramp", "from": 0, "to": 9, "over": "1m"},
            RampRate(0.0, 9.0, timedelta(minutes=1)),
        ),
        (
            {"type": "sine", "base": 10, "amplitude": 5, "period": "1h", "phase": "15m"},
            SineRate(10.0, 5.0, timedelta(hours=1), timedelta(minutes=15)),
        ),
    ],
    ids=["constant", "step", "ramp", "ramp-defaults", "sine"],
)
def test_load_types(tmp_path: Path, load: dict[str, Any], expected: object) -> None:
    doc = minimal(manifests=[DEPLOYMENT], workloads=[workload(load)])
    [parsed] = parse_scenario(doc, base_dir=tmp_path).workloads
    assert parsed.target == WorkloadTarget("Deployment", "web", "default")
    assert parsed.load == expected


def test_trace_load_is_resolved_against_the_scenario_file(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "t.csv").write_text("minute,requests\n0,120\n")
    load = {
        "type": "trace",
        "path": "traces/t.csv",
        "timeScale": 60,
        "offset": "1h",
        "loop": True,
        "rateScale": 2,
    }
    file = tmp_path / "s.yaml"
    file.write_text(yaml.safe_dump(minimal(manifests=[DEPLOYMENT], workloads=[workload(load)])))
    [parsed] = load_scenario(file).workloads
    assert parsed.load == TraceRate(
        (tmp_path / "traces" / "t.csv").resolve(),
        time_scale=60.0,
        offset=timedelta(hours=1),
        loop=True,
        rate_scale=2.0,
    )
    assert parsed.load.rate_at(timedelta(0)) == 4.0


def test_container_costs_and_noise(tmp_path: Path) -> None:
    containers = [
        {"name": "app", "baseline": {"cpu": "1m", "memory": "10Mi"}, "perRequest": {"cpu": 0.02}},
    ]
    doc = minimal(
        manifests=[DEPLOYMENT],
        workloads=[
            workload({"type": "constant", "rate": 1}, containers=containers, noise={"stddev": 0})
        ],
    )
    [parsed] = parse_scenario(doc, base_dir=tmp_path).workloads
    assert parsed.profile.costs == {"app": ContainerCost(1.0, 10.0 * MI, 20.0, 0.0)}
    assert parsed.profile.noise_stddev == 0.0


def test_default_noise(tmp_path: Path) -> None:
    doc = minimal(manifests=[DEPLOYMENT], workloads=[workload({"type": "constant", "rate": 1})])
    assert parse_scenario(doc, base_dir=tmp_path).workloads[0].profile.noise_stddev == 0.05


def test_events_are_ordered_by_time(tmp_path: Path) -> None:
    target = {"kind": "Deployment", "name": "web"}
    events = [
        {"at": "5m", "type": "loseNode", "node": "node-1"},
        {"at": "1m", "type": "scale", "target": target, "replicas": 0},
        {"at": "2m", "type": "crash", "target": target, "count": 2},
        {"at": "6m", "type": "restoreNode", "node": "node-1"},
    ]
    scenario = parse_scenario(minimal(events=events), base_dir=tmp_path)
    web = WorkloadTarget("Deployment", "web")
    assert scenario.events == (
        ScenarioEvent(timedelta(minutes=1), "scale", target=web, replicas=0),
        ScenarioEvent(timedelta(minutes=2), "crash", target=web, count=2),
        ScenarioEvent(timedelta(minutes=5), "loseNode", node="node-1"),
        ScenarioEvent(timedelta(minutes=6), "restoreNode", node="node-1"),
    )


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_every_example_loads(name: str) -> None:
    scenario = load_scenario(EXAMPLES / name)
    assert scenario.name == Path(name).stem
    assert scenario.workloads
    for workload in scenario.workloads:
        assert workload.load.rate_at(timedelta(0)) >= 0


def test_php_apache_step_example() -> None:
    scenario = load_scenario(EXAMPLES / "php-apache-step.yaml")
    deployment = next(m.object for m in scenario.manifests if m.object["kind"] == "Deployment")
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    assert container["resources"] == {"requests": {"cpu": "200m"}, "limits": {"cpu": "500m"}}
    assert {m.object["kind"] for m in scenario.manifests} == {
        "Deployment",
        "HorizontalPodAutoscaler",
    }
    [web] = scenario.workloads
    assert web.load.rate_at(timedelta(minutes=5)) > web.load.rate_at(timedelta(0))


def test_nasa_example_reads_its_trace() -> None:
    scenario = load_scenario(EXAMPLES / "php-apache-nasa.yaml")
    load = scenario.workloads[0].load
    assert isinstance(load, TraceRate)
    assert load.path.name == "nasa-1995-per-minute.csv"
    assert load.path.is_file()
    assert 0 < load.rate_at(timedelta(minutes=12)) < 1000
