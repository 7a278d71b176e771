"""``spec.metrics`` and object-reference rules of HPA validation, one table row per rule.

Every row asserts the complete list of rendered errors, so a missing, extra or reworded error
fails. Expected texts follow upstream pkg/apis/autoscaling/validation/validation.go.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from podscale.api.field_errors import ErrorType, FieldPath
from podscale.api.validation.hpa import validate_hpa
from podscale.api.validation.hpa_metrics import (
    ReferenceOptions,
    check_api_version,
    parse_group_version,
    validate_cross_version_object_reference,
)

CPU = {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}
PODS = {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "1k"}}
EXTERNAL = {"metric": {"name": "queue_messages_ready"}, "target": {"type": "Value", "value": "30"}}
OBJECT = {
    "describedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "main"},
    "metric": {"name": "requests-per-second"},
    "target": {"type": "Value", "value": "10k"},
}
CONTAINER = {
    "name": "cpu",
    "container": "application",
    "target": {"type": "Utilization", "averageUtilization": 60},
}

UNSUPPORTED = (
    'spec.metrics[0].type: Unsupported value: "{}": supported values: "ContainerResource", '
    '"External", "Object", "Pods", "Resource"'
)
LABEL_REGEX = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def _hpa(metrics: list[Any]) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 10,
            "metrics": metrics,
        },
    }


def _errors(metric: dict[str, Any]) -> list[str]:
    return [str(e) for e in validate_hpa(_hpa([metric]))]


def _source(kind: str, field: str, base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A metric of ``kind`` whose source is ``base`` with top-level keys replaced/removed."""
    source = copy.deepcopy(base)
    for key, value in changes.items():
        if value is None:
            source.pop(key, None)
        else:
            source[key] = value
    return {"type": kind, field: source}


def _resource_target(**target: Any) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


ERROR_CASES = [
    (
        "type-unsupported-reported-twice-as-upstream",
        {"type": "Foo", "resource": CPU},
        [UNSUPPORTED.format("Foo"), UNSUPPORTED.format("Foo")],
    ),
    (
        "type-empty",
        {"type": ""},
        [
            "spec.metrics[0].type: Required value: must specify a metric source type",
            UNSUPPORTED.format(""),
            UNSUPPORTED.format(""),
        ],
    ),
    (
        "source-missing-for-type",
        {"type": "Pods", "resource": CPU},
        [
            "spec.metrics[0].pods: Required value: must populate information for the given metric "
            "source"
        ],
    ),
    (
        "second-source-forbidden",
        {"type": "Pods", "pods": PODS, "resource": CPU},
        ["spec.metrics[0].resource: Forbidden: must populate the given metric source only"],
    ),
    (
        "only-first-populated-source-is-validated",
        {"type": "Resource", "resource": CPU, "object": {}},
        [
            "spec.metrics[0].object.describedObject.kind: Required value",
            "spec.metrics[0].object.describedObject.name: Required value",
            "spec.metrics[0].object.metric.name: Required value: must specify a metric name",
            "spec.metrics[0].object.target.type: Required value: must specify a metric target type",
            'spec.metrics[0].object.target.type: Invalid value: "": must be either Utilization, '
            "Value, or AverageValue",
            "spec.metrics[0].object.target.averageValue: Required value: must set either a target "
            "value or averageValue",
            "spec.metrics[0].object: Forbidden: must populate the given metric source only",
        ],
    ),
    (
        "target-type-percent",
        _resource_target(type="Percent", averageUtilization=50),
        [
            'spec.metrics[0].resource.target.type: Invalid value: "Percent": must be either '
            "Utilization, Value, or AverageValue"
        ],
    ),
    (
        "average-utilization-zero",
        _resource_target(type="Utilization", averageUtilization=0),
        [
            "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater "
            "than 0"
        ],
    ),
    (
        "resource-average-value-zero",
        _resource_target(type="AverageValue", averageValue="0"),
        ['spec.metrics[0].resource.target.averageValue: Invalid value: "0": must be positive'],
    ),
    (
        "resource-average-value-negative",
        _resource_target(type="AverageValue", averageValue="-100m"),
        ['spec.metrics[0].resource.target.averageValue: Invalid value: "-100m": must be positive'],
    ),
    (
        "resource-neither-target",
        _resource_target(type="Utilization"),
        [
            "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a "
            "target raw value or a target utilization"
        ],
    ),
    (
        "resource-both-targets",
        _resource_target(type="Utilization", averageUtilization=50, averageValue="100m"),
        [
            "spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target "
            "raw value and a target utilization"
        ],
    ),
    (
        "resource-name-missing",
        _source("Resource", "resource", CPU, name=None),
        ["spec.metrics[0].resource.name: Required value: must specify a resource name"],
    ),
    (
        "pods-average-value-missing",
        _source("Pods", "pods", PODS, target={"type": "AverageValue"}),
        [
            "spec.metrics[0].pods.target.averageValue: Required value: must specify a positive "
            "target averageValue"
        ],
    ),
    (
        "pods-average-value-zero",
        _source("Pods", "pods", PODS, target={"type": "AverageValue", "averageValue": "0"}),
        ['spec.metrics[0].pods.target.averageValue: Invalid value: "0": must be positive'],
    ),
    (
        "pods-metric-name-missing",
        _source("Pods", "pods", PODS, metric={}),
        ["spec.metrics[0].pods.metric.name: Required value: must specify a metric name"],
    ),
    (
        "pods-metric-name-slash",
        _source("Pods", "pods", PODS, metric={"name": "a/b"}),
        ["spec.metrics[0].pods.metric.name: Invalid value: \"a/b\": may not contain '/'"],
    ),
    (
        "pods-metric-name-dotdot",
        _source("Pods", "pods", PODS, metric={"name": ".."}),
        ["spec.metrics[0].pods.metric.name: Invalid value: \"..\": may not be '..'"],
    ),
    (
        "external-neither-target",
        _source("External", "external", EXTERNAL, target={"type": "Value"}),
        [
            "spec.metrics[0].external.target.averageValue: Required value: must set either a "
            "target value for metric or a per-pod target"
        ],
    ),
    (
        "external-both-targets",
        _source(
            "External",
            "external",
            EXTERNAL,
            target={"type": "Value", "value": "1", "averageValue": "1"},
        ),
        [
            "spec.metrics[0].external.target.value: Forbidden: may not set both a target value for "
            "metric and a per-pod target"
        ],
    ),
    (
        "external-value-zero",
        _source("External", "external", EXTERNAL, target={"type": "Value", "value": 0}),
        ['spec.metrics[0].external.target.value: Invalid value: "0": must be positive'],
    ),
    (
        "object-neither-target",
        _source("Object", "object", OBJECT, target={"type": "Value"}),
        [
            "spec.metrics[0].object.target.averageValue: Required value: must set either a target "
            "value or averageValue"
        ],
    ),
    (
        "object-described-api-version-malformed",
        _source(
            "Object",
            "object",
            OBJECT,
            describedObject={"apiVersion": "a/b/c", "kind": "Service", "name": "svc"},
        ),
        [
            'spec.metrics[0].object.describedObject.apiVersion: Invalid value: "a/b/c": unexpected '
            "GroupVersion string: a/b/c"
        ],
    ),
    (
        "object-described-name-percent",
        _source(
            "Object",
            "object",
            OBJECT,
            describedObject={"apiVersion": "v1", "kind": "Service", "name": "a%b"},
        ),
        [
            'spec.metrics[0].object.describedObject.name: Invalid value: "a%b": may not contain '
            "'%'"
        ],
    ),
    (
        "container-missing",
        _source("ContainerResource", "containerResource", CONTAINER, container=None),
        ["spec.metrics[0].containerResource.container: Required value: must specify a container"],
    ),
    (
        "container-not-a-label",
        _source("ContainerResource", "containerResource", CONTAINER, container="App_1"),
        [f'spec.metrics[0].containerResource.container: Invalid value: "App_1": {LABEL_REGEX}'],
    ),
    (
        "container-with-dots",
        _source("ContainerResource", "containerResource", CONTAINER, container="web.app"),
        [
            'spec.metrics[0].containerResource.container: Invalid value: "web.app": must not '
            "contain dots"
        ],
    ),
    (
        "container-resource-name-missing",
        _source("ContainerResource", "containerResource", CONTAINER, name=None),
        ["spec.metrics[0].containerResource.name: Required value: must specify a resource name"],
    ),
    (
        "container-resource-name-not-standard",
        _source("ContainerResource", "containerResource", CONTAINER, name="gpu"),
        [
            'spec.metrics[0].containerResource.name: Invalid value: "gpu": must be a standard '
            "resource type or fully qualified",
            'spec.metrics[0].containerResource.name: Invalid value: "gpu": must be a standard '
            "resource for containers",
        ],
    ),
    (
        "container-resource-name-not-for-containers",
        _source("ContainerResource", "containerResource", CONTAINER, name="pods"),
        [
            'spec.metrics[0].containerResource.name: Invalid value: "pods": must be a standard '
            "resource for containers"
        ],
    ),
    (
        "container-resource-both-targets",
        _source(
            "ContainerResource",
            "containerResource",
            CONTAINER,
            target={"type": "AverageValue", "averageUtilization": 5, "averageValue": "1"},
        ),
        [
            "spec.metrics[0].containerResource.target.averageValue: Forbidden: may not set both a "
            "target raw value and a target utilization"
        ],
    ),
]


@pytest.mark.parametrize(
    ("metric", "expected"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_metric_rule(metric: dict[str, Any], expected: list[str]) -> None:
    assert _errors(metric) == expected


VALID_CASES = [
    ("resource-utilization", {"type": "Resource", "resource": CPU}),
    ("resource-average-value", _resource_target(type="AverageValue", averageValue="500m")),
    ("pods", {"type": "Pods", "pods": PODS}),
    ("external-value", {"type": "External", "external": EXTERNAL}),
    ("object-value", {"type": "Object", "object": OBJECT}),
    (
        "object-core-group-described-object",
        _source(
            "Object",
            "object",
            OBJECT,
            describedObject={"apiVersion": "v1", "kind": "Service", "name": "svc"},
        ),
    ),
    ("container-resource", {"type": "ContainerResource", "containerResource": CONTAINER}),
    (
        "container-resource-extended-name",
        _source("ContainerResource", "containerResource", CONTAINER, name="example.com/gpu"),
    ),
    (
        # Upstream does not validate metric selectors; neither do we.
        "selector-not-validated",
        _source(
            "Pods",
            "pods",
            PODS,
            metric={"name": "qps", "selector": {"matchExpressions": [{"operator": "Bad"}]}},
        ),
    ),
    ("numeric-quantity", _resource_target(type="AverageValue", averageValue=2)),
]


@pytest.mark.parametrize("metric", [c[1] for c in VALID_CASES], ids=[c[0] for c in VALID_CASES])
def test_valid_metric(metric: dict[str, Any]) -> None:
    assert _errors(metric) == []


def test_unparseable_quantity_is_one_invalid_error() -> None:
    errors = validate_hpa(_hpa([_resource_target(type="AverageValue", averageValue="abc")]))
    assert [(e.type, e.field, e.bad_value) for e in errors] == [
        (ErrorType.INVALID, "spec.metrics[0].resource.target.averageValue", "abc")
    ]


def test_errors_of_later_metrics_carry_their_index() -> None:
    metrics = [{"type": "Resource", "resource": CPU}, {"type": "Pods", "resource": CPU}]
    assert [str(e) for e in validate_hpa(_hpa(metrics))] == [
        "spec.metrics[1].pods: Required value: must populate information for the given metric "
        "source"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", ("", "")), ("/", ("", "")), ("v1", ("", "v1")), ("apps/v1", ("apps", "v1"))],
    ids=["empty", "slash", "core", "grouped"],
)
def test_parse_group_version(text: str, expected: tuple[str, str]) -> None:
    assert parse_group_version(text) == expected


def test_parse_group_version_rejects_two_slashes() -> None:
    with pytest.raises(ValueError, match="unexpected GroupVersion string: a/b/c"):
        parse_group_version("a/b/c")


@pytest.mark.parametrize(
    ("api_version", "options", "expected"),
    [
        ("v1", ReferenceOptions(), "apiVersion must specify API group"),
        ("v1", ReferenceOptions(allow_empty_api_group=True), None),
        (
            "x/y/z",
            ReferenceOptions(allow_empty_api_group=True),
            "unexpected GroupVersion string: x/y/z",
        ),
        ("x/y/z", ReferenceOptions(allow_invalid_api_version=True), None),
        ("apps/v1", ReferenceOptions(), None),
    ],
    ids=["core-needs-group", "core-allowed", "malformed", "ratcheted", "grouped"],
)
def test_check_api_version(
    api_version: str, options: ReferenceOptions, expected: str | None
) -> None:
    assert check_api_version(api_version, options) == expected


def test_reference_that_is_not_an_object_reads_as_empty() -> None:
    errors = validate_cross_version_object_reference("junk", FieldPath("ref"), ReferenceOptions())
    assert [str(e) for e in errors] == [
        "ref.kind: Required value",
        "ref.name: Required value",
        'ref.apiVersion: Invalid value: "": apiVersion must specify API group',
    ]
