"""HPA conversion, v2 -> v1 pieces: metric specs, metric statuses, conditions and behavior.

``conversion.hpa_v2_to_v1`` encodes everything v1 cannot express with these, in v1's old-style
MetricSpec/MetricStatus shapes and, for the behavior, upstream's untagged *internal* Go shape;
``conversion_to_v2`` reads them back. JSON quirks come from ``conversion_json``. Spec: upstream
``pkg/apis/autoscaling/v1/conversion.go`` (``Convert_autoscaling_MetricSpec_To_v1_MetricSpec``
and friends).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

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


def _put_quantity(out: JSON, key: str, value: Any, *, always: bool) -> None:
    """``out[key]``: the encoded quantity; a zero one when ``always`` (a non-pointer Go
    field), else left out when absent (a pointer with omitempty)."""
    if always:
        out[key] = encode_quantity(value) or ZERO_QUANTITY
    else:
        put_omitempty(out, key, encode_quantity(value))


def _v1_resource(source: JSON, side: str, container: bool) -> JSON:
    """A Resource or ContainerResource source's spec (``side`` "target") or status
    ("current"); only the status's average value is a non-pointer field."""
    values = fold_keys(source.get(side))
    out: JSON = {"name": source.get("name", "")}
    put_omitempty(out, f"{side}AverageUtilization", values.get("averageutilization"))
    average = values.get("averagevalue")
    _put_quantity(out, f"{side}AverageValue", average, always=side == "current")
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


def _v1_external(source: JSON, side: str) -> JSON:
    """An External source's spec or status; only the status's value is a non-pointer field."""
    values, ident = fold_keys(source.get(side)), fold_keys(source.get("metric"))
    out: JSON = {"metricName": ident.get("name", "")}
    put_omitempty(out, "metricSelector", encode_selector(ident.get("selector")))
    _put_quantity(out, f"{side}Value", values.get("value"), always=side == "current")
    put_omitempty(out, f"{side}AverageValue", encode_quantity(values.get("averagevalue")))
    return out


# The v1 converter of each v2 source type, in v1's field order.
_SOURCES: Final[dict[str, Callable[[JSON, str], JSON]]] = {
    "object": _v1_object,
    "pods": _v1_pods,
    "resource": lambda source, side: _v1_resource(source, side, container=False),
    "containerResource": lambda source, side: _v1_resource(source, side, container=True),
    "external": _v1_external,
}


def _v1_metric(metric: JSON, side: str) -> JSON:
    """One v2 MetricSpec (``side`` "target") or MetricStatus ("current") in v1's shape."""
    out: JSON = {"type": metric.get("type", "")}
    for key, convert in _SOURCES.items():
        if isinstance(source := metric.get(key), dict):
            out[key] = convert(source, side)
    return out


def convert_metric_spec_to_v1(metric: JSON) -> JSON:
    """One v2 MetricSpec in v1's old-style shape (for the metrics annotation)."""
    return _v1_metric(metric, "target")


def convert_metric_status_to_v1(metric: JSON) -> JSON:
    """One v2 MetricStatus in v1's old-style shape (for the current-metrics annotation)."""
    return _v1_metric(metric, "current")


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
