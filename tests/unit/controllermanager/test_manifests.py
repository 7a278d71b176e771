"""``podscale manifests``: the objects, the shipped ``deploy/podscale.yaml``, the flags, the
RBAC matching and the Dockerfile's essential lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from podscale.cli.main import cli
from podscale.controllermanager.manifests import (
    DEFAULT_CONTROLLERS,
    ManifestOptions,
    manifest_objects,
    render_manifests,
    select_manifest_controllers,
)
from podscale.controllermanager.rbac import CONTROLLER_RULES, WILDCARDS, allows, cluster_rules

ROOT = Path(__file__).resolve().parents[3]
JSON = dict[str, Any]


def by_kind(objects: list[JSON], kind: str) -> list[JSON]:
    return [obj for obj in objects if obj["kind"] == kind]


def test_deploy_podscale_yaml_is_the_default_output() -> None:
    shipped = (ROOT / "deploy" / "podscale.yaml").read_text(encoding="utf-8")
    result = CliRunner().invoke(cli, ["manifests"])
    assert result.exit_code == 0, result.output
    assert result.output == shipped == render_manifests()


def test_the_stream_parses_back_to_the_objects() -> None:
    documents = [doc for doc in yaml.safe_load_all(render_manifests()) if doc is not None]
    assert documents == manifest_objects()


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        (None, DEFAULT_CONTROLLERS),
        ("cronhpa,keda", ("cronhpa-controller", "keda-operator")),
        ("*", DEFAULT_CONTROLLERS),
        (
            "*,horizontalpodautoscaling",
            ("horizontal-pod-autoscaler-controller", *DEFAULT_CONTROLLERS),
        ),
        ("-usagehistory,*", tuple(c for c in DEFAULT_CONTROLLERS if "usage" not in c)),
        ("", ()),
    ],
    ids=[
        "default",
        "aliases",
        "star-is-the-default",
        "the-hpa-when-named",
        "star-less-one",
        "none",
    ],
)
def test_select_manifest_controllers(flag: str | None, expected: tuple[str, ...]) -> None:
    assert sorted(select_manifest_controllers(flag)) == sorted(expected)


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("replicaset", "replicaset-controller: not deployed by podscale manifests"),
        ("nope", '"nope" is not in the list of known controllers'),
    ],
    ids=["workload-controller", "unknown"],
)
def test_a_bad_controllers_flag_is_a_usage_error(flag: str, message: str) -> None:
    result = CliRunner().invoke(cli, ["manifests", "--controllers", flag])
    assert result.exit_code == 2
    assert message in result.output


def test_the_default_objects() -> None:
    objects = manifest_objects()
    crds = {obj["metadata"]["name"] for obj in by_kind(objects, "CustomResourceDefinition")}
    assert crds == {
        "cronhorizontalpodautoscalers.autoscaling.alibabacloud.com",
        "effectivehorizontalpodautoscalers.autoscaling.crane.io",
        "substitutes.autoscaling.crane.io",
        "predictivehorizontalpodautoscalers.autoscaling.podscale.dev",
        "scaledobjects.keda.sh",
        "intelligenthorizontalpodautoscalers.autoscaling.kapacitystack.io",
        "replicaprofiles.autoscaling.kapacitystack.io",
    }
    [api_service] = by_kind(objects, "APIService")
    assert api_service["metadata"]["name"] == "v1beta1.external.metrics.k8s.io"
    assert api_service["spec"]["service"]["namespace"] == "podscale-system"
    [role] = by_kind(objects, "Role")
    assert role["metadata"]["namespace"] == "podscale-system"
    assert role["rules"] == [
        {
            "apiGroups": ["coordination.k8s.io"],
            "resources": ["leases"],
            "verbs": ["get", "create", "update"],
        }
    ]
    [deployment] = by_kind(objects, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    [container] = pod["containers"]
    assert deployment["spec"]["replicas"] == 2
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert container["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["resources"]["requests"] == {"cpu": "100m", "memory": "256Mi"}
    assert "--leader-elect-resource-namespace=podscale-system" in container["args"]


def test_without_a_publisher_there_is_no_adapter() -> None:
    options = ManifestOptions(controllers=("cronhpa-controller",), namespace="ops", image="x:1")
    objects = manifest_objects(options)
    assert by_kind(objects, "APIService") == by_kind(objects, "Service") == []
    [deployment] = by_kind(objects, "Deployment")
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "x:1"
    assert "--adapter-port=0" in container["args"]
    assert {obj["metadata"].get("namespace") for obj in objects} <= {None, "ops"}


def test_the_only_wildcards_are_the_ones_upstream_has() -> None:
    rules = cluster_rules(CONTROLLER_RULES)
    wild = {
        f"{group}/{resource}" if group != "*" else resource
        for rule in rules
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        if "*" in group or "*" in resource
    }
    assert wild == set(WILDCARDS)
    assert all("*" not in verb for rule in rules for verb in rule["verbs"])


RULES = [
    {"apiGroups": ["*"], "resources": ["*/scale"], "verbs": ["get", "update"]},
    {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get"]},
    {"apiGroups": ["external.metrics.k8s.io"], "resources": ["*"], "verbs": ["list"]},
]


@pytest.mark.parametrize(
    ("verb", "group", "resource", "subresource", "allowed"),
    [
        ("update", "apps", "deployments", "scale", True),
        ("update", "example.com", "widgets", "scale", True),
        ("patch", "apps", "deployments", "scale", False),
        ("get", "apps", "deployments", "", True),
        ("get", "apps", "deployments", "status", False),
        ("get", "", "deployments", "", False),
        ("update", "apps", "deployments", "", False),
        ("list", "external.metrics.k8s.io", "queue_length", "", True),
    ],
    ids=[
        "scale-of-a-workload",
        "scale-of-any-kind",
        "verb-not-granted",
        "exact-resource",
        "subresource-needs-its-own-rule",
        "group-must-match",
        "scale-rule-is-not-the-resource",
        "star-resource",
    ],
)
def test_allows_matches_as_rbac_does(
    verb: str, group: str, resource: str, subresource: str, allowed: bool
) -> None:
    assert allows(RULES, verb, group, resource, subresource) is allowed


def test_the_dockerfile_builds_the_wheel_and_runs_the_controller_manager_as_non_root() -> None:
    lines = [
        line.strip()
        for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    stages = [line for line in lines if line.startswith("FROM ")]
    assert stages == ["FROM python:3.11-slim AS build", "FROM python:3.11-slim"]
    assert any("python -m build --wheel" in line for line in lines)
    assert "COPY --from=build /dist/ /tmp/dist/" in lines
    assert any("pip install --no-cache-dir /tmp/dist/*.whl" in line for line in lines)
    [user] = [line for line in lines if line.startswith("USER ")]
    uid = user.split()[1].split(":")[0]
    assert uid.isdigit()
    assert int(uid) != 0
    assert lines[-1] == 'ENTRYPOINT ["podscale", "controller-manager"]'
    [deployment] = by_kind(manifest_objects(), "Deployment")
    assert deployment["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == int(uid)
