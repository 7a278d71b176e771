"""``validate_hpa``: metadata, replica bounds, scaleTargetRef, updates, status, v1 and /scale.

Metric rules live in test_hpa_metrics.py, behavior rules in test_hpa_behavior.py. Each row
asserts the full rendered error list (upstream ``field.Error`` text).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES, HPA_SCALE_TO_ZERO
from podscale.api.validation.hpa import spec_options_for, validate_hpa, validate_scale

SCALE_TO_ZERO = DEFAULT_FEATURE_GATES | {HPA_SCALE_TO_ZERO}
CPU_METRIC = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
}
EXTERNAL_METRIC = {
    "type": "External",
    "external": {
        "metric": {"name": "queue"},
        "target": {"type": "AverageValue", "averageValue": "30"},
    },
}
BASE: dict[str, Any] = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 10,
        "metrics": [CPU_METRIC],
    },
}
_DELETE = object()
ZERO_NEEDS_METRIC = (
    "spec.metrics: Forbidden: must specify at least one Object or External metric to support "
    "scaling to zero replicas"
)
SUBDOMAIN_REGEX = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def _with(obj: dict[str, Any] = BASE, **changes: Any) -> dict[str, Any]:
    """A copy of ``obj`` with dotted paths (``spec__minReplicas``) set, or removed by _DELETE."""
    out = copy.deepcopy(obj)
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        node = out
        for key in parents:
            node = node.setdefault(key, {})
        if value is _DELETE:
            node.pop(last, None)
        else:
            node[last] = value
    return out


def _errors(obj: dict[str, Any], **kwargs: Any) -> list[str]:
    return [str(e) for e in validate_hpa(obj, **kwargs)]


def _ref(**fields: str) -> dict[str, str]:
    ref = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    ref.update(fields)
    return ref


CREATE_ERRORS = [
    (
        "name-not-subdomain",
        _with(metadata__name="My_HPA"),
        [f'metadata.name: Invalid value: "My_HPA": {SUBDOMAIN_REGEX}'],
    ),
    (
        "name-missing",
        _with(metadata__name=_DELETE),
        ["metadata.name: Required value: name or generateName is required"],
    ),
    (
        "min-negative",
        _with(spec__minReplicas=-1),
        ["spec.minReplicas: Invalid value: -1: must be greater than or equal to 1"],
    ),
    (
        "min-zero-without-gate",
        _with(spec__minReplicas=0),
        # Upstream checks the metric rule whatever the gate, so both errors appear.
        [
            "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
            ZERO_NEEDS_METRIC,
        ],
    ),
    (
        "max-zero",
        _with(spec__maxReplicas=0, spec__minReplicas=_DELETE),
        ["spec.maxReplicas: Invalid value: 0: must be greater than 0"],
    ),
    (
        "max-missing-reads-as-zero",
        _with(spec__maxReplicas=_DELETE),
        [
            "spec.maxReplicas: Invalid value: 0: must be greater than 0",
            "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
        ],
    ),
    (
        "max-below-min",
        _with(spec__minReplicas=5, spec__maxReplicas=3),
        ["spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`"],
    ),
    (
        "target-kind-missing",
        _with(spec__scaleTargetRef=_ref(kind="")),
        ["spec.scaleTargetRef.kind: Required value"],
    ),
    (
        "target-kind-dotdot",
        _with(spec__scaleTargetRef=_ref(kind="..")),
        ["spec.scaleTargetRef.kind: Invalid value: \"..\": may not be '..'"],
    ),
    (
        "target-name-missing",
        _with(spec__scaleTargetRef=_ref(name="")),
        ["spec.scaleTargetRef.name: Required value"],
    ),
    (
        "target-name-slash",
        _with(spec__scaleTargetRef=_ref(name="a/b")),
        ["spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'"],
    ),
    (
        "target-name-dot",
        _with(spec__scaleTargetRef=_ref(name=".")),
        ["spec.scaleTargetRef.name: Invalid value: \".\": may not be '.'"],
    ),
    (
        "target-name-percent",
        _with(spec__scaleTargetRef=_ref(name="a%b")),
        ["spec.scaleTargetRef.name: Invalid value: \"a%b\": may not contain '%'"],
    ),
    (
        "target-api-version-missing",
        _with(spec__scaleTargetRef=_ref(apiVersion="")),
        ['spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group'],
    ),
    (
        "target-api-version-core",
        _with(spec__scaleTargetRef=_ref(apiVersion="v1")),
        ['spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group'],
    ),
    (
        "target-api-version-malformed",
        _with(spec__scaleTargetRef=_ref(apiVersion="apps/v1/x")),
        [
            'spec.scaleTargetRef.apiVersion: Invalid value: "apps/v1/x": unexpected GroupVersion '
            "string: apps/v1/x"
        ],
    ),
    (
        "target-missing",
        _with(spec__scaleTargetRef=_DELETE),
        [
            "spec.scaleTargetRef.kind: Required value",
            "spec.scaleTargetRef.name: Required value",
            'spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group',
        ],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [c[1:] for c in CREATE_ERRORS], ids=[c[0] for c in CREATE_ERRORS]
)
def test_create_rule(obj: dict[str, Any], expected: list[str]) -> None:
    assert _errors(obj) == expected


SCALE_TO_ZERO_CASES = [
    (
        "zero-needs-object-or-external",
        _with(spec__minReplicas=0),
        [ZERO_NEEDS_METRIC],
    ),
    (
        "zero-without-metrics",
        _with(spec__minReplicas=0, spec__metrics=_DELETE),
        [ZERO_NEEDS_METRIC],
    ),
    (
        "zero-with-external",
        _with(spec__minReplicas=0, spec__metrics=[CPU_METRIC, EXTERNAL_METRIC]),
        [],
    ),
    (
        "negative-bound-is-zero",
        _with(spec__minReplicas=-1, spec__metrics=[EXTERNAL_METRIC]),
        ["spec.minReplicas: Invalid value: -1: must be greater than or equal to 0"],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [c[1:] for c in SCALE_TO_ZERO_CASES],
    ids=[c[0] for c in SCALE_TO_ZERO_CASES],
)
def test_scale_to_zero_gate(obj: dict[str, Any], expected: list[str]) -> None:
    assert _errors(obj, feature_gates=SCALE_TO_ZERO) == expected


VALID_CREATES = [
    ("base", BASE),
    ("min-replicas-absent-means-not-set", _with(spec__minReplicas=_DELETE)),
    ("min-equals-max", _with(spec__minReplicas=10)),
    (
        "replication-controller-core-group",
        _with(
            spec__scaleTargetRef={"apiVersion": "v1", "kind": "ReplicationController", "name": "rc"}
        ),
    ),
    (
        "replication-controller-no-api-version",
        _with(spec__scaleTargetRef={"kind": "ReplicationController", "name": "rc"}),
    ),
    ("no-metrics", _with(spec__metrics=_DELETE)),
    ("unknown-fields-ignored", _with(spec__futureField={"x": 1})),
    # The Kubernetes HPA walkthrough: php-apache at 50% CPU.
    (
        "docs-cpu-50",
        {
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "php-apache", "namespace": "default"},
            "spec": {
                "scaleTargetRef": {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": "php-apache",
                },
                "minReplicas": 1,
                "maxReplicas": 10,
                "metrics": [CPU_METRIC],
            },
        },
    ),
    # The walkthrough's "autoscaling on multiple metrics and custom metrics" example.
    (
        "docs-multiple-metrics",
        _with(
            spec__metrics=[
                CPU_METRIC,
                {
                    "type": "Pods",
                    "pods": {
                        "metric": {"name": "packets-per-second"},
                        "target": {"type": "AverageValue", "averageValue": "1k"},
                    },
                },
                {
                    "type": "Object",
                    "object": {
                        "metric": {"name": "requests-per-second"},
                        "describedObject": {
                            "apiVersion": "networking.k8s.io/v1",
                            "kind": "Ingress",
                            "name": "main-route",
                        },
                        "target": {"type": "Value", "value": "10k"},
                    },
                },
                {
                    "type": "External",
                    "external": {
                        "metric": {
                            "name": "queue_messages_ready",
                            "selector": {"matchLabels": {"queue": "worker_tasks"}},
                        },
                        "target": {"type": "AverageValue", "averageValue": "30"},
                    },
                },
            ]
        ),
    ),
    # The HPA concept page's behavior examples, including the spelled-out default behavior.
    (
        "docs-default-behavior",
        _with(
            spec__behavior={
                "scaleDown": {
                    "stabilizationWindowSeconds": 300,
                    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
                },
                "scaleUp": {
                    "stabilizationWindowSeconds": 0,
                    "policies": [
                        {"type": "Percent", "value": 100, "periodSeconds": 15},
                        {"type": "Pods", "value": 4, "periodSeconds": 15},
                    ],
                    "selectPolicy": "Max",
                },
            }
        ),
    ),
    (
        "docs-scale-down-policies",
        _with(
            spec__behavior={
                "scaleDown": {
                    "policies": [
                        {"type": "Pods", "value": 4, "periodSeconds": 60},
                        {"type": "Percent", "value": 10, "periodSeconds": 60},
                    ],
                    "selectPolicy": "Min",
                },
            }
        ),
    ),
    ("docs-disable-scale-down", _with(spec__behavior={"scaleDown": {"selectPolicy": "Disabled"}})),
    ("docs-tolerance", _with(spec__behavior={"scaleUp": {"tolerance": "0.05"}})),
]


@pytest.mark.parametrize("obj", [c[1] for c in VALID_CREATES], ids=[c[0] for c in VALID_CREATES])
def test_valid_create(obj: dict[str, Any]) -> None:
    assert _errors(obj) == []


def test_input_is_not_modified() -> None:
    obj = _with(spec__minReplicas=0, spec__behavior={"scaleUp": {"tolerance": "-1"}})
    before = copy.deepcopy(obj)
    validate_hpa(obj)
    assert obj == before


UPDATE_CASES = [
    (
        "old-zero-min-ratchets",
        _with(spec__minReplicas=0, spec__metrics=[EXTERNAL_METRIC]),
        _with(spec__minReplicas=0, spec__metrics=[EXTERNAL_METRIC]),
        [],
    ),
    (
        "old-one-min-does-not",
        _with(spec__minReplicas=0, spec__metrics=[EXTERNAL_METRIC]),
        BASE,
        ["spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"],
    ),
    (
        "unchanged-bad-target-api-version-kept",
        _with(spec__scaleTargetRef=_ref(apiVersion="v1"), spec__maxReplicas=20),
        _with(spec__scaleTargetRef=_ref(apiVersion="v1")),
        [],
    ),
    (
        "absent-and-empty-api-version-are-the-same",
        _with(spec__scaleTargetRef=_ref(apiVersion="")),
        _with(spec__scaleTargetRef={"kind": "Deployment", "name": "web"}),
        [],
    ),
    (
        "changed-target-kind-rechecked",
        _with(spec__scaleTargetRef=_ref(apiVersion="v1", kind="StatefulSet")),
        _with(spec__scaleTargetRef=_ref(apiVersion="v1")),
        ['spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group'],
    ),
    (
        "name-immutable",
        _with(metadata__name="other"),
        BASE,
        ['metadata.name: Invalid value: "other": field is immutable'],
    ),
    (
        "spec-still-validated",
        _with(spec__maxReplicas=0, spec__minReplicas=_DELETE),
        BASE,
        ["spec.maxReplicas: Invalid value: 0: must be greater than 0"],
    ),
]


@pytest.mark.parametrize(
    ("new", "old", "expected"), [c[1:] for c in UPDATE_CASES], ids=[c[0] for c in UPDATE_CASES]
)
def test_update_rule(new: dict[str, Any], old: dict[str, Any], expected: list[str]) -> None:
    assert _errors(new, old=old) == expected


def _object_metric(api_version: str) -> dict[str, Any]:
    return {
        "type": "Object",
        "object": {
            "describedObject": {"apiVersion": api_version, "kind": "Service", "name": "svc"},
            "metric": {"name": "hits"},
            "target": {"type": "Value", "value": "1"},
        },
    }


@pytest.mark.parametrize(
    ("old_api_version", "expected"),
    [
        ("a/b/c", []),
        (
            "v1",
            [
                'spec.metrics[0].object.describedObject.apiVersion: Invalid value: "x/y/z": '
                "unexpected GroupVersion string: x/y/z"
            ],
        ),
    ],
    ids=["stored-invalid-ratchets", "stored-valid-rechecks"],
)
def test_object_metric_api_version_ratchet(old_api_version: str, expected: list[str]) -> None:
    new = _with(spec__metrics=[_object_metric("x/y/z")])
    old = _with(spec__metrics=[_object_metric(old_api_version)])
    assert _errors(new, old=old) == expected


def test_spec_options_for_create_and_update() -> None:
    create = spec_options_for(BASE, None, DEFAULT_FEATURE_GATES)
    assert create.min_replicas_lower_bound == 1
    assert not create.scale_target_ref.allow_invalid_api_version
    assert create.object_metrics.allow_empty_api_group
    update = spec_options_for(BASE, BASE, SCALE_TO_ZERO)
    assert update.min_replicas_lower_bound == 0
    assert update.scale_target_ref.allow_invalid_api_version


STATUS_CASES = [
    (
        "current-negative",
        _with(status={"currentReplicas": -1, "desiredReplicas": 0}),
        ["status.currentReplicas: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "desired-negative",
        _with(status={"currentReplicas": 0, "desiredReplicas": -2}),
        ["status.desiredReplicas: Invalid value: -2: must be greater than or equal to 0"],
    ),
    ("spec-not-checked", _with(spec__maxReplicas=0, status={"currentReplicas": 3}), []),
    (
        "metadata-checked",
        _with(metadata__namespace="other"),
        ['metadata.namespace: Invalid value: "other": field is immutable'],
    ),
]


@pytest.mark.parametrize(
    ("new", "expected"), [c[1:] for c in STATUS_CASES], ids=[c[0] for c in STATUS_CASES]
)
def test_status_update(new: dict[str, Any], expected: list[str]) -> None:
    assert _errors(new, old=BASE, subresource="status") == expected


def test_status_update_needs_old() -> None:
    with pytest.raises(ValueError, match="needs the old object"):
        validate_hpa(BASE, subresource="status")


def test_unknown_subresource_rejected() -> None:
    with pytest.raises(ValueError, match="no validation for subresource 'exec'"):
        validate_hpa(BASE, subresource="exec")


V1_BASE: dict[str, Any] = {
    "apiVersion": "autoscaling/v1",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 10,
        "targetCPUUtilizationPercentage": 50,
    },
}

V1_CASES = [
    ("valid", V1_BASE, []),
    ("no-cpu-target", _with(V1_BASE, spec__targetCPUUtilizationPercentage=_DELETE), []),
    (
        "cpu-zero-has-v2-path",
        _with(V1_BASE, spec__targetCPUUtilizationPercentage=0),
        [
            "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater "
            "than 0"
        ],
    ),
    (
        "max-below-min",
        _with(V1_BASE, spec__minReplicas=4, spec__maxReplicas=2),
        ["spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"],
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [c[1:] for c in V1_CASES], ids=[c[0] for c in V1_CASES]
)
def test_v1_is_validated_as_v2(obj: dict[str, Any], expected: list[str]) -> None:
    assert _errors(obj) == expected


def test_v1_with_malformed_spec_is_still_total() -> None:
    errors = _errors(_with(V1_BASE, spec="junk"))
    assert "spec.maxReplicas: Invalid value: 0: must be greater than 0" in errors


def test_v1_status_update() -> None:
    new = _with(V1_BASE, status={"currentReplicas": -1, "desiredReplicas": 1})
    assert _errors(new, old=V1_BASE, subresource="status") == [
        "status.currentReplicas: Invalid value: -1: must be greater than or equal to 0"
    ]


SCALE = {
    "apiVersion": "autoscaling/v1",
    "kind": "Scale",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"replicas": 3},
}


@pytest.mark.parametrize(
    ("replicas", "expected"),
    [
        (3, []),
        (0, []),
        (-1, ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]),
    ],
    ids=["positive", "zero", "negative"],
)
def test_scale(replicas: int, expected: list[str]) -> None:
    scale = _with(SCALE, spec__replicas=replicas)
    assert [str(e) for e in validate_scale(scale)] == expected
    assert _errors(scale, subresource="scale") == expected


@given(
    min_replicas=st.integers(min_value=-5, max_value=50),
    max_replicas=st.integers(min_value=-5, max_value=50),
)
def test_replica_bounds_invariant(min_replicas: int, max_replicas: int) -> None:
    errors = validate_hpa(_with(spec__minReplicas=min_replicas, spec__maxReplicas=max_replicas))
    fields = [e.field for e in errors]
    assert ("spec.minReplicas" in fields) == (min_replicas < 1)
    assert fields.count("spec.maxReplicas") == (max_replicas < 1) + (max_replicas < min_replicas)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "resource",
                    "pods",
                    "object",
                    "external",
                    "containerResource",
                    "target",
                    "value",
                    "averageValue",
                    "averageUtilization",
                    "name",
                    "metric",
                    "describedObject",
                    "kind",
                    "apiVersion",
                    "policies",
                    "scaleUp",
                    "scaleDown",
                    "tolerance",
                    "selectPolicy",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@given(
    metrics=_json,
    behavior=_json,
    ref=_json,
    min_replicas=st.none() | st.integers(-2, 2) | st.text(max_size=2),
)
def test_validation_is_total_on_malformed_specs(
    metrics: Any, behavior: Any, ref: Any, min_replicas: Any
) -> None:
    obj = _with(
        spec__metrics=metrics,
        spec__behavior=behavior,
        spec__scaleTargetRef=ref,
        spec__minReplicas=min_replicas,
    )
    for gates in (DEFAULT_FEATURE_GATES, SCALE_TO_ZERO):
        assert isinstance(validate_hpa(obj, feature_gates=gates), list)
