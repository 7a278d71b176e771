"""Tests for podscale.api.validation.validate: dispatch on kind, version and subresource."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES, HPA_SCALE_TO_ZERO
from podscale.api.validation import FieldError, validate


def _meta(name: str = "web", namespace: str | None = "default", **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, **extra}
    if namespace is not None:
        meta["namespace"] = namespace
    return meta


def _pod(**meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": _meta(**meta),
        "spec": {"containers": [{"name": "web", "image": "nginx"}]},
    }


def _workload(kind: str, **spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx"}]},
        },
    }
    base.update(spec)
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": _meta(), "spec": base}


def _hpa(api_version: str = "autoscaling/v2", **spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 5,
    }
    base.update(spec)
    return {
        "apiVersion": api_version,
        "kind": "HorizontalPodAutoscaler",
        "metadata": _meta(),
        "spec": base,
    }


def _scale(replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": _meta(),
        "spec": {"replicas": replicas},
    }


def _messages(errors: list[FieldError]) -> list[str]:
    return [str(e) for e in errors]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (_pod(), []),
        (_pod(name=""), ["metadata.name: Required value: name or generateName is required"]),
        (_workload("ReplicaSet"), []),
        (
            _workload("ReplicaSet", replicas=-1),
            ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
        ),
        (
            _workload("Deployment", selector={}),
            ["spec.selector: Invalid value: {}: empty selector is invalid for deployment"],
        ),
        (
            _workload("StatefulSet", selector={}),
            ["spec.selector: Invalid value: {}: empty selector is invalid for statefulset"],
        ),
        (
            {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta("a.b", None)},
            ['metadata.name: Invalid value: "a.b": must not contain dots'],
        ),
        (
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": _meta("team-a", None),
                "spec": {"finalizers": ["kubernetes", "cleanup"]},
            },
            [
                'spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer '
                "name nor is it fully qualified"
            ],
        ),
        (
            {"apiVersion": "v1", "kind": "Node", "metadata": _meta("node-1")},
            ["metadata.namespace: Forbidden: not allowed on this type"],
        ),
        ({"apiVersion": "v1", "kind": "Node", "metadata": _meta("node-1", None)}, []),
        (
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": _meta("web.1"),
                "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web"},
            },
            [],
        ),
        (
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": _meta("web.1"),
                "involvedObject": {"kind": "Pod", "namespace": "other", "name": "web"},
            },
            ['involvedObject.namespace: Invalid value: "other": does not match event.namespace'],
        ),
        (
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": _meta("web.1", "team-a"),
                "involvedObject": {"kind": "Node", "name": "node-1"},
                "eventTime": "2026-01-01T00:00:00.000000Z",
                "reportingComponent": "podscale",
                "reportingInstance": "podscale-1",
                "action": "Scale",
            },
            [
                'involvedObject.namespace: Invalid value: "": does not match event.namespace',
                "reason: Required value",
            ],
        ),
        (_hpa(), []),
        (
            _hpa(minReplicas=0),
            [
                "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
                # Upstream's validateMetrics adds this whatever the gate says.
                "spec.metrics: Forbidden: must specify at least one Object or External metric to "
                "support scaling to zero replicas",
            ],
        ),
        (
            _hpa("autoscaling/v1", minReplicas=6),
            ["spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`"],
        ),
        (_scale(3), []),
        (_scale(-1), ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]),
        ({"apiVersion": "v1", "kind": "Unknown", "metadata": {}}, []),
        ({"apiVersion": "apps/v2", "kind": "Deployment", "metadata": {}}, []),
    ],
    ids=[
        "pod-valid",
        "pod-no-name",
        "replica-set-valid",
        "replica-set-negative-replicas",
        "deployment-empty-selector",
        "stateful-set-empty-selector",
        "namespace-name-is-label",
        "namespace-spec-finalizer",
        "node-namespaced",
        "node-valid",
        "event-valid",
        "event-namespace-mismatch",
        "new-style-event-missing-reason",
        "hpa-v2-valid",
        "hpa-v2-min-replicas",
        "hpa-v1-max-below-min",
        "scale-valid",
        "scale-negative",
        "unknown-kind",
        "unknown-version",
    ],
)
def test_validate_create(obj: dict[str, Any], expected: list[str]) -> None:
    assert _messages(validate(obj)) == expected


def test_scale_subresource_is_validated_as_scale() -> None:
    scale = _scale(-1)
    scale["kind"] = "Whatever"
    assert _messages(validate(scale, old=_scale(1), subresource="scale")) == [
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    ]


@pytest.mark.parametrize(
    ("old", "change", "expected"),
    [
        (
            _pod(),
            lambda o: o["metadata"].update(name="other"),
            ['metadata.name: Invalid value: "other": field is immutable'],
        ),
        (
            _workload("Deployment"),
            lambda o: o["spec"].update(selector={"matchLabels": {"app": "web", "x": "y"}}),
            [
                'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does '
                "not match template `labels`",
                'spec.selector: Invalid value: {"matchLabels":{"app":"web","x":"y"}}: field is '
                "immutable",
            ],
        ),
        (
            {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta("a", None, uid="1")},
            lambda o: o["metadata"].update(uid="2"),
            ['metadata.uid: Invalid value: "2": field is immutable'],
        ),
        (
            _hpa(),
            lambda o: o["metadata"].update(namespace="other"),
            ['metadata.namespace: Invalid value: "other": field is immutable'],
        ),
        ({"apiVersion": "v1", "kind": "Unknown", "metadata": {}}, lambda o: None, []),
    ],
    ids=["pod", "deployment-selector", "namespace", "hpa", "unknown-kind"],
)
def test_validate_update(old: dict[str, Any], change: Any, expected: list[str]) -> None:
    new = copy.deepcopy(old)
    change(new)
    assert _messages(validate(new, old=old)) == expected


@pytest.mark.parametrize(
    ("kind", "status", "expected"),
    [
        (
            "ReplicaSet",
            {"replicas": 1, "readyReplicas": 2},
            ["status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas"],
        ),
        (
            "Deployment",
            {"replicas": 2, "readyReplicas": 1, "availableReplicas": 2},
            ["status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas"],
        ),
        (
            "StatefulSet",
            {"replicas": 1, "currentReplicas": 2},
            ["status.currentReplicas: Invalid value: 2: cannot be greater than status.replicas"],
        ),
        ("Deployment", {"replicas": 2, "readyReplicas": 2}, []),
    ],
    ids=["replica-set", "deployment", "stateful-set", "valid"],
)
def test_validate_status_subresource(
    kind: str, status: dict[str, Any], expected: list[str]
) -> None:
    old = _workload(kind)
    new = {**copy.deepcopy(old), "status": status}
    assert _messages(validate(new, old=old, subresource="status")) == expected


def test_status_writes_skip_spec_rules() -> None:
    old = _workload("Deployment", replicas=-1)
    assert validate(copy.deepcopy(old), old=old, subresource="status") == []
    assert _messages(validate(copy.deepcopy(old), old=old)) == [
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    ]


def test_pod_status_update_is_dispatched() -> None:
    old = {**_pod(), "status": {"qosClass": "BestEffort"}}
    new = {**_pod(), "status": {"qosClass": "Burstable"}}
    assert _messages(validate(new, old=old, subresource="status")) == [
        'status.qosClass: Invalid value: "Burstable": field is immutable'
    ]


def test_hpa_status_update_is_delegated() -> None:
    old = _hpa()
    new = {**copy.deepcopy(old), "status": {"currentReplicas": -1, "desiredReplicas": 1}}
    assert _messages(validate(new, old=old, subresource="status")) == [
        "status.currentReplicas: Invalid value: -1: must be greater than or equal to 0"
    ]


@pytest.mark.parametrize(
    ("gates", "expected"),
    [
        (
            DEFAULT_FEATURE_GATES,
            [
                "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
                "spec.metrics: Forbidden: must specify at least one Object or External metric to "
                "support scaling to zero replicas",
            ],
        ),
        (
            DEFAULT_FEATURE_GATES | {HPA_SCALE_TO_ZERO},
            [
                "spec.metrics: Forbidden: must specify at least one Object or External metric to "
                "support scaling to zero replicas"
            ],
        ),
    ],
    ids=["gate-off", "gate-on"],
)
def test_feature_gates_reach_hpa_validation(gates: frozenset[str], expected: list[str]) -> None:
    assert _messages(validate(_hpa(minReplicas=0), feature_gates=gates)) == expected


@pytest.mark.parametrize(
    ("subresource", "old", "message"),
    [
        ("status", None, "a status update needs the old object"),
        ("exec", _pod(), "no validation for subresource 'exec'"),
    ],
    ids=["status-without-old", "unknown-subresource"],
)
def test_validate_rejects_bad_calls(
    subresource: str, old: dict[str, Any] | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        validate(_pod(), old=old, subresource=subresource)


_LABEL_TEXT = st.text(alphabet="aZ9-_./ ", max_size=10)


@given(
    labels=st.dictionaries(_LABEL_TEXT, _LABEL_TEXT, max_size=4),
    replicas=st.integers(min_value=-3, max_value=3),
)
def test_validate_is_pure_and_errors_are_field_errors(
    labels: dict[str, str], replicas: int
) -> None:
    obj = _workload("Deployment", replicas=replicas)
    obj["metadata"]["labels"] = labels
    snapshot = copy.deepcopy(obj)
    first = validate(obj)
    assert obj == snapshot
    assert validate(obj) == first
    assert all(isinstance(e, FieldError) for e in first)
    assert (replicas < 0) == any(e.field == "spec.replicas" for e in first)


def test_core_events_still_get_generic_metadata_validation() -> None:
    # Upstream's BeforeCreate validates ObjectMeta for every kind after the kind's rules.
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
    }
    assert [str(e) for e in validate(event)] == [
        "metadata.name: Required value: name or generateName is required"
    ]
    event["metadata"]["name"] = "p.17a2b"
    assert validate(event) == []
