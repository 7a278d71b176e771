"""The HPA KEDA generates for a ScaledObject, and when KEDA rewrites it; each row is
named for the KEDA behaviour (controllers/keda/hpa.go) it reproduces."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.keda.generated import (
    GeneratedHpaError,
    generated_hpa,
    hpa_update,
)
from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.triggers.registry import parse_trigger

JSON = dict[str, Any]
PROM = {"serverAddress": "http://prometheus:9090", "query": "sum(queue)", "threshold": "5"}
SELECTOR = {"matchLabels": {"scaledobject.keda.sh/name": "web"}}


def _so(**spec: Any) -> JSON:
    obj: JSON = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "web", "namespace": "prod", "uid": "u-1"},
        "spec": {
            "scaleTargetRef": {"name": "web"},
            "triggers": [{"type": "prometheus", "metadata": dict(PROM)}],
        },
    }
    meta = spec.pop("metadata", {})
    obj["metadata"].update(meta)
    obj["spec"].update(spec)
    return obj


def _hpa(obj: JSON) -> JSON:
    so = parse_scaled_object(obj)
    raw = obj["spec"]["triggers"]
    triggers = [parse_trigger(i, t, namespace=so.namespace) for i, t in enumerate(raw)]
    return generated_hpa(obj, so, triggers)


def _external(name: str, target: JSON) -> JSON:
    return {
        "type": "External",
        "external": {"metric": {"name": name, "selector": SELECTOR}, "target": target},
    }


def _cpu(target: JSON) -> JSON:
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


CPU_UTIL = {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}


def _spec(path: str) -> Callable[[JSON], Any]:
    def get(hpa: JSON) -> Any:
        value: Any = hpa
        for part in path.split("."):
            value = value[part]
        return value

    return get


CASES: list[tuple[str, JSON, str, Any]] = [
    (
        "external-trigger-average-value",
        _so(),
        "spec.metrics",
        [_external("s0-prometheus", {"type": "AverageValue", "averageValue": "5"})],
    ),
    (
        "external-trigger-value-target-in-milli-units",
        _so(
            triggers=[
                {
                    "type": "prometheus",
                    "metricType": "Value",
                    "metadata": {**PROM, "threshold": "2.5"},
                }
            ]
        ),
        "spec.metrics",
        [_external("s0-prometheus", {"type": "Value", "value": "2500m"})],
    ),
    (
        "cpu-trigger-resource-metric",
        _so(triggers=[CPU_UTIL]),
        "spec.metrics",
        [_cpu({"type": "Utilization", "averageUtilization": 60})],
    ),
    (
        "memory-average-value-keeps-the-quantity",
        _so(
            triggers=[
                {"type": "memory", "metricType": "AverageValue", "metadata": {"value": "512Mi"}}
            ]
        ),
        "spec.metrics",
        [
            {
                "type": "Resource",
                "resource": {
                    "name": "memory",
                    "target": {"type": "AverageValue", "averageValue": "512Mi"},
                },
            }
        ],
    ),
    (
        "cpu-with-container-name-is-a-container-resource-metric",
        _so(
            triggers=[
                {
                    "type": "cpu",
                    "metricType": "Utilization",
                    "metadata": {"value": "50", "containerName": "app"},
                }
            ]
        ),
        "spec.metrics",
        [
            {
                "type": "ContainerResource",
                "containerResource": {
                    "name": "cpu",
                    "container": "app",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            }
        ],
    ),
    (
        "metrics-sorted-by-type-external-before-resource",
        _so(triggers=[CPU_UTIL, {"type": "prometheus", "metadata": dict(PROM)}]),
        "spec.metrics",
        [
            _external("s1-prometheus", {"type": "AverageValue", "averageValue": "5"}),
            _cpu({"type": "Utilization", "averageUtilization": 60}),
        ],
    ),
    (
        "composite-metric-with-modifiers",
        _so(
            triggers=[
                CPU_UTIL,
                {"type": "prometheus", "name": "a", "metadata": dict(PROM)},
                {"type": "prometheus", "name": "b", "metadata": {**PROM, "query": "q2"}},
            ],
            advanced={"scalingModifiers": {"formula": "a + b", "target": "1.5"}},
        ),
        "spec.metrics",
        [
            _cpu({"type": "Utilization", "averageUtilization": 60}),
            _external("composite-metric", {"type": "AverageValue", "averageValue": "1500m"}),
        ],
    ),
    (
        "composite-metric-value-type",
        _so(advanced={"scalingModifiers": {"formula": "x", "target": "4", "metricType": "Value"}}),
        "spec.metrics",
        [_external("composite-metric", {"type": "Value", "value": "4"})],
    ),
    (
        "modifiers-with-zero-target-keep-the-trigger-metrics",
        _so(advanced={"scalingModifiers": {"formula": "x", "target": "0"}}),
        "spec.metrics",
        [_external("s0-prometheus", {"type": "AverageValue", "averageValue": "5"})],
    ),
    (
        "min-replicas-at-least-one-for-scale-to-zero",
        _so(minReplicaCount=0, maxReplicaCount=7),
        "spec",
        None,
    ),
    (
        "paused-replicas-pin-min-and-max",
        _so(metadata={"annotations": {"autoscaling.keda.sh/paused-replicas": "4"}}),
        "spec.maxReplicas",
        4,
    ),
    (
        "paused-replicas-zero-pins-the-hpa-at-one",
        _so(metadata={"annotations": {"autoscaling.keda.sh/paused-replicas": "0"}}),
        "spec.minReplicas",
        1,
    ),
    (
        "paused-scale-in-disables-scale-down",
        _so(metadata={"annotations": {"autoscaling.keda.sh/paused-scale-in": "true"}}),
        "spec.behavior",
        {"scaleDown": {"selectPolicy": "Disabled"}},
    ),
    (
        "paused-scale-out-disables-scale-up-keeping-the-configured-rules",
        _so(
            metadata={"annotations": {"autoscaling.keda.sh/paused-scale-out": "true"}},
            advanced={
                "horizontalPodAutoscalerConfig": {
                    "behavior": {"scaleUp": {"stabilizationWindowSeconds": 30}}
                }
            },
        ),
        "spec.behavior",
        {"scaleUp": {"stabilizationWindowSeconds": 30, "selectPolicy": "Disabled"}},
    ),
    (
        "paused-scale-in-false-changes-nothing",
        _so(metadata={"annotations": {"autoscaling.keda.sh/paused-scale-in": "false"}}),
        "spec",
        None,
    ),
    (
        "configured-behavior-copied",
        _so(
            advanced={
                "horizontalPodAutoscalerConfig": {
                    "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}
                }
            }
        ),
        "spec.behavior",
        {"scaleDown": {"stabilizationWindowSeconds": 60}},
    ),
    (
        "custom-hpa-name",
        _so(advanced={"horizontalPodAutoscalerConfig": {"name": "my-hpa"}}),
        "metadata.name",
        "my-hpa",
    ),
    (
        "default-hpa-name",
        _so(),
        "metadata.name",
        "keda-hpa-web",
    ),
    (
        "keda-labels-plus-the-scaled-object-labels",
        _so(metadata={"labels": {"team": "a", "app.kubernetes.io/part-of": "shop"}}),
        "metadata.labels",
        {
            "app.kubernetes.io/name": "keda-hpa-web",
            "app.kubernetes.io/version": "2.17.0",
            "app.kubernetes.io/part-of": "shop",
            "app.kubernetes.io/managed-by": "keda-operator",
            "team": "a",
        },
    ),
    (
        "excluded-labels-annotation-drops-labels",
        _so(
            metadata={
                "labels": {"team": "a", "cost": "x", "keep": "y"},
                "annotations": {"scaledobject.keda.sh/hpa-excluded-labels": "team,cost"},
            }
        ),
        "metadata.labels.keep",
        "y",
    ),
    (
        "long-name-label-trimmed-to-63-without-trailing-dash",
        _so(
            advanced={"horizontalPodAutoscalerConfig": {"name": "h" * 62 + "-tail"}},
        ),
        "metadata.labels.app.kubernetes.io/name",
        "h" * 62,
    ),
    (
        "annotations-copied-from-the-scaled-object",
        _so(metadata={"annotations": {"note": "x"}}),
        "metadata.annotations",
        {"note": "x"},
    ),
    (
        "owned-by-the-scaled-object-as-controller",
        _so(),
        "metadata.ownerReferences",
        [
            {
                "apiVersion": "keda.sh/v1alpha1",
                "kind": "ScaledObject",
                "name": "web",
                "uid": "u-1",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    ),
    (
        "scale-target-ref-with-keda-defaults",
        _so(),
        "spec.scaleTargetRef",
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
    ),
]


def _lookup(hpa: JSON, path: str) -> Any:
    if path == "metadata.labels.app.kubernetes.io/name":
        return hpa["metadata"]["labels"]["app.kubernetes.io/name"]
    return _spec(path)(hpa)


@pytest.mark.parametrize(
    ("obj", "path", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_generated_hpa(obj: JSON, path: str, expected: Any) -> None:
    hpa = _hpa(obj)
    if expected is None:  # rows whose point is the whole spec
        assert "behavior" not in hpa["spec"]
        so = parse_scaled_object(obj)
        assert hpa["spec"]["minReplicas"] == max(so.min_replica_count, 1)
        assert hpa["spec"]["maxReplicas"] == so.max_replica_count
        return
    assert _lookup(hpa, path) == expected


def test_kind_and_namespace() -> None:
    hpa = _hpa(_so())
    assert (hpa["apiVersion"], hpa["kind"], hpa["metadata"]["namespace"]) == (
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        "prod",
    )
    assert "annotations" not in hpa["metadata"]


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            _so(
                triggers=[
                    {"type": "prometheus", "metadata": dict(PROM)},
                    {"type": "prometheus", "metadata": dict(PROM)},
                ]
            ),
            None,
        ),
        (
            _so(metadata={"annotations": {"autoscaling.keda.sh/paused-replicas": "x"}}),
            'strconv.ParseInt: parsing "x": invalid syntax',
        ),
        (
            _so(
                advanced={
                    "scalingModifiers": {
                        "formula": "x",
                        "target": "2",
                        "metricType": "Utilization",
                    }
                }
            ),
            "error metric target type is Utilization, but it needs to be AverageValue or "
            "Value for external metrics",
        ),
    ],
    ids=["distinct-indexes-never-collide", "bad-paused-replicas", "composite-utilization-refused"],
)
def test_generation_errors(obj: JSON, message: str | None) -> None:
    if message is None:
        assert len(_hpa(obj)["spec"]["metrics"]) == 2
        return
    with pytest.raises(GeneratedHpaError) as err:
        _hpa(obj)
    assert str(err.value) == message


def test_duplicate_external_metric_name_refused() -> None:
    obj = _so()
    so = parse_scaled_object(obj)
    spec = parse_trigger(0, obj["spec"]["triggers"][0], namespace="prod")
    with pytest.raises(GeneratedHpaError, match="metricName s0-prometheus defined multiple times"):
        generated_hpa(obj, so, [spec, spec])


# --- hpa_update ------------------------------------------------------------------------


def _stored(hpa: JSON) -> JSON:
    """The HPA as the API server keeps it: identity, defaults, a status."""
    stored = copy.deepcopy(hpa)
    stored["metadata"].update({"resourceVersion": "7", "uid": "h-1"})
    behavior = stored["spec"].get("behavior")
    if behavior is not None:
        for side in ("scaleUp", "scaleDown"):
            rules = behavior.setdefault(side, {})
            rules.setdefault("selectPolicy", "Max")
            rules.setdefault("policies", [{"type": "Percent", "value": 100, "periodSeconds": 15}])
    stored["status"] = {"currentReplicas": 2, "desiredReplicas": 2}
    return stored


def _edit(obj: JSON, edit: Callable[[JSON], None]) -> JSON:
    changed = copy.deepcopy(obj)
    edit(changed)
    return changed


UPDATES: list[tuple[str, JSON, Callable[[JSON], None], bool]] = [
    ("unchanged-needs-no-update", _so(), lambda o: None, False),
    (
        "server-defaulted-behavior-is-no-change",
        _so(
            advanced={
                "horizontalPodAutoscalerConfig": {
                    "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}
                }
            }
        ),
        lambda o: None,
        False,
    ),
    (
        "max-replicas-changed",
        _so(),
        lambda o: o["spec"].update(maxReplicaCount=9),
        True,
    ),
    (
        "trigger-removed-changes-the-metric-count",
        _so(triggers=[CPU_UTIL, {"type": "prometheus", "metadata": dict(PROM)}]),
        lambda o: o["spec"].update(triggers=[CPU_UTIL]),
        True,
    ),
    (
        "threshold-changed",
        _so(),
        lambda o: o["spec"]["triggers"][0]["metadata"].update(threshold="6"),
        True,
    ),
    (
        "paused-scale-in-lifted-restores-behavior",
        _so(metadata={"annotations": {"autoscaling.keda.sh/paused-scale-in": "true"}}),
        lambda o: o["metadata"].pop("annotations"),
        True,
    ),
    (
        "paused-scale-in-set",
        _so(),
        lambda o: o["metadata"].update(annotations={"autoscaling.keda.sh/paused-scale-in": "true"}),
        True,
    ),
    (
        "label-added",
        _so(),
        lambda o: o["metadata"].update(labels={"team": "a"}),
        True,
    ),
    (
        "annotation-removed",
        _so(metadata={"annotations": {"note": "x"}}),
        lambda o: o["metadata"].pop("annotations"),
        True,
    ),
]


@pytest.mark.parametrize(
    ("obj", "edit", "update"), [u[1:] for u in UPDATES], ids=[u[0] for u in UPDATES]
)
def test_hpa_update(obj: JSON, edit: Callable[[JSON], None], update: bool) -> None:
    existing = _stored(_hpa(obj))
    wanted = _hpa(_edit(obj, edit))
    result = hpa_update(existing, wanted)
    if not update:
        assert result is None
        return
    assert result is not None
    assert result["spec"] == wanted["spec"]
    assert result["metadata"]["resourceVersion"] == "7"
    assert result["metadata"]["labels"] == wanted["metadata"]["labels"]
    assert result["metadata"].get("annotations") == wanted["metadata"].get("annotations")
    assert result["status"] == existing["status"]
    # Once written (and defaulted), the same ScaledObject needs no further update.
    assert hpa_update(_stored(result), wanted) is None


def test_extra_labels_on_the_hpa_are_left_alone() -> None:
    # KEDA's label check is DeepDerivative: labels others add do not trigger an update.
    wanted = _hpa(_so())
    existing = _stored(wanted)
    existing["metadata"]["labels"] = {**existing["metadata"]["labels"], "added-by": "someone"}
    assert hpa_update(existing, wanted) is None


@given(
    threshold=st.integers(min_value=1, max_value=10_000),
    min_count=st.integers(min_value=0, max_value=5),
    extra=st.integers(min_value=0, max_value=50),
    scale_in=st.booleans(),
)
def test_a_freshly_stored_hpa_never_needs_an_update(
    threshold: int, min_count: int, extra: int, scale_in: bool
) -> None:
    annotations: Mapping[str, str] = (
        {"autoscaling.keda.sh/paused-scale-in": "true"} if scale_in else {}
    )
    obj = _so(
        metadata={"annotations": dict(annotations)},
        minReplicaCount=min_count,
        maxReplicaCount=max(min_count, 1) + extra,
        triggers=[{"type": "prometheus", "metadata": {**PROM, "threshold": str(threshold)}}],
    )
    wanted = _hpa(obj)
    assert wanted["spec"]["minReplicas"] >= 1
    assert hpa_update(_stored(wanted), wanted) is None
