"""Tests for podscale.api.validation.pod: pods, pod templates and container resources."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.field_errors import FieldPath
from podscale.api.validation.pod import (
    validate_pod,
    validate_pod_specific_annotations,
    validate_pod_status_update,
    validate_pod_template_spec,
    validate_pod_update,
    validate_resource_requirements,
)

LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
QUANTITY_MSG = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
COST = "controller.kubernetes.io/pod-deletion-cost"


def _pod(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"containers": [{"name": "web", "image": "nginx"}]}
    base.update(spec)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "default"},
        "spec": base,
    }


def _container(**fields: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "web", "image": "nginx"}
    container.update(fields)
    return container


def _messages(pod: dict[str, Any]) -> list[str]:
    return [str(e) for e in validate_pod(pod)]


@pytest.mark.parametrize(
    ("pod", "expected"),
    [
        (_pod(), []),
        (_pod(containers=[]), ["spec.containers: Required value"]),
        (_pod(containers=[{"image": "nginx"}]), ["spec.containers[0].name: Required value"]),
        (
            _pod(containers=[_container(name="Web")]),
            [f'spec.containers[0].name: Invalid value: "Web": {LABEL_MSG}'],
        ),
        (
            _pod(containers=[_container(), _container()]),
            ['spec.containers[1].name: Duplicate value: "web"'],
        ),
        (_pod(containers=[{"name": "web"}]), ["spec.containers[0].image: Required value"]),
        (
            _pod(containers=[_container(image=" nginx")]),
            [
                'spec.containers[0].image: Invalid value: " nginx": must not have leading or '
                "trailing whitespace"
            ],
        ),
        (
            _pod(containers=[_container(restartPolicy="Always")]),
            ["spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers"],
        ),
        (
            _pod(containers=[_container(imagePullPolicy="Sometimes")]),
            [
                'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported '
                'values: "Always", "IfNotPresent", "Never"'
            ],
        ),
        (
            _pod(containers=[_container(terminationMessagePolicy="Log")]),
            [
                'spec.containers[0].terminationMessagePolicy: Unsupported value: "Log": '
                'supported values: "FallbackToLogsOnError", "File"'
            ],
        ),
        (
            _pod(initContainers=[_container(restartPolicy="Never")]),
            [
                'spec.initContainers[0].restartPolicy: Unsupported value: "Never": supported '
                'values: "Always"',
                'spec.initContainers[0].name: Duplicate value: "web"',
            ],
        ),
        (
            _pod(initContainers=[_container(name="init", restartPolicy="Always")]),
            [],
        ),
        (
            _pod(restartPolicy="Sometimes"),
            [
                'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", '
                '"Never", "OnFailure"'
            ],
        ),
        (
            _pod(dnsPolicy="Google"),
            [
                'spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirst", '
                '"ClusterFirstWithHostNet", "Default", "None"'
            ],
        ),
        (
            _pod(activeDeadlineSeconds=0),
            [
                "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, "
                "inclusive"
            ],
        ),
        (
            _pod(nodeSelector={"disk": "a/b"}),
            [f'spec.nodeSelector: Invalid value: "a/b": {VALUE_MSG}'],
        ),
        (
            _pod(hostname="a.b"),
            ['spec.hostname: Invalid value: "a.b": must not contain dots'],
        ),
    ],
    ids=[
        "valid",
        "no-containers",
        "container-name-missing",
        "container-name-not-label",
        "container-name-duplicate",
        "image-missing",
        "image-whitespace",
        "restart-policy-on-regular-container",
        "image-pull-policy",
        "termination-message-policy",
        "init-container-restart-policy-and-name-clash",
        "sidecar-init-container",
        "restart-policy",
        "dns-policy",
        "active-deadline-zero",
        "node-selector-value",
        "hostname-not-label",
    ],
)
def test_validate_pod(pod: dict[str, Any], expected: list[str]) -> None:
    assert _messages(pod) == expected


def test_pod_metadata_is_validated() -> None:
    pod = _pod()
    pod["metadata"] = {"name": "Web_1"}
    messages = _messages(pod)
    assert messages[0].startswith('metadata.name: Invalid value: "Web_1": a lowercase RFC 1123')
    assert messages[1] == "metadata.namespace: Required value"


@pytest.mark.parametrize(
    ("ports", "expected"),
    [
        ([{"containerPort": 80, "name": "http", "protocol": "TCP"}], []),
        ([{"containerPort": 0}], ["spec.containers[0].ports[0].containerPort: Required value"]),
        (
            [{"containerPort": 70000}],
            [
                "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between "
                "1 and 65535, inclusive"
            ],
        ),
        (
            [{"containerPort": 80, "hostPort": -1}],
            [
                "spec.containers[0].ports[0].hostPort: Invalid value: -1: must be between 1 and "
                "65535, inclusive"
            ],
        ),
        (
            [{"containerPort": 80, "protocol": "HTTP"}],
            [
                'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported '
                'values: "SCTP", "TCP", "UDP"'
            ],
        ),
        (
            [{"containerPort": 80, "name": "HTTP"}],
            [
                'spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain only '
                "alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                'spec.containers[0].ports[0].name: Invalid value: "HTTP": must contain at least '
                "one letter (a-z)",
            ],
        ),
        (
            [{"containerPort": 80, "name": "web"}, {"containerPort": 81, "name": "web"}],
            ['spec.containers[0].ports[1].name: Duplicate value: "web"'],
        ),
    ],
    ids=[
        "valid",
        "port-missing",
        "port-too-high",
        "host-port-negative",
        "bad-protocol",
        "bad-port-name",
        "duplicate-port-name",
    ],
)
def test_container_ports(ports: list[dict[str, Any]], expected: list[str]) -> None:
    assert _messages(_pod(containers=[_container(ports=ports)])) == expected


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": 1}}, []),
        (
            {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}},
            ['r.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
        ),
        (
            {"requests": {"cpu": "1.5"}, "limits": {"cpu": "1"}},
            ['r.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1'],
        ),
        ({"requests": {"cpu": "1"}, "limits": {"cpu": "1000m"}}, []),
        (
            {"requests": {"cpu": "-1"}},
            ['r.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0'],
        ),
        (
            {"limits": {"memory": "lots"}},
            [f'r.limits[memory]: Invalid value: "lots": {QUANTITY_MSG}'],
        ),
        (
            {"requests": {"foo": "1"}},
            [
                'r.requests[foo]: Invalid value: "foo": must be a standard resource type or fully '
                "qualified",
                'r.requests[foo]: Invalid value: "foo": must be a standard resource for containers',
            ],
        ),
        (
            {"requests": {"pods": "500m"}},
            [
                'r.requests[pods]: Invalid value: "pods": must be a standard resource for '
                "containers",
                'r.requests[pods]: Invalid value: "500m": must be an integer',
            ],
        ),
        (
            {"requests": {"pods": "1"}},
            ['r.requests[pods]: Invalid value: "pods": must be a standard resource for containers'],
        ),
        (
            {"requests": {"example.com/gpu": "1"}},
            ["r.limits: Required value: Limit must be set for non overcommitable resources"],
        ),
        (
            {"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "2"}},
            ['r.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2'],
        ),
        (
            {"limits": {"example.com/gpu": "500m"}},
            ['r.limits[example.com/gpu]: Invalid value: "500m": must be an integer'],
        ),
        ({"requests": {"example.com/gpu": "2"}, "limits": {"example.com/gpu": "2"}}, []),
        (
            {"limits": {"hugepages-2Mi": "2Mi"}},
            ["r: Forbidden: HugePages require cpu or memory"],
        ),
        ({"limits": {"hugepages-2Mi": "2Mi", "memory": "1Gi"}}, []),
    ],
    ids=[
        "valid",
        "request-above-limit",
        "request-above-limit-canonical",
        "equal-in-different-units",
        "negative",
        "unparsable-quantity",
        "unknown-resource",
        "fractional-integer-resource",
        "non-container-resource",
        "extended-without-limit",
        "extended-request-not-limit",
        "extended-fractional",
        "extended-equal",
        "hugepages-alone",
        "hugepages-with-memory",
    ],
)
def test_validate_resource_requirements(resources: dict[str, Any], expected: list[str]) -> None:
    errors = validate_resource_requirements(resources, FieldPath("r"))
    assert [str(e) for e in errors] == expected


def test_container_resources_use_container_path() -> None:
    pod = _pod(containers=[_container(resources={"requests": {"cpu": "2"}, "limits": {"cpu": 1}})])
    assert _messages(pod) == [
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal '
        "to cpu limit of 1"
    ]


@pytest.mark.parametrize(
    ("cost", "valid"),
    [
        ("100", True),
        ("0", True),
        ("-5", True),
        ("-2147483648", True),
        ("2147483647", True),
        ("2147483648", False),
        ("abc", False),
        ("+10", False),
        ("007", False),
        ("", False),
        ("-", False),
        ("1_000", False),
        (" 1", False),
    ],
    ids=[
        "positive",
        "zero",
        "negative",
        "int32-min",
        "int32-max",
        "above-int32",
        "letters",
        "plus-sign",
        "leading-zeros",
        "empty",
        "bare-minus",
        "underscore",
        "leading-space",
    ],
)
def test_pod_deletion_cost(cost: str, valid: bool) -> None:
    pod = _pod()
    pod["metadata"]["annotations"] = {COST: cost}
    expected = (
        []
        if valid
        else [f'metadata.annotations[{COST}]: Invalid value: "{cost}": must be a 32bit integer']
    )
    assert _messages(pod) == expected


@given(st.integers(min_value=-(2**40), max_value=2**40))
def test_deletion_cost_accepts_exactly_int32(value: int) -> None:
    errors = validate_pod_specific_annotations({COST: str(value)}, {}, FieldPath("a"))
    assert (errors == []) == (-(2**31) <= value < 2**31)


TEMPLATE: dict[str, Any] = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "web", "image": "nginx"}]},
}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, []),
        (
            {"metadata": {"labels": {"app": "a/b"}}},
            [f'spec.template.labels: Invalid value: "a/b": {VALUE_MSG}'],
        ),
        (
            {"metadata": {"annotations": {COST: "abc"}}},
            [f'spec.template.annotations[{COST}]: Invalid value: "abc": must be a 32bit integer'],
        ),
        (
            {"spec": {"containers": []}},
            ["spec.template.spec.containers: Required value"],
        ),
        (
            {
                "spec": {
                    "containers": [{"name": "web", "image": "nginx"}],
                    "ephemeralContainers": [{"name": "debug", "image": "busybox"}],
                }
            },
            [
                "spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not "
                "allowed in pod template"
            ],
        ),
    ],
    ids=["valid", "bad-label", "bad-deletion-cost", "no-containers", "ephemeral-containers"],
)
def test_validate_pod_template_spec(changes: dict[str, Any], expected: list[str]) -> None:
    template = {**TEMPLATE, **changes}
    errors = validate_pod_template_spec(template, FieldPath("spec", "template"))
    assert [str(e) for e in errors] == expected


FORBIDDEN_UPDATE = (
    "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
    "set to 1 if it was previously negative)"
)


def _updated(old: dict[str, Any], **spec: Any) -> dict[str, Any]:
    new = copy.deepcopy(old)
    new["spec"].update(spec)
    return new


OLD_POD = _pod(activeDeadlineSeconds=100)


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        (copy.deepcopy(OLD_POD), []),
        (_updated(OLD_POD, containers=[_container(image="nginx:2")]), []),
        (_updated(OLD_POD, activeDeadlineSeconds=50), []),
        (
            _updated(OLD_POD, activeDeadlineSeconds=200),
            [
                "spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to "
                "previous value"
            ],
        ),
        (
            _updated(OLD_POD, containers=[_container(), _container(name="b")]),
            ["spec.containers: Forbidden: pod updates may not add or remove containers"],
        ),
        (
            _updated(OLD_POD, containers=[_container(ports=[{"containerPort": 80}])]),
            [FORBIDDEN_UPDATE],
        ),
        (_updated(OLD_POD, nodeName="node-2"), [FORBIDDEN_UPDATE]),
    ],
    ids=[
        "unchanged",
        "image-change",
        "deadline-lowered",
        "deadline-raised",
        "container-added",
        "port-added",
        "node-name-set",
    ],
)
def test_validate_pod_update(new: dict[str, Any], expected: list[str]) -> None:
    assert [str(e) for e in validate_pod_update(new, OLD_POD)] == expected


def test_pod_update_cannot_drop_active_deadline() -> None:
    new = copy.deepcopy(OLD_POD)
    del new["spec"]["activeDeadlineSeconds"]
    assert [str(e) for e in validate_pod_update(new, OLD_POD)] == [
        "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer "
        "to nil value"
    ]


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}, []),
        (
            {"conditions": [{"type": "example.com/-bad", "status": "True"}]},
            [
                'metadata.conditions[0].Type: Invalid value: "example.com/-bad": name part must '
                "consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
                "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ],
        ),
        (
            {"qosClass": "Guaranteed"},
            ['status.qosClass: Invalid value: "Guaranteed": field is immutable'],
        ),
    ],
    ids=["valid", "bad-custom-condition", "qos-class-changed"],
)
def test_validate_pod_status_update(status: dict[str, Any], expected: list[str]) -> None:
    old = {**_pod(), "status": {"qosClass": "BestEffort"}}
    new = {**_pod(), "status": {"qosClass": "BestEffort", **status}}
    assert [str(e) for e in validate_pod_status_update(new, old)] == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            {"ephemeralContainers": [{"name": "debug", "image": "busybox"}]},
            ["spec.ephemeralContainers: Forbidden: cannot be set on create"],
        ),
        (
            {"nodeName": "node-1", "schedulingGates": [{"name": "example.com/wait"}]},
            ["spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"],
        ),
    ],
    ids=["ephemeral-containers", "node-name-with-gates"],
)
def test_create_only_pod_rules(spec: dict[str, Any], expected: list[str]) -> None:
    assert _messages(_pod(**spec)) == expected


def test_pod_update_repeats_image_errors_like_upstream() -> None:
    new = _updated(OLD_POD, containers=[_container(image=" nginx:2")])
    whitespace = (
        'spec.containers[0].image: Invalid value: " nginx:2": must not have leading or trailing '
        "whitespace"
    )
    assert [str(e) for e in validate_pod_update(new, OLD_POD)] == [whitespace, whitespace]
