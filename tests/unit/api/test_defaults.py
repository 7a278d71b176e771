"""Defaulting against upstream's SetDefaults_* behaviour, kind by kind."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.defaults import apply_defaults, image_pull_policy_for
from podscale.api.defaults_hpa import default_scale_down_rules, default_scale_up_rules

SCALE_UP_POLICIES = [
    {"type": "Pods", "value": 4, "periodSeconds": 15},
    {"type": "Percent", "value": 100, "periodSeconds": 15},
]
SCALE_DOWN_POLICIES = [{"type": "Percent", "value": 100, "periodSeconds": 15}]
CPU_80 = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
}


def hpa(version: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"autoscaling/{version}",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5, **spec},
    }


# --- HPA ----------------------------------------------------------------------------------------


def test_hpa_v2_empty_spec_gets_min_replicas_and_cpu_80() -> None:
    spec = apply_defaults(hpa("v2"))["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"] == [CPU_80]
    assert "behavior" not in spec


@pytest.mark.parametrize(
    ("given_spec", "min_replicas", "metrics"),
    [
        ({"minReplicas": 3}, 3, [CPU_80]),
        ({"minReplicas": 0}, 0, [CPU_80]),
        ({"metrics": []}, 1, [CPU_80]),
        ({"metrics": None}, 1, [CPU_80]),
        (
            {"metrics": [{"type": "Pods", "pods": {"metric": {"name": "qps"}}}]},
            1,
            [{"type": "Pods", "pods": {"metric": {"name": "qps"}}}],
        ),
    ],
    ids=["min-kept", "zero-min-kept", "empty-metrics", "null-metrics", "metrics-kept"],
)
def test_hpa_v2_fields(given_spec: dict[str, Any], min_replicas: int, metrics: Any) -> None:
    spec = apply_defaults(hpa("v2", **given_spec))["spec"]
    assert spec["minReplicas"] == min_replicas
    assert spec["metrics"] == metrics


def test_hpa_v2_empty_behavior_is_filled_both_ways() -> None:
    behavior = apply_defaults(hpa("v2", behavior={}))["spec"]["behavior"]
    assert behavior == {
        "scaleUp": {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": SCALE_UP_POLICIES,
        },
        "scaleDown": {"selectPolicy": "Max", "policies": SCALE_DOWN_POLICIES},
    }


def test_hpa_v2_behavior_null_stays_null() -> None:
    assert apply_defaults(hpa("v2", behavior=None))["spec"]["behavior"] is None


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (
            None,
            {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": SCALE_UP_POLICIES},
        ),
        (
            {"stabilizationWindowSeconds": 30},
            {
                "stabilizationWindowSeconds": 30,
                "selectPolicy": "Max",
                "policies": SCALE_UP_POLICIES,
            },
        ),
        (
            {"selectPolicy": "Disabled", "tolerance": "0.05"},
            {
                "stabilizationWindowSeconds": 0,
                "selectPolicy": "Disabled",
                "policies": SCALE_UP_POLICIES,
                "tolerance": "0.05",
            },
        ),
        (
            {"policies": [], "selectPolicy": None},
            {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": []},
        ),
        (
            {"x-unknown": 1},
            {
                "stabilizationWindowSeconds": 0,
                "selectPolicy": "Max",
                "policies": SCALE_UP_POLICIES,
                "x-unknown": 1,
            },
        ),
    ],
    ids=["nil", "window-kept", "select-and-tolerance-kept", "empty-policies-kept", "unknown-kept"],
)
def test_default_scale_up_rules(rules: Any, expected: dict[str, Any]) -> None:
    before = copy.deepcopy(rules)
    assert default_scale_up_rules(rules) == expected
    assert rules == before


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (None, {"selectPolicy": "Max", "policies": SCALE_DOWN_POLICIES}),
        (
            {"stabilizationWindowSeconds": 120},
            {
                "stabilizationWindowSeconds": 120,
                "selectPolicy": "Max",
                "policies": SCALE_DOWN_POLICIES,
            },
        ),
        (
            {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]},
            {
                "selectPolicy": "Max",
                "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}],
            },
        ),
    ],
    ids=["nil-window-stays-unset", "window-kept", "policies-kept"],
)
def test_default_scale_down_rules(rules: Any, expected: dict[str, Any]) -> None:
    assert default_scale_down_rules(rules) == expected


def test_default_rules_do_not_share_policy_lists() -> None:
    first = default_scale_up_rules(None)
    first["policies"][0]["value"] = 99
    assert default_scale_up_rules(None)["policies"][0]["value"] == 4


def test_hpa_v1_defaults_min_replicas_only() -> None:
    spec = apply_defaults(hpa("v1"))["spec"]
    assert spec["minReplicas"] == 1
    assert "targetCPUUtilizationPercentage" not in spec
    assert "metrics" not in spec


# --- Pods ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.27", "IfNotPresent"),
        ("registry.local:5000/team/nginx", "Always"),
        ("registry.local:5000/team/nginx:v2", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
        ("nginx:latest@sha256:" + "a" * 64, "Always"),
        ("", "IfNotPresent"),
    ],
    ids=[
        "untagged",
        "latest",
        "tagged",
        "registry-port",
        "registry-tag",
        "digest",
        "latest-digest",
        "empty",
    ],
)
def test_image_pull_policy(image: str, policy: str) -> None:
    assert image_pull_policy_for(image) == policy


def pod(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


def test_pod_spec_defaults() -> None:
    spec = apply_defaults(
        pod(containers=[{"name": "c", "image": "nginx:1", "ports": [{"containerPort": 80}]}])
    )["spec"]
    assert spec == {
        "containers": [
            {
                "name": "c",
                "image": "nginx:1",
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "imagePullPolicy": "IfNotPresent",
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
            }
        ],
        "dnsPolicy": "ClusterFirst",
        "restartPolicy": "Always",
        "securityContext": {},
        "terminationGracePeriodSeconds": 30,
        "schedulerName": "default-scheduler",
        "enableServiceLinks": True,
    }
    assert "status" not in apply_defaults(pod())


def test_pod_limits_become_missing_requests() -> None:
    container = {
        "name": "c",
        "image": "x:1",
        "resources": {"limits": {"cpu": "500m", "memory": "1Gi"}, "requests": {"cpu": "100m"}},
    }
    out = apply_defaults(
        pod(
            containers=[container],
            initContainers=[{"name": "i", "resources": {"limits": {"cpu": "1"}}}],
        )
    )
    assert out["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "100m", "memory": "1Gi"}
    assert out["spec"]["initContainers"][0]["resources"]["requests"] == {"cpu": "1"}


def test_pod_nested_defaults() -> None:
    container = {
        "name": "c",
        "image": "x",
        "livenessProbe": {"httpGet": {"port": 8080}},
        "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "ports": [{"containerPort": 9000}],
    }
    spec = apply_defaults(
        pod(
            hostNetwork=True,
            containers=[container],
            volumes=[{"name": "scratch"}, {"name": "cfg", "configMap": {"name": "c"}}],
        )
    )["spec"]
    out = spec["containers"][0]
    assert out["livenessProbe"] == {
        "httpGet": {"port": 8080, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    assert out["env"][0]["valueFrom"]["fieldRef"]["apiVersion"] == "v1"
    assert out["ports"] == [{"containerPort": 9000, "protocol": "TCP", "hostPort": 9000}]
    assert spec["volumes"] == [
        {"name": "scratch", "emptyDir": {}},
        {"name": "cfg", "configMap": {"name": "c", "defaultMode": 420}},
    ]


def test_pod_explicit_values_win() -> None:
    given_spec = {
        "restartPolicy": "Never",
        "dnsPolicy": "Default",
        "terminationGracePeriodSeconds": 0,
        "enableServiceLinks": False,
        "securityContext": {"runAsUser": 1000},
        "schedulerName": "mine",
    }
    spec = apply_defaults(pod(**given_spec))["spec"]
    assert {key: spec[key] for key in given_spec} == given_spec


# --- Workloads, nodes, namespaces ---------------------------------------------------------------

TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "c", "image": "web:1"}]},
}


def workload(kind: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "web"},
        "spec": {"template": copy.deepcopy(TEMPLATE), **spec},
    }


def test_deployment_defaults() -> None:
    spec = apply_defaults(workload("Deployment"))["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
    }
    assert spec["revisionHistoryLimit"] == 10
    assert spec["progressDeadlineSeconds"] == 600
    template_spec = spec["template"]["spec"]
    assert template_spec["restartPolicy"] == "Always"
    assert template_spec["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    # Pod-only defaults do not apply to templates.
    assert "enableServiceLinks" not in template_spec


def test_host_network_ports_are_defaulted_in_pods_only() -> None:
    container = {"name": "c", "image": "x:1", "ports": [{"containerPort": 53}]}
    in_pod = apply_defaults(pod(hostNetwork=True, containers=[copy.deepcopy(container)]))
    assert in_pod["spec"]["containers"][0]["ports"][0]["hostPort"] == 53
    template = {"spec": {"hostNetwork": True, "containers": [container]}}
    in_template = apply_defaults(workload("Deployment", template=template))
    assert "hostPort" not in in_template["spec"]["template"]["spec"]["containers"][0]["ports"][0]


def test_deployment_recreate_gets_no_rolling_update() -> None:
    spec = apply_defaults(workload("Deployment", strategy={"type": "Recreate"}))["spec"]
    assert spec["strategy"] == {"type": "Recreate"}


def test_replica_set_defaults() -> None:
    spec = apply_defaults(workload("ReplicaSet", replicas=0))["spec"]
    assert spec["replicas"] == 0
    assert spec["template"]["spec"]["schedulerName"] == "default-scheduler"


def test_stateful_set_defaults() -> None:
    spec = apply_defaults(workload("StatefulSet"))["spec"]
    assert spec["replicas"] == 1
    assert spec["podManagementPolicy"] == "OrderedReady"
    assert spec["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"partition": 0, "maxUnavailable": 1},
    }
    assert spec["revisionHistoryLimit"] == 10
    assert spec["persistentVolumeClaimRetentionPolicy"] == {
        "whenDeleted": "Retain",
        "whenScaled": "Retain",
    }


def test_stateful_set_on_delete_and_explicit_rolling_update() -> None:
    on_delete = apply_defaults(workload("StatefulSet", updateStrategy={"type": "OnDelete"}))
    assert on_delete["spec"]["updateStrategy"] == {"type": "OnDelete"}
    rolling = apply_defaults(workload("StatefulSet", updateStrategy={"type": "RollingUpdate"}))
    assert rolling["spec"]["updateStrategy"] == {"type": "RollingUpdate"}


def test_node_allocatable_defaults_to_capacity() -> None:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n"},
        "status": {"capacity": {"cpu": "4"}},
    }
    assert apply_defaults(node)["status"]["allocatable"] == {"cpu": "4"}


def test_namespace_defaults() -> None:
    ns = apply_defaults({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team"}
    assert ns["status"] == {"phase": "Active"}
    # Finalizers come from the registry strategy, not defaulting.
    assert "spec" not in ns


@pytest.mark.parametrize(
    "obj",
    [
        {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}},
        {"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {}},
        {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"x": 1}},
        {"kind": "Pod"},
    ],
    ids=["event", "scale", "unknown-kind", "no-api-version"],
)
def test_kinds_without_defaults_come_back_unchanged(obj: dict[str, Any]) -> None:
    out = apply_defaults(obj)
    assert out == obj
    assert out is not obj


# --- Invariants ---------------------------------------------------------------------------------

SAMPLES = [
    hpa("v2"),
    hpa("v2", behavior={"scaleDown": {"policies": []}}),
    hpa("v1"),
    pod(containers=[{"name": "c", "image": "x", "resources": {"limits": {"cpu": "1"}}}]),
    workload("Deployment"),
    workload("StatefulSet"),
    workload("ReplicaSet"),
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}},
    {"apiVersion": "v1", "kind": "Node", "status": {"capacity": {"cpu": "1"}}},
]

unknown_fields = st.dictionaries(
    st.text(alphabet="xyz", min_size=1, max_size=3).map(lambda key: f"x-{key}"),
    st.one_of(st.integers(), st.text(max_size=5), st.none()),
    max_size=3,
)


@given(sample=st.sampled_from(SAMPLES), extra_top=unknown_fields, extra_spec=unknown_fields)
def test_defaulting_is_idempotent_pure_and_keeps_unknown_fields(
    sample: dict[str, Any], extra_top: dict[str, Any], extra_spec: dict[str, Any]
) -> None:
    obj = copy.deepcopy(sample) | extra_top
    obj["spec"] = {**obj.get("spec", {}), **extra_spec}
    before = copy.deepcopy(obj)
    once = apply_defaults(obj)
    assert obj == before
    assert apply_defaults(once) == once
    for key, value in extra_top.items():
        assert once[key] == value
    for key, value in extra_spec.items():
        assert once["spec"][key] == value


@pytest.mark.parametrize(
    "obj",
    [
        pod(containers=[{"name": "c", "env": [{"name": "E", "valueFrom": "bad"}]}]),
        {"apiVersion": "v1", "kind": "Namespace", "metadata": "bad"},
        pod(containers="bad", volumes=[1, "x"]),
    ],
    ids=["env-value-from", "namespace-metadata", "container-list"],
)
def test_malformed_input_is_left_for_validation(obj: dict[str, Any]) -> None:
    # Defaulting must not crash on shapes validation will reject with a proper field error.
    assert apply_defaults(apply_defaults(obj)) == apply_defaults(obj)
