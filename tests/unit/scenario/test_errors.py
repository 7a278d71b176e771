"""Scenario validation: every message, with its field path, in upstream's field.Error form;
unknown fields; the document type; unreadable files; the aggregated message."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from podscale.scenario.loader import ScenarioError, load_scenario, parse_scenario

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {"template": {"spec": {"containers": [{"name": "app"}]}}},
}
TARGET = {"kind": "Deployment", "name": "web"}
BASE: dict[str, Any] = {
    "apiVersion": "podscale.dev/v1alpha1",
    "kind": "Scenario",
    "metadata": {"name": "demo"},
    "spec": {
        "duration": "10m",
        "manifests": [DEPLOYMENT],
        "workloads": [{"target": TARGET, "load": {"type": "constant", "rate": 1}}],
    },
}
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or"
    " '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used"
    " for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
QUANTITY = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)


def with_spec(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    doc["spec"].update(changes)
    return doc


def with_workload(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    doc["spec"]["workloads"][0].update(changes)
    return doc


def with_load(load: Any) -> dict[str, Any]:
    return with_workload(load=load)


def messages(doc: Any, tmp_path: Path) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(doc, base_dir=tmp_path)
    err = caught.value
    return [f'unknown field "{f}"' for f in err.unknown_fields] + [str(e) for e in err.errors]


CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("no-spec", {**BASE, "spec": None}, ["spec: Required value"]),
    (
        "spec-not-object",
        {**BASE, "spec": [1]},
        ["spec: Invalid value: [1]: must be of type object"],
    ),
    ("no-name", {**BASE, "metadata": {}}, ["metadata.name: Required value"]),
    (
        "bad-name",
        {**BASE, "metadata": {"name": "Demo_1"}},
        [f'metadata.name: Invalid value: "Demo_1": {SUBDOMAIN}'],
    ),
    (
        "label-not-string",
        {**BASE, "metadata": {"name": "d", "labels": {"a": 1}}},
        ["metadata.labels[a]: Invalid value: 1: must be of type string"],
    ),
    (
        "unknown-fields",
        {
            **BASE,
            "status": {},
            "metadata": {"name": "d", "uid": "x"},
            "spec": {**BASE["spec"], "replicas": 1},
        },
        ['unknown field "status"', 'unknown field "metadata.uid"', 'unknown field "spec.replicas"'],
    ),
    ("no-duration", with_spec(duration=None), ["spec.duration: Required value"]),
    (
        "duration-unit",
        with_spec(duration="10x"),
        ['spec.duration: Invalid value: "10x": time: unknown unit "x" in duration "10x"'],
    ),
    (
        "duration-no-unit",
        with_spec(duration="600"),
        ['spec.duration: Invalid value: "600": time: missing unit in duration "600"'],
    ),
    (
        "duration-number",
        with_spec(duration=600),
        ["spec.duration: Invalid value: 600: must be of type string"],
    ),
    (
        "duration-zero",
        with_spec(duration="0s"),
        ['spec.duration: Invalid value: "0s": must be greater than 0'],
    ),
    (
        "seed-negative",
        with_spec(seed=-1),
        ["spec.seed: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "seed-string",
        with_spec(seed="x"),
        ['spec.seed: Invalid value: "x": must be of type integer'],
    ),
    (
        "seed-bool",
        with_spec(seed=True),
        ["spec.seed: Invalid value: true: must be of type integer"],
    ),
    (
        "node-count-zero",
        with_spec(nodes={"count": 0}),
        ["spec.nodes.count: Invalid value: 0: must be greater than or equal to 1"],
    ),
    (
        "node-count-missing",
        with_spec(nodes={"capacity": {"cpu": "2"}}),
        ["spec.nodes.count: Required value"],
    ),
    (
        "node-prefix",
        with_spec(nodes={"count": 1, "namePrefix": "N_"}),
        [f'spec.nodes.namePrefix: Invalid value: "N_1": {SUBDOMAIN}'],
    ),
    (
        "node-cpu",
        with_spec(nodes={"count": 1, "capacity": {"cpu": "lots"}}),
        [f'spec.nodes.capacity.cpu: Invalid value: "lots": {QUANTITY}'],
    ),
    (
        "node-memory-zero",
        with_spec(nodes={"count": 1, "capacity": {"memory": "0"}}),
        ['spec.nodes.capacity.memory: Invalid value: "0": must be greater than 0'],
    ),
    (
        "node-pods",
        with_spec(nodes={"count": 1, "capacity": {"pods": 0}}),
        ["spec.nodes.capacity.pods: Invalid value: 0: must be greater than or equal to 1"],
    ),
    (
        "node-capacity-field",
        with_spec(nodes={"count": 1, "capacity": {"gpu": 1}}),
        ['unknown field "spec.nodes.capacity.gpu"'],
    ),
    (
        "nodes-empty-list",
        with_spec(nodes=[]),
        ["spec.nodes: Invalid value: []: must have at least one node"],
    ),
    (
        "nodes-string",
        with_spec(nodes="3"),
        ['spec.nodes: Invalid value: "3": must be of type object'],
    ),
    ("node-list-name", with_spec(nodes=[{"capacity": {}}]), ["spec.nodes[0].name: Required value"]),
    (
        "node-list-duplicate",
        with_spec(nodes=[{"name": "a"}, {"name": "a"}]),
        ['spec.nodes[1].name: Duplicate value: "a"'],
    ),
    (
        "pods-delay",
        with_spec(pods={"startupDelay": "-1s"}),
        ['spec.pods.startupDelay: Invalid value: "-1s": must be greater than or equal to 0'],
    ),
    (
        "pods-field",
        with_spec(pods={"restartDelay": "1s"}),
        ['unknown field "spec.pods.restartDelay"'],
    ),
    (
        "manifest-missing-file",
        with_spec(manifests=["nope.yaml", DEPLOYMENT]),
        ['spec.manifests[0]: Not found: "nope.yaml"'],
    ),
    (
        "manifest-number",
        with_spec(manifests=[3, DEPLOYMENT]),
        ["spec.manifests[0]: Invalid value: 3: must be of type string or object"],
    ),
    (
        "manifest-inline-incomplete",
        with_spec(manifests=[{"metadata": {}}, DEPLOYMENT]),
        [
            "spec.manifests[0].apiVersion: Required value",
            "spec.manifests[0].kind: Required value",
            "spec.manifests[0].metadata.name: Required value",
        ],
    ),
    (
        "workloads-not-list",
        with_spec(workloads={"a": 1}),
        ['spec.workloads: Invalid value: {"a":1}: must be of type array'],
    ),
    (
        "workload-no-target",
        with_workload(target=None),
        ["spec.workloads[0].target: Required value"],
    ),
    ("workload-no-load", with_workload(load=None), ["spec.workloads[0].load: Required value"]),
    (
        "target-kind",
        with_workload(target={"kind": "DaemonSet", "name": "web"}),
        [
            'spec.workloads[0].target.kind: Unsupported value: "DaemonSet": supported values:'
            ' "Deployment", "ReplicaSet", "StatefulSet"'
        ],
    ),
    (
        "target-name",
        with_workload(target={"kind": "Deployment"}),
        ["spec.workloads[0].target.name: Required value"],
    ),
    (
        "target-not-in-manifests",
        with_workload(target={"kind": "Deployment", "name": "api"}),
        ['spec.workloads[0].target.name: Not found: "api"'],
    ),
    (
        "target-other-namespace",
        with_workload(target={**TARGET, "namespace": "shop"}),
        ['spec.workloads[0].target.name: Not found: "web"'],
    ),
    (
        "target-twice",
        with_spec(workloads=[{"target": TARGET, "load": {"type": "constant", "rate": 1}}] * 2),
        ['spec.workloads[1].target: Duplicate value: "Deployment/default/web"'],
    ),
    ("workload-field", with_workload(replicas=3), ['unknown field "spec.workloads[0].replicas"']),
    (
        "container-unknown",
        with_workload(containers=[{"name": "sidecar"}]),
        ['spec.workloads[0].containers[0].name: Not found: "sidecar"'],
    ),
    (
        "container-index-kept",
        with_workload(containers=[{"baseline": {}}, {"name": "sidecar"}]),
        [
            "spec.workloads[0].containers[0].name: Required value",
            'spec.workloads[0].containers[1].name: Not found: "sidecar"',
        ],
    ),
    (
        "container-no-name",
        with_workload(containers=[{"baseline": {"cpu": "1m"}}]),
        ["spec.workloads[0].containers[0].name: Required value"],
    ),
    (
        "container-duplicate",
        with_workload(containers=[{"name": "app"}, {"name": "app"}]),
        ['spec.workloads[0].containers[1].name: Duplicate value: "app"'],
    ),
    (
        "container-cost-negative",
        with_workload(containers=[{"name": "app", "perRequest": {"cpu": "-1m"}}]),
        [
            'spec.workloads[0].containers[0].perRequest.cpu: Invalid value: "-1m": must be'
            " greater than or equal to 0"
        ],
    ),
    (
        "container-cost-field",
        with_workload(containers=[{"name": "app", "baseline": {"gpu": 1}}]),
        ['unknown field "spec.workloads[0].containers[0].baseline.gpu"'],
    ),
    (
        "noise-negative",
        with_workload(noise={"stddev": -0.1}),
        ["spec.workloads[0].noise.stddev: Invalid value: -0.1: must be greater than or equal to 0"],
    ),
    (
        "noise-field",
        with_workload(noise={"type": "normal"}),
        ['unknown field "spec.workloads[0].noise.type"'],
    ),
    (
        "load-type",
        with_load({"type": "square"}),
        [
            'spec.workloads[0].load.type: Unsupported value: "square": supported values:'
            ' "constant", "ramp", "sine", "step", "trace"'
        ],
    ),
    ("load-no-type", with_load({"rate": 1}), ["spec.workloads[0].load.type: Required value"]),
    (
        "load-not-object",
        with_load("constant"),
        ['spec.workloads[0].load: Invalid value: "constant": must be of type object'],
    ),
    (
        "constant-no-rate",
        with_load({"type": "constant"}),
        ["spec.workloads[0].load.rate: Required value"],
    ),
    (
        "constant-negative",
        with_load({"type": "constant", "rate": -2}),
        ["spec.workloads[0].load.rate: Invalid value: -2: must be greater than or equal to 0"],
    ),
    (
        "constant-string",
        with_load({"type": "constant", "rate": "5"}),
        ['spec.workloads[0].load.rate: Invalid value: "5": must be of type number'],
    ),
    (
        "constant-nan",
        with_load({"type": "constant", "rate": float("nan")}),
        ['spec.workloads[0].load.rate: Invalid value: "nan": must be a finite number'],
    ),
    (
        "load-field-of-other-type",
        with_load({"type": "constant", "rate": 1, "steps": []}),
        ['unknown field "spec.workloads[0].load.steps"'],
    ),
    ("step-none", with_load({"type": "step"}), ["spec.workloads[0].load.steps: Required value"]),
    (
        "step-empty",
        with_load({"type": "step", "steps": []}),
        ["spec.workloads[0].load.steps: Required value"],
    ),
    (
        "step-order",
        with_load({"type": "step", "steps": [{"at": "1m", "rate": 1}, {"at": "30s", "rate": 2}]}),
        [
            'spec.workloads[0].load.steps[1].at: Invalid value: "30s": must be later than'
            " steps[0].at"
        ],
    ),
    (
        "step-no-at",
        with_load({"type": "step", "steps": [{"rate": 1}]}),
        ["spec.workloads[0].load.steps[0].at: Required value"],
    ),
    (
        "step-field",
        with_load({"type": "step", "steps": [{"at": "0s", "rate": 1, "for": "1m"}]}),
        ['unknown field "spec.workloads[0].load.steps[0].for"'],
    ),
    (
        "ramp-missing",
        with_load({"type": "ramp"}),
        [
            "spec.workloads[0].load.from: Required value",
            "spec.workloads[0].load.to: Required value",
            "spec.workloads[0].load.over: Required value",
        ],
    ),
    (
        "ramp-over-zero",
        with_load({"type": "ramp", "from": 1, "to": 2, "over": "0s"}),
        ['spec.workloads[0].load.over: Invalid value: "0s": must be greater than 0'],
    ),
    (
        "sine-period",
        with_load({"type": "sine", "base": 1, "amplitude": 1, "period": "1d"}),
        [
            'spec.workloads[0].load.period: Invalid value: "1d": time: unknown unit "d" in'
            ' duration "1d"'
        ],
    ),
    (
        "trace-no-path",
        with_load({"type": "trace"}),
        ["spec.workloads[0].load.path: Required value"],
    ),
    (
        "trace-missing-file",
        with_load({"type": "trace", "path": "t.csv"}),
        ['spec.workloads[0].load.path: Not found: "t.csv"'],
    ),
    (
        "trace-time-scale",
        with_load({"type": "trace", "path": "t.csv", "timeScale": 0}),
        [
            "spec.workloads[0].load.timeScale: Invalid value: 0: must be greater than 0",
            'spec.workloads[0].load.path: Not found: "t.csv"',
        ],
    ),
    (
        "trace-loop",
        with_load({"type": "trace", "path": "t.csv", "loop": "yes"}),
        [
            'spec.workloads[0].load.loop: Invalid value: "yes": must be of type boolean',
            'spec.workloads[0].load.path: Not found: "t.csv"',
        ],
    ),
    (
        "event-type",
        with_spec(events=[{"at": "1m", "type": "explode"}]),
        [
            'spec.events[0].type: Unsupported value: "explode": supported values: "crash",'
            ' "loseNode", "restoreNode", "scale"'
        ],
    ),
    (
        "event-after-end",
        with_spec(events=[{"at": "11m", "type": "loseNode", "node": "node-1"}]),
        ['spec.events[0].at: Invalid value: "11m": must not be after spec.duration'],
    ),
    (
        "event-no-at",
        with_spec(events=[{"type": "loseNode", "node": "node-1"}]),
        ["spec.events[0].at: Required value"],
    ),
    (
        "event-unknown-node",
        with_spec(events=[{"at": "1m", "type": "loseNode", "node": "node-9"}]),
        ['spec.events[0].node: Not found: "node-9"'],
    ),
    (
        "event-scale-replicas",
        with_spec(events=[{"at": "1m", "type": "scale", "target": TARGET}]),
        ["spec.events[0].replicas: Required value"],
    ),
    (
        "event-scale-target",
        with_spec(events=[{"at": "1m", "type": "scale", "replicas": 1}]),
        ["spec.events[0].target: Required value"],
    ),
    (
        "event-crash-count",
        with_spec(events=[{"at": "1m", "type": "crash", "target": TARGET, "count": 0}]),
        ["spec.events[0].count: Invalid value: 0: must be greater than or equal to 1"],
    ),
    (
        "event-field-of-other-type",
        with_spec(events=[{"at": "1m", "type": "crash", "target": TARGET, "node": "node-1"}]),
        ['unknown field "spec.events[0].node"'],
    ),
    (
        "event-not-object",
        with_spec(events=["boom"]),
        ['spec.events[0]: Invalid value: "boom": must be of type object'],
    ),
]


@pytest.mark.parametrize(
    ("doc", "expected"), [(d, e) for _, d, e in CASES], ids=[c[0] for c in CASES]
)
def test_validation_messages(tmp_path: Path, doc: dict[str, Any], expected: list[str]) -> None:
    assert messages(doc, tmp_path) == expected


def test_base_document_is_valid(tmp_path: Path) -> None:
    assert parse_scenario(BASE, base_dir=tmp_path).name == "demo"


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([1, 2], "scenario: a scenario must be a YAML mapping"),
        ({**BASE, "kind": None}, "scenario: Object 'Kind' is missing"),
        ({**BASE, "apiVersion": None}, "scenario: Object 'apiVersion' is missing"),
        (
            {**BASE, "apiVersion": "podscale.dev/v1"},
            'scenario: no kind "Scenario" is registered for version "podscale.dev/v1": a scenario'
            ' needs apiVersion "podscale.dev/v1alpha1" and kind "Scenario"',
        ),
        (
            {**BASE, "kind": "ScaleInput"},
            'scenario: no kind "ScaleInput" is registered for version "podscale.dev/v1alpha1": a'
            ' scenario needs apiVersion "podscale.dev/v1alpha1" and kind "Scenario"',
        ),
    ],
    ids=["not-mapping", "no-kind", "no-api-version", "unsupported-version", "other-kind"],
)
def test_document_type(tmp_path: Path, doc: Any, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(doc, base_dir=tmp_path)
    assert str(caught.value) == message


def test_aggregated_message_names_file_and_scenario(tmp_path: Path) -> None:
    file = tmp_path / "s.yaml"
    doc = with_spec(seed=-1, extra=True)
    file.write_text(yaml.safe_dump(doc))
    with pytest.raises(ScenarioError) as caught:
        load_scenario(file)
    assert str(caught.value) == (
        f'{file}: Scenario.podscale.dev "demo" is invalid: [unknown field "spec.extra",'
        " spec.seed: Invalid value: -1: must be greater than or equal to 0]"
    )


def test_single_error_is_not_bracketed(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(with_spec(seed=-1), base_dir=tmp_path)
    assert str(caught.value) == (
        'scenario: Scenario.podscale.dev "demo" is invalid: spec.seed: Invalid value: -1: must be'
        " greater than or equal to 0"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [1\n", "error parsing scenario: while parsing a flow sequence"),
        ("---\na: 1\n---\nb: 2\n", "expected one scenario document, found 2"),
        ("", "expected one scenario document, found 0"),
    ],
    ids=["yaml-syntax", "two-documents", "empty"],
)
def test_unreadable_scenario_files(tmp_path: Path, text: str, message: str) -> None:
    file = tmp_path / "bad.yaml"
    file.write_text(text)
    with pytest.raises(ScenarioError, match=f"^{file}: {message}"):
        load_scenario(file)


def test_missing_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"gone\.yaml: cannot read scenario: No such file"):
        load_scenario(tmp_path / "gone.yaml")


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        ("kind: [\n", "error parsing {file}: while parsing a flow"),
        ("- 1\n- 2\n", "{file}: object 1 is not a mapping"),
        ("apiVersion: v1\nmetadata: {name: x}\n", "{file}: object 1: missing kind"),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind:"
            " Pod\nmetadata: {}\n",
            "{file}: object 2: missing metadata.name",
        ),
    ],
    ids=["yaml-syntax", "not-mapping", "no-kind", "no-name"],
)
def test_bad_manifest_files(tmp_path: Path, content: str, detail: str) -> None:
    file = tmp_path / "m.yaml"
    file.write_text(content)
    [message] = messages(with_spec(manifests=["m.yaml", DEPLOYMENT]), tmp_path)
    assert message.startswith(
        'spec.manifests[0]: Invalid value: "m.yaml": ' + detail.format(file=file)
    )
