"""HPA autoscaling/v1 <-> v2 conversion: upstream's annotation shapes and lossless round trips."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.conversion import (
    BEHAVIOR_ANNOTATION,
    CONDITIONS_ANNOTATION,
    CURRENT_METRICS_ANNOTATION,
    METRICS_ANNOTATION,
    ROUND_TRIP_ANNOTATIONS,
    convert_hpa,
    hpa_v1_to_v2,
    hpa_v2_to_v1,
)

REF = {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}


def cpu(utilization: int) -> dict[str, Any]:
    target = {"type": "Utilization", "averageUtilization": utilization}
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


def v2(metrics: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 10}
    if metrics is not None:
        spec["metrics"] = metrics
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": spec,
        **extra,
    }


def v1(annotations: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "web"}
    if annotations is not None:
        metadata["annotations"] = annotations
    return {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": metadata,
        "spec": {"scaleTargetRef": REF, "maxReplicas": 10, **spec},
    }


# --- v2 -> v1: exact annotation text ------------------------------------------------------------

PODS_METRIC = {
    "type": "Pods",
    "pods": {
        "metric": {"name": "qps", "selector": {"matchLabels": {"b": "2", "a": "1"}}},
        "target": {"type": "AverageValue", "averageValue": "10"},
    },
}


@pytest.mark.parametrize(
    ("metric", "encoded"),
    [
        (
            PODS_METRIC,
            '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10",'
            '"selector":{"matchLabels":{"a":"1","b":"2"}}}}]',
        ),
        (
            {
                "type": "Object",
                "object": {
                    "describedObject": {
                        "kind": "Ingress",
                        "name": "main",
                        "apiVersion": "networking.k8s.io/v1",
                    },
                    "metric": {"name": "rps"},
                    "target": {"type": "AverageValue", "averageValue": "5"},
                },
            },
            '[{"type":"Object","object":{"target":{"kind":"Ingress","name":"main",'
            '"apiVersion":"networking.k8s.io/v1"},"metricName":"rps","targetValue":"0",'
            '"averageValue":"5"}}]',
        ),
        (
            {
                "type": "External",
                "external": {
                    "metric": {
                        "name": "queue",
                        "selector": {"matchExpressions": [{"key": "q", "operator": "Exists"}]},
                    },
                    "target": {"type": "Value", "value": "30"},
                },
            },
            '[{"type":"External","external":{"metricName":"queue","metricSelector":'
            '{"matchExpressions":[{"key":"q","operator":"Exists"}]},"targetValue":"30"}}]',
        ),
        (
            {
                "type": "Resource",
                "resource": {
                    "name": "memory",
                    "target": {"type": "AverageValue", "averageValue": "1Gi"},
                },
            },
            '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]',
        ),
        (
            {
                "type": "ContainerResource",
                "containerResource": {
                    "name": "cpu",
                    "container": "app",
                    "target": {"type": "Utilization", "averageUtilization": 70},
                },
            },
            '[{"type":"ContainerResource","containerResource":{"name":"cpu",'
            '"targetAverageUtilization":70,"container":"app"}}]',
        ),
    ],
    ids=["pods", "object-average", "external-value", "resource-memory", "container-resource"],
)
def test_other_metrics_annotation_text(metric: dict[str, Any], encoded: str) -> None:
    out = hpa_v2_to_v1(v2([metric]))
    assert out["metadata"]["annotations"] == {METRICS_ANNOTATION: encoded}
    assert "targetCPUUtilizationPercentage" not in out["spec"]


def test_cpu_utilization_becomes_the_v1_field() -> None:
    out = hpa_v2_to_v1(v2([cpu(65)]))
    assert out["apiVersion"] == "autoscaling/v1"
    assert out["kind"] == "HorizontalPodAutoscaler"
    assert out["spec"] == {
        "scaleTargetRef": REF,
        "minReplicas": 1,
        "maxReplicas": 10,
        "targetCPUUtilizationPercentage": 65,
    }
    assert "annotations" not in out["metadata"]


def test_first_cpu_metric_decides_even_when_it_is_not_utilization() -> None:
    average_cpu = {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "AverageValue", "averageValue": "500m"}},
    }
    out = hpa_v2_to_v1(v2([average_cpu, cpu(50)]))
    assert "targetCPUUtilizationPercentage" not in out["spec"]
    assert json.loads(out["metadata"]["annotations"][METRICS_ANNOTATION]) == [
        {"type": "Resource", "resource": {"name": "cpu", "targetAverageValue": "500m"}}
    ]


def test_status_conditions_and_behavior_annotations() -> None:
    status = {
        "currentReplicas": 3,
        "desiredReplicas": 4,
        "currentMetrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "current": {"averageValue": "250m", "averageUtilization": 90},
                },
            }
        ],
        "conditions": [
            {
                "type": "AbleToScale",
                "status": "True",
                "reason": "SucceededRescale",
                "message": "a<b",
            }
        ],
    }
    behavior = {
        "scaleUp": {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15}],
        }
    }
    obj = v2([cpu(50)], status=status)
    obj["spec"]["behavior"] = behavior
    out = hpa_v2_to_v1(obj)
    assert out["status"] == {
        "currentReplicas": 3,
        "desiredReplicas": 4,
        "currentCPUUtilizationPercentage": 90,
    }
    annotations = out["metadata"]["annotations"]
    assert annotations[CURRENT_METRICS_ANNOTATION] == (
        '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":90,"currentAverageValue":"250m"}}]'
    )
    assert annotations[CONDITIONS_ANNOTATION] == (
        '[{"type":"AbleToScale","status":"True","lastTransitionTime":null,'
        '"reason":"SucceededRescale","message":"a\\u003cb"}]'
    )
    assert annotations[BEHAVIOR_ANNOTATION] == (
        '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max",'
        '"Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":null}'
    )
    assert METRICS_ANNOTATION not in annotations


def test_stale_round_trip_annotations_are_replaced() -> None:
    obj = v2([cpu(50)])
    obj["metadata"]["annotations"] = dict.fromkeys(ROUND_TRIP_ANNOTATIONS, "stale") | {"keep": "me"}
    assert hpa_v2_to_v1(obj)["metadata"]["annotations"] == {"keep": "me"}


# --- v1 -> v2 -----------------------------------------------------------------------------------


def test_v1_without_target_gets_the_implicit_cpu_80() -> None:
    out = hpa_v1_to_v2(v1())
    assert out["apiVersion"] == "autoscaling/v2"
    assert out["spec"]["metrics"] == [cpu(80)]
    assert "targetCPUUtilizationPercentage" not in out["spec"]


def test_v1_annotations_are_restored_and_dropped() -> None:
    annotations = {
        METRICS_ANNOTATION: (
            '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]'
        ),
        BEHAVIOR_ANNOTATION: (
            '{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":60,'
            '"SelectPolicy":null,"Policies":null,"Tolerance":"0.1"}}'
        ),
        "team": "a",
    }
    obj = v1(annotations, targetCPUUtilizationPercentage=70)
    obj["status"] = {
        "currentReplicas": 1,
        "desiredReplicas": 1,
        "currentCPUUtilizationPercentage": 40,
    }
    out = hpa_v1_to_v2(obj)
    assert out["metadata"]["annotations"] == {"team": "a"}
    assert out["spec"]["metrics"] == [
        {
            "type": "Pods",
            "pods": {
                "metric": {"name": "qps"},
                "target": {"type": "AverageValue", "averageValue": "10"},
            },
        },
        cpu(70),
    ]
    assert out["spec"]["behavior"] == {
        "scaleDown": {"stabilizationWindowSeconds": 60, "tolerance": "0.1"}
    }
    assert out["status"]["currentMetrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 40}}}
    ]


def test_v1_annotations_decode_case_insensitively() -> None:
    annotations = {
        METRICS_ANNOTATION: (
            '[{"Type":"External","External":{"MetricName":"q","TargetAverageValue":"2"}}]'
        )
    }
    out = hpa_v1_to_v2(v1(annotations))
    assert out["spec"]["metrics"] == [
        {
            "type": "External",
            "external": {
                "metric": {"name": "q"},
                "target": {"type": "AverageValue", "averageValue": "2"},
            },
        }
    ]


@pytest.mark.parametrize(
    "annotations",
    [
        dict.fromkeys(ROUND_TRIP_ANNOTATIONS, ""),
        dict.fromkeys(ROUND_TRIP_ANNOTATIONS, "abc"),
        dict.fromkeys(ROUND_TRIP_ANNOTATIONS, "{}"),
        {METRICS_ANNOTATION: '[{"type":"Pods","pods":"oops"}]', BEHAVIOR_ANNOTATION: "[]"},
    ],
    ids=["empty", "garbage", "wrong-json-type", "wrong-nested-type"],
)
def test_malformed_annotations_are_ignored_and_dropped(annotations: dict[str, str]) -> None:
    out = hpa_v1_to_v2(v1(annotations, targetCPUUtilizationPercentage=50))
    assert "annotations" not in out["metadata"]
    assert out["spec"]["metrics"] == [cpu(50)]
    assert "behavior" not in out["spec"]


def test_all_nil_behavior_annotation_leaves_behavior_unset() -> None:
    out = hpa_v1_to_v2(v1({BEHAVIOR_ANNOTATION: '{"ScaleUp":null,"ScaleDown":null}'}))
    assert "behavior" not in out["spec"]


# --- convert_hpa --------------------------------------------------------------------------------


def test_convert_hpa_dispatch_and_purity() -> None:
    obj = v2([cpu(50), PODS_METRIC])
    before = copy.deepcopy(obj)
    same = convert_hpa(obj, "autoscaling/v2")
    assert same == obj
    assert same is not obj
    down = convert_hpa(obj, "autoscaling/v1")
    assert down["apiVersion"] == "autoscaling/v1"
    assert convert_hpa(down, "autoscaling/v2")["apiVersion"] == "autoscaling/v2"
    assert obj == before


@pytest.mark.parametrize(
    ("obj", "target"),
    [
        ({"apiVersion": "apps/v1", "kind": "Deployment"}, "autoscaling/v1"),
        (
            {"apiVersion": "autoscaling/v2beta2", "kind": "HorizontalPodAutoscaler"},
            "autoscaling/v1",
        ),
        ({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler"}, "autoscaling/v3"),
    ],
    ids=["wrong-kind", "unserved-source", "unserved-target"],
)
def test_convert_hpa_rejects(obj: dict[str, Any], target: str) -> None:
    with pytest.raises(ValueError, match="convert"):
        convert_hpa(obj, target)


# --- Round trips on the shapes upstream round-trips ---------------------------------------------

names = st.text(alphabet="abcdefgh-", min_size=1, max_size=6)
quantities = st.sampled_from(["1", "250m", "1Gi", "10k", "0.5"])
selectors = st.one_of(
    st.none(),
    st.dictionaries(names, names, min_size=1, max_size=2).map(
        lambda labels: {"matchLabels": dict(sorted(labels.items()))}
    ),
)


def identifier(name: str, selector: Any) -> dict[str, Any]:
    return {"name": name} | ({"selector": selector} if selector else {})


@st.composite
def other_metric(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["Pods", "Object", "External", "Resource", "ContainerResource"]))
    metric = identifier(draw(names), draw(selectors))
    if kind == "Pods":
        target = {"type": "AverageValue", "averageValue": draw(quantities)}
        return {"type": kind, "pods": {"metric": metric, "target": target}}
    if kind == "Object":
        target = {"type": "Value", "value": draw(quantities)}
        described = {"kind": "Service", "name": draw(names)}
        return {
            "type": kind,
            "object": {"describedObject": described, "target": target, "metric": metric},
        }
    if kind == "External":
        target = draw(
            st.sampled_from(
                [{"type": "Value", "value": "3"}, {"type": "AverageValue", "averageValue": "250m"}]
            )
        )
        return {"type": kind, "external": {"metric": metric, "target": target}}
    target = draw(
        st.sampled_from(
            [
                {"type": "Utilization", "averageUtilization": 70},
                {"type": "AverageValue", "averageValue": "1Gi"},
            ]
        )
    )
    if kind == "Resource":
        return {"type": kind, "resource": {"name": "memory", "target": target}}
    return {
        "type": kind,
        "containerResource": {"name": "cpu", "container": draw(names), "target": target},
    }


@st.composite
def metric_status(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["Pods", "Object", "External", "Resource"]))
    metric = identifier(draw(names), draw(selectors))
    if kind == "Pods":
        return {
            "type": kind,
            "pods": {"metric": metric, "current": {"averageValue": draw(quantities)}},
        }
    if kind == "Object":
        current = {"value": draw(quantities)}
        return {
            "type": kind,
            "object": {
                "metric": metric,
                "current": current,
                "describedObject": {"kind": "Service", "name": "s"},
            },
        }
    if kind == "External":
        current = {"value": draw(quantities), "averageValue": "1"}
        return {"type": kind, "external": {"metric": metric, "current": current}}
    current = {"averageValue": draw(quantities)} | draw(
        st.sampled_from([{}, {"averageUtilization": 42}])
    )
    return {
        "type": kind,
        "resource": {"name": draw(st.sampled_from(["cpu", "memory"])), "current": current},
    }


rules = st.fixed_dictionaries(
    {},
    optional={
        "stabilizationWindowSeconds": st.integers(0, 3600),
        "selectPolicy": st.sampled_from(["Max", "Min", "Disabled"]),
        "policies": st.lists(
            st.fixed_dictionaries(
                {
                    "type": st.sampled_from(["Pods", "Percent"]),
                    "value": st.integers(1, 100),
                    "periodSeconds": st.integers(1, 1800),
                }
            ),
            min_size=1,
            max_size=2,
        ),
        "tolerance": st.sampled_from(["0.05", "100m"]),
    },
)
behaviors = st.one_of(
    st.none(),
    st.fixed_dictionaries({"scaleUp": rules}, optional={"scaleDown": rules}),
    st.fixed_dictionaries({"scaleDown": rules}),
)
conditions = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["AbleToScale", "ScalingActive", "ScalingLimited"]),
            "status": st.sampled_from(["True", "False", "Unknown"]),
            "lastTransitionTime": st.just("2025-01-01T00:00:00Z"),
        },
        optional={"reason": names, "message": st.text(min_size=1, max_size=8)},
    ),
    max_size=3,
)
metadata_extras = st.dictionaries(
    st.sampled_from(["labels", "uid", "x-unknown"]),
    st.dictionaries(names, names, max_size=2),
    max_size=2,
)


@st.composite
def canonical_v2(draw: st.DrawFn) -> dict[str, Any]:
    """A v2 HPA in the shape upstream round-trips: the CPU utilization metric (if any) last."""
    metrics = draw(st.lists(other_metric(), max_size=3))
    if draw(st.booleans()) or not metrics:
        metrics.append(cpu(draw(st.integers(1, 100))))
    obj = v2(metrics)
    obj["metadata"] |= draw(metadata_extras)
    obj["metadata"]["annotations"] = draw(st.dictionaries(names, names, max_size=2))
    if not obj["metadata"]["annotations"]:
        del obj["metadata"]["annotations"]
    if (behavior := draw(behaviors)) is not None:
        obj["spec"]["behavior"] = behavior
    if draw(st.booleans()):
        status: dict[str, Any] = {"currentReplicas": 2, "desiredReplicas": 3}
        current = draw(st.lists(metric_status(), max_size=3))
        status |= {"currentMetrics": current} if current else {}
        found = draw(conditions)
        status |= {"conditions": found} if found else {}
        obj["status"] = status
    obj["x-top-level"] = draw(st.integers())
    return obj


@given(obj=canonical_v2())
def test_v2_to_v1_to_v2_is_lossless(obj: dict[str, Any]) -> None:
    before = copy.deepcopy(obj)
    down = hpa_v2_to_v1(obj)
    assert obj == before
    assert hpa_v1_to_v2(down) == obj


@given(obj=canonical_v2())
def test_v1_to_v2_to_v1_is_lossless(obj: dict[str, Any]) -> None:
    as_v1 = hpa_v2_to_v1(obj)
    before = copy.deepcopy(as_v1)
    up = hpa_v1_to_v2(as_v1)
    assert as_v1 == before
    assert hpa_v2_to_v1(up) == as_v1


@pytest.mark.parametrize(
    "encoded",
    ['{"ScaleUp":"fast"}', '{"ScaleUp":{"Policies":[1]}}', "[]", "null"],
    ids=["rules-not-object", "policy-not-object", "array", "null"],
)
def test_undecodable_behavior_annotation_is_ignored(encoded: str) -> None:
    out = hpa_v1_to_v2(v1({BEHAVIOR_ANNOTATION: encoded}))
    assert "behavior" not in out["spec"]
    assert "annotations" not in out["metadata"]


def test_null_annotations_are_replaced_when_annotations_are_written() -> None:
    obj = v2([PODS_METRIC])
    obj["metadata"]["annotations"] = None
    out = hpa_v2_to_v1(obj)
    assert set(out["metadata"]["annotations"]) == {METRICS_ANNOTATION}
