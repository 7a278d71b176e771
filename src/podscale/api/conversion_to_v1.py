"""HPA conversion, v2 -> v1 pieces: metric specs, metric statuses, conditions and behavior.

``conversion.hpa_v2_to_v1`` encodes everything v1 cannot express with these, in v1's old-style
MetricSpec/MetricStatus shapes and, for the behavior, upstream's untagged *internal* Go shape;
``conversion_to_v2`` reads them back. JSON quirks come from ``conversion_json``. Spec: upstream
``pkg/apis/autoscaling/v1/conversion.go`` (``Convert_autoscaling_MetricSpec_To_v1_MetricSpec``
and friends).
"""

from __future__ import annotations

from typing import Any

from podscale.api.conversion_json import (
    JSON,
    ZERO_QUANTITY,
    encode_object_ref,
    encode_quantity,
    encode_selector,
    fold_keys,
    put_omitempty,
)

__all__ = [
    "convert_condition_to_v1",
    "convert_metric_spec_to_v1",
    "convert_metric_status_to_v1",
    "encode_internal_rules",
]


def _v1_resource_spec(source: JSON, container: bool) -> JSON:
    target = fold_keys(source.get("target"))
    out: JSON = {"name": source.get("name", "")}
    put_omitempty(out, "targetAverageUtilization", target.get("averageutilization"))
    put_omitempty(out, "targetAverageValue", encode_quantity(target.get("averagevalue")))
    if container:
        out["container"] = source.get("container", "")
    return out


def _v1_object(source: JSON, side: str) -> JSON:
    """An Object source's spec (``side`` "target") or status ("current"): v1 spells both
    alike, with the value under ``<side>Value`` and the average under ``averageValue``."""
    values, ident = fold_keys(source.get(side)), fold_keys(source.get("metric"))
    out: JSON = {"target": encode_object_ref(source.get("describedObject"))}
    out["metricName"] = ident.get("name", "")
    out[f"{side}Value"] = encode_quantity(values.get("value")) or ZERO_QUANTITY
    put_omitempty(out, "selector", encode_selector(ident.get("selector")))
    put_omitempty(out, "averageValue", encode_quantity(values.get("averagevalue")))
    return out


def _v1_pods(source: JSON, side: str) -> JSON:
    """A Pods source's spec or status: the average under ``<side>AverageValue``."""
    values, ident = fold_keys(source.get(side)), fold_keys(source.get("metric"))
    out: JSON = {"metricName": ident.get("name", "")}
    out[f"{side}AverageValue"] = encode_quantity(values.get("averagevalue")) or ZERO_QUANTITY
    put_omitempty(out, "selector", encode_selector(ident.get("selector")))
    return out


def convert_metric_spec_to_v1(metric: JSON) -> JSON:
    """One v2 MetricSpec in v1's old-style shape (for the metrics annotation)."""
    out: JSON = {"type": metric.get("type", "")}
    if isinstance(obj := metric.get("object"), dict):
        out["object"] = _v1_object(obj, "target")
    if isinstance(pods := metric.get("pods"), dict):
        out["pods"] = _v1_pods(pods, "target")
    if isinstance(resource := metric.get("resource"), dict):
        out["resource"] = _v1_resource_spec(resource, container=False)
    if isinstance(container := metric.get("containerResource"), dict):
        out["containerResource"] = _v1_resource_spec(container, container=True)
    if isinstance(external := metric.get("external"), dict):
        target, ident = fold_keys(external.get("target")), fold_keys(external.get("metric"))
        source = {"metricName": ident.get("name", "")}
        put_omitempty(source, "metricSelector", encode_selector(ident.get("selector")))
        put_omitempty(source, "targetValue", encode_quantity(target.get("value")))
        put_omitempty(source, "targetAverageValue", encode_quantity(target.get("averagevalue")))
        out["external"] = source
    return out


def _v1_resource_status(source: JSON, container: bool) -> JSON:
    current = fold_keys(source.get("current"))
    out: JSON = {"name": source.get("name", "")}
    put_omitempty(out, "currentAverageUtilization", current.get("averageutilization"))
    out["currentAverageValue"] = encode_quantity(current.get("averagevalue")) or ZERO_QUANTITY
    if container:
        out["container"] = source.get("container", "")
    return out


def convert_metric_status_to_v1(metric: JSON) -> JSON:
    """One v2 MetricStatus in v1's old-style shape (for the current-metrics annotation)."""
    out: JSON = {"type": metric.get("type", "")}
    if isinstance(obj := metric.get("object"), dict):
        out["object"] = _v1_object(obj, "current")
    if isinstance(pods := metric.get("pods"), dict):
        out["pods"] = _v1_pods(pods, "current")
    if isinstance(resource := metric.get("resource"), dict):
        out["resource"] = _v1_resource_status(resource, container=False)
    if isinstance(container := metric.get("containerResource"), dict):
        out["containerResource"] = _v1_resource_status(container, container=True)
    if isinstance(external := metric.get("external"), dict):
        current, ident = fold_keys(external.get("current")), fold_keys(external.get("metric"))
        source = {"metricName": ident.get("name", "")}
        put_omitempty(source, "metricSelector", encode_selector(ident.get("selector")))
        source["currentValue"] = encode_quantity(current.get("value")) or ZERO_QUANTITY
        put_omitempty(source, "currentAverageValue", encode_quantity(current.get("averagevalue")))
        out["external"] = source
    return out


def convert_condition_to_v1(condition: JSON) -> JSON:
    """One status condition as v1 encodes it (for the conditions annotation)."""
    # metav1.Time is a struct, so omitempty never drops it: an unset time encodes as null.
    out: JSON = {"type": condition.get("type", ""), "status": condition.get("status", "")}
    out["lastTransitionTime"] = condition.get("lastTransitionTime")
    put_omitempty(out, "reason", condition.get("reason"))
    put_omitempty(out, "message", condition.get("message"))
    if condition.get("observedGeneration") is not None:
        out["observedGeneration"] = condition["observedGeneration"]
    return out


def encode_internal_rules(rules: Any) -> JSON | None:
    """HPAScalingRules as upstream's untagged internal struct marshals: Go names, nulls kept."""
    if not isinstance(rules, dict):
        return None
    policies = rules.get("policies")
    return {
        "StabilizationWindowSeconds": rules.get("stabilizationWindowSeconds"),
        "SelectPolicy": rules.get("selectPolicy"),
        "Policies": None
        if policies is None
        else [
            {
                "Type": policy.get("type", ""),
                "Value": policy.get("value", 0),
                "PeriodSeconds": policy.get("periodSeconds", 0),
            }
            for policy in policies
            if isinstance(policy, dict)
        ],
        "Tolerance": encode_quantity(rules.get("tolerance")),
    }
