"""Tests for podscale.api.validation.apps: ReplicaSet, Deployment and StatefulSet rules."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from podscale.api.validation.apps import (
    validate_deployment,
    validate_deployment_status_update,
    validate_deployment_update,
    validate_replica_set,
    validate_replica_set_status_update,
    validate_replica_set_update,
    validate_stateful_set,
    validate_stateful_set_status_update,
    validate_stateful_set_update,
)

VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
PERCENT_MSG = (
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or "
    "'93%', regex used for validation is '[0-9]+%')"
)
MISMATCH = "`selector` does not match template `labels`"


def _workload(kind: str, **spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx"}]},
        },
    }
    base.update(spec)
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "web", "namespace": "default", "resourceVersion": "1"},
        "spec": base,
    }


def _template(labels: dict[str, str] | None = None, **pod_spec: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "web", "image": "nginx"}]}
    spec.update(pod_spec)
    meta: dict[str, Any] = {} if labels is None else {"labels": labels}
    return {"metadata": meta, "spec": spec}


# Rules shared by ReplicaSets and Deployments (ValidatePodTemplateSpecForReplicaSet).
SHARED_CASES: list[tuple[dict[str, Any], list[str]]] = [
    ({}, []),
    ({"replicas": -1}, ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]),
    (
        {"minReadySeconds": -1},
        ["spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        {"selector": None},
        [
            "spec.selector: Required value",
            f'spec.template.metadata.labels: Invalid value: {{"app":"web"}}: {MISMATCH}',
        ],
    ),
    (
        {"selector": {}},
        ["spec.selector: Invalid value: {}: empty selector is invalid for deployment"],
    ),
    (
        {"selector": {"matchLabels": {"app": "other"}}},
        [f'spec.template.metadata.labels: Invalid value: {{"app":"web"}}: {MISMATCH}'],
    ),
    (
        {"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}},
        [],
    ),
    (
        {"selector": {"matchExpressions": [{"key": "app", "operator": "Foo"}]}},
        [
            'spec.selector.matchExpressions[0].operator: Invalid value: "Foo": not a valid '
            "selector operator",
            'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Foo"}]}: '
            "invalid label selector",
        ],
    ),
    (
        {"selector": {"matchLabels": {"app": "a/b"}}},
        [
            f'spec.selector.matchLabels: Invalid value: "a/b": {VALUE_MSG}',
            'spec.selector: Invalid value: {"matchLabels":{"app":"a/b"}}: invalid label selector',
        ],
    ),
    (
        {"template": _template()},
        [f"spec.template.metadata.labels: Invalid value: null: {MISMATCH}"],
    ),
    (
        {"template": _template({"app": "web"}, restartPolicy="Never")},
        [
            'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: '
            '"Always"'
        ],
    ),
    (
        {"template": _template({"app": "web"}, activeDeadlineSeconds=10)},
        [
            "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in "
            "ReplicaSet is not Supported"
        ],
    ),
    (
        {"template": _template({"app": "web"}, containers=[])},
        ["spec.template.spec.containers: Required value"],
    ),
    (
        {"template": {**_template({"app": "web", "tier": "a/b"})}},
        [f'spec.template.labels: Invalid value: "a/b": {VALUE_MSG}'],
    ),
]
SHARED_IDS = [
    "valid",
    "negative-replicas",
    "negative-min-ready",
    "selector-missing",
    "selector-empty",
    "selector-mismatch",
    "selector-expression-match",
    "selector-bad-operator",
    "selector-bad-value",
    "template-without-labels",
    "template-restart-never",
    "template-active-deadline",
    "template-no-containers",
    "template-bad-label",
]


@pytest.mark.parametrize(("spec", "expected"), SHARED_CASES, ids=SHARED_IDS)
def test_replica_set_spec(spec: dict[str, Any], expected: list[str]) -> None:
    errors = validate_replica_set(_workload("ReplicaSet", **spec))
    assert [str(e) for e in errors] == expected


@pytest.mark.parametrize(("spec", "expected"), SHARED_CASES, ids=SHARED_IDS)
def test_deployment_shares_replica_set_rules(spec: dict[str, Any], expected: list[str]) -> None:
    errors = validate_deployment(_workload("Deployment", **spec))
    assert [str(e) for e in errors] == expected


def test_replica_set_metadata_is_validated() -> None:
    rs = _workload("ReplicaSet")
    rs["metadata"] = {"name": "web"}
    assert [str(e) for e in validate_replica_set(rs)] == ["metadata.namespace: Required value"]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"strategy": {"type": "Recreate"}}, []),
        (
            {"strategy": {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}},
            [
                "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy "
                "`type` is 'Recreate'"
            ],
        ),
        (
            {"strategy": {"type": "BlueGreen"}},
            [
                'spec.strategy: Unsupported value: {"type":"BlueGreen"}: supported values: '
                '"Recreate", "RollingUpdate"'
            ],
        ),
        ({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0}}}, []),
        (
            {"strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}},
            [
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when "
                "`maxSurge` is 0"
            ],
        ),
        (
            {"strategy": {"rollingUpdate": {"maxSurge": "0%", "maxUnavailable": "0%"}}},
            [
                'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 '
                "when `maxSurge` is 0"
            ],
        ),
        (
            {"strategy": {"rollingUpdate": {"maxUnavailable": "150%"}}},
            [
                'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be '
                "greater than 100%"
            ],
        ),
        ({"strategy": {"rollingUpdate": {"maxSurge": "150%"}}}, []),
        (
            {"strategy": {"rollingUpdate": {"maxSurge": -1}}},
            [
                "spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or "
                "equal to 0"
            ],
        ),
        (
            {"strategy": {"rollingUpdate": {"maxSurge": "abc", "maxUnavailable": 0}}},
            [
                f'spec.strategy.rollingUpdate.maxSurge: Invalid value: "abc": {PERCENT_MSG}',
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when "
                "`maxSurge` is 0",
            ],
        ),
        (
            {"strategy": {"rollingUpdate": {"maxSurge": 1.5}}},
            [
                "spec.strategy.rollingUpdate.maxSurge: Invalid value: 1.5: must be an integer or "
                "percentage (e.g '5%%')"
            ],
        ),
        (
            {"revisionHistoryLimit": -1},
            ["spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0"],
        ),
        ({"revisionHistoryLimit": 0}, []),
        (
            {"minReadySeconds": 10, "progressDeadlineSeconds": 10},
            [
                "spec.progressDeadlineSeconds: Invalid value: 10: must be greater than "
                "minReadySeconds"
            ],
        ),
        (
            {"minReadySeconds": 700},
            [
                "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than "
                "minReadySeconds"
            ],
        ),
        (
            {"progressDeadlineSeconds": -1},
            [
                "spec.progressDeadlineSeconds: Invalid value: -1: must be greater than or equal "
                "to 0",
                "spec.progressDeadlineSeconds: Invalid value: -1: must be greater than "
                "minReadySeconds",
            ],
        ),
    ],
    ids=[
        "recreate",
        "recreate-with-rolling-update",
        "unknown-strategy",
        "surge-zero-unavailable-default",
        "both-zero",
        "both-zero-percent",
        "unavailable-over-100",
        "surge-over-100-allowed",
        "negative-surge",
        "bad-percent-counts-as-zero",
        "float-surge",
        "negative-revision-history",
        "zero-revision-history",
        "deadline-equals-min-ready",
        "default-deadline-below-min-ready",
        "negative-deadline",
    ],
)
def test_deployment_spec(spec: dict[str, Any], expected: list[str]) -> None:
    errors = validate_deployment(_workload("Deployment", **spec))
    assert [str(e) for e in errors] == expected


@pytest.mark.parametrize(
    ("validate", "kind"),
    [(validate_replica_set_update, "ReplicaSet"), (validate_deployment_update, "Deployment")],
    ids=["replica-set", "deployment"],
)
def test_selector_is_immutable(validate: Any, kind: str) -> None:
    old = _workload(kind)
    new = copy.deepcopy(old)
    new["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "x"}}
    new["spec"]["template"]["metadata"]["labels"]["tier"] = "x"
    assert [str(e) for e in validate(new, old)] == [
        'spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: field is immutable'
    ]
    scaled = copy.deepcopy(old)
    scaled["spec"]["replicas"] = 5
    assert validate(scaled, old) == []


def test_update_checks_metadata() -> None:
    old = _workload("Deployment")
    new = copy.deepcopy(old)
    new["metadata"]["name"] = "other"
    assert [str(e) for e in validate_deployment_update(new, old)] == [
        'metadata.name: Invalid value: "other": field is immutable'
    ]


def _with_status(kind: str, **status: Any) -> dict[str, Any]:
    obj = _workload(kind)
    obj["status"] = status
    return obj


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ({"replicas": 3, "readyReplicas": 3, "availableReplicas": 2}, []),
        (
            {"replicas": 2, "readyReplicas": 3, "availableReplicas": 3, "fullyLabeledReplicas": 3},
            [
                "status.fullyLabeledReplicas: Invalid value: 3: cannot be greater than "
                "status.replicas",
                "status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas",
                "status.availableReplicas: Invalid value: 3: cannot be greater than "
                "status.replicas",
            ],
        ),
        (
            {"replicas": 3, "readyReplicas": 1, "availableReplicas": 2},
            ["status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas"],
        ),
        (
            {"replicas": -1, "observedGeneration": -1},
            [
                "status.replicas: Invalid value: -1: must be greater than or equal to 0",
                "status.observedGeneration: Invalid value: -1: must be greater than or equal to 0",
                # Upstream compares the zero counts against the negative total as well.
                "status.fullyLabeledReplicas: Invalid value: 0: cannot be greater than "
                "status.replicas",
                "status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas",
                "status.availableReplicas: Invalid value: 0: cannot be greater than "
                "status.replicas",
            ],
        ),
    ],
    ids=["valid", "above-replicas", "available-above-ready", "negative"],
)
def test_replica_set_status(status: dict[str, Any], expected: list[str]) -> None:
    old = _workload("ReplicaSet")
    errors = validate_replica_set_status_update(_with_status("ReplicaSet", **status), old)
    assert [str(e) for e in errors] == expected


@pytest.mark.parametrize(
    ("status", "old_status", "expected"),
    [
        ({"replicas": 3, "updatedReplicas": 3, "readyReplicas": 3}, {}, []),
        (
            {"replicas": 1, "updatedReplicas": 2},
            {},
            ["status.updatedReplicas: Invalid value: 2: cannot be greater than status.replicas"],
        ),
        (
            {"unavailableReplicas": -1},
            {},
            ["status.unavailableReplicas: Invalid value: -1: must be greater than or equal to 0"],
        ),
        (
            {"collisionCount": 1},
            {"collisionCount": 2},
            ["status.collisionCount: Invalid value: 1: cannot be decremented"],
        ),
        (
            {},
            {"collisionCount": 2},
            ["status.collisionCount: Invalid value: 0: cannot be decremented"],
        ),
    ],
    ids=["valid", "updated-above-replicas", "negative-unavailable", "collision-down", "dropped"],
)
def test_deployment_status(
    status: dict[str, Any], old_status: dict[str, Any], expected: list[str]
) -> None:
    old = _with_status("Deployment", **old_status)
    errors = validate_deployment_status_update(_with_status("Deployment", **status), old)
    assert [str(e) for e in errors] == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, []),
        (
            {"selector": {}},
            ["spec.selector: Invalid value: {}: empty selector is invalid for statefulset"],
        ),
        (
            {"selector": {"matchExpressions": [{"key": "app", "operator": "Foo"}]}},
            [
                'spec.selector.matchExpressions[0].operator: Invalid value: "Foo": not a valid '
                "selector operator",
                'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":'
                '"Foo"}]}',
            ],
        ),
        (
            {"podManagementPolicy": "Random"},
            [
                "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or "
                "'Parallel'"
            ],
        ),
        (
            {"updateStrategy": {"type": "OnDelete", "rollingUpdate": {"partition": 1}}},
            [
                'spec.updateStrategy.rollingUpdate: Invalid value: {"partition":1}: only allowed '
                "for updateStrategy 'RollingUpdate'"
            ],
        ),
        (
            {"updateStrategy": {"type": "Sometimes"}},
            [
                'spec.updateStrategy: Invalid value: {"type":"Sometimes"}: must be '
                "'RollingUpdate' or 'OnDelete'"
            ],
        ),
        (
            {"updateStrategy": {"rollingUpdate": {"partition": -1, "maxUnavailable": 0}}},
            [
                "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater "
                "than or equal to 0",
                "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0",
            ],
        ),
        (
            {"ordinals": {"start": -1}},
            ["spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"],
        ),
        (
            {"template": _template({"app": "web"}, containers=[], activeDeadlineSeconds=5)},
            [
                "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in "
                "StatefulSet is not Supported"
            ],
        ),
        (
            {"persistentVolumeClaimRetentionPolicy": {"whenScaled": "Keep"}},
            [
                "spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: "
                '"Keep": supported values: "Delete", "Retain"'
            ],
        ),
    ],
    ids=[
        "valid",
        "empty-selector",
        "bad-selector-has-no-detail",
        "pod-management-policy",
        "on-delete-with-rolling-update",
        "unknown-update-strategy",
        "partition-and-max-unavailable",
        "negative-ordinal-start",
        "pod-spec-not-validated-but-deadline-is",
        "retention-policy",
    ],
)
def test_stateful_set_spec(spec: dict[str, Any], expected: list[str]) -> None:
    errors = validate_stateful_set(_workload("StatefulSet", **spec))
    assert [str(e) for e in errors] == expected


def test_stateful_set_name_must_be_dns_label() -> None:
    sts = _workload("StatefulSet")
    sts["metadata"]["name"] = "web.v1"
    assert [str(e) for e in validate_stateful_set(sts)] == [
        'metadata.name: Invalid value: "web.v1": must not contain dots'
    ]


def test_stateful_set_update_freezes_most_of_spec() -> None:
    old = _workload("StatefulSet", serviceName="web")
    allowed = copy.deepcopy(old)
    allowed["spec"]["replicas"] = 5
    allowed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    assert validate_stateful_set_update(allowed, old) == []
    frozen = copy.deepcopy(old)
    frozen["spec"]["serviceName"] = "other"
    assert [str(e) for e in validate_stateful_set_update(frozen, old)] == [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', "
        "'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
        "'minReadySeconds' are forbidden"
    ]


def test_stateful_set_status_says_status_ready_replicas() -> None:
    old = _workload("StatefulSet")
    new = _with_status("StatefulSet", replicas=3, readyReplicas=1, availableReplicas=2)
    assert [str(e) for e in validate_stateful_set_status_update(new, old)] == [
        "status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas"
    ]
