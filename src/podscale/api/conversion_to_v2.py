"""HPA conversion, v1 -> v2 pieces: decode what ``conversion_to_v1`` put in the annotations.

``conversion.hpa_v1_to_v2`` turns each saved old-style metric spec, metric status, condition and
internal-shape scaling rules back into v2 JSON with these. Decoding is Go-like (case-insensitive
keys via ``conversion_json``) and raises ``TypeError`` where Go's decoder would fail, so the
caller can ignore a malformed annotation as a whole. Spec: upstream
``pkg/apis/autoscaling/v1/conversion.go`` (``Convert_v1_MetricSpec_To_autoscaling_MetricSpec``
and friends).
"""

from __future__ import annotations

from typing import Any

from podscale.api.conversion_json import (
    JSON,
    ZERO_QUANTITY,
    encode_identifier,
    encode_object_ref,
    encode_quantity,
    fold_struct,
    put_omitempty,
)

__all__ = [
    "convert_condition_to_v2",
    "convert_metric_spec_to_v2",
    "convert_metric_status_to_v2",
    "decode_internal_rules",
]


def _v2_target(kind: str, value: Any = None, average: Any = None, utilization: Any = None) -> JSON:
    target: JSON = {"type": kind}
    put_omitempty(target, "value", encode_quantity(value))
    put_omitempty(target, "averageValue", encode_quantity(average))
    if utilization is not None:
        target["averageUtilization"] = utilization
    return target


def _v2_current(value: Any = None, average: Any = None, utilization: Any = None) -> JSON:
    current: JSON = {}
    put_omitempty(current, "value", encode_quantity(value))
    put_omitempty(current, "averageValue", encode_quantity(average))
    if utilization is not None:
        current["averageUtilization"] = utilization
    return current


def _v2_resource_spec(raw: JSON, container: bool) -> JSON:
    utilization = raw.get("targetaverageutilization")
    kind = "AverageValue" if utilization is None else "Utilization"
    out: JSON = {"name": raw.get("name", "")}
    if container:
        out["container"] = raw.get("container", "")
    out["target"] = _v2_target(kind, average=raw.get("targetaveragevalue"), utilization=utilization)
    return out


def convert_metric_spec_to_v2(metric: Any) -> JSON:
    """One saved old-style metric spec back to v2; ``TypeError`` when not decodable."""
    raw = fold_struct(metric)
    out: JSON = {"type": raw.get("type", "")}
    if raw.get("object") is not None:
        obj = fold_struct(raw["object"])
        average = obj.get("averagevalue")
        kind = "Value" if average is None else "AverageValue"
        value = obj.get("targetvalue") or ZERO_QUANTITY
        out["object"] = {
            "describedObject": encode_object_ref(obj.get("target")),
            "target": _v2_target(kind, value=value, average=average),
            "metric": encode_identifier(obj.get("metricname"), obj.get("selector")),
        }
    if raw.get("pods") is not None:
        pods = fold_struct(raw["pods"])
        average = pods.get("targetaveragevalue") or ZERO_QUANTITY
        out["pods"] = {
            "metric": encode_identifier(pods.get("metricname"), pods.get("selector")),
            "target": _v2_target("AverageValue", average=average),
        }
    if raw.get("resource") is not None:
        out["resource"] = _v2_resource_spec(fold_struct(raw["resource"]), container=False)
    if raw.get("containerresource") is not None:
        out["containerResource"] = _v2_resource_spec(fold_struct(raw["containerresource"]), True)
    if raw.get("external") is not None:
        ext = fold_struct(raw["external"])
        value, average = ext.get("targetvalue"), ext.get("targetaveragevalue")
        kind = "AverageValue" if value is None else "Value"
        out["external"] = {
            "metric": encode_identifier(ext.get("metricname"), ext.get("metricselector")),
            "target": _v2_target(kind, value=value, average=average),
        }
    return out


def _v2_resource_status(raw: JSON, container: bool) -> JSON:
    out: JSON = {"name": raw.get("name", "")}
    if container:
        out["container"] = raw.get("container", "")
    out["current"] = _v2_current(
        average=raw.get("currentaveragevalue") or ZERO_QUANTITY,
        utilization=raw.get("currentaverageutilization"),
    )
    return out


def convert_metric_status_to_v2(metric: Any) -> JSON:
    """One saved old-style metric status back to v2; ``TypeError`` when not decodable."""
    raw = fold_struct(metric)
    out: JSON = {"type": raw.get("type", "")}
    if raw.get("object") is not None:
        obj = fold_struct(raw["object"])
        out["object"] = {
            "metric": encode_identifier(obj.get("metricname"), obj.get("selector")),
            "current": _v2_current(
                obj.get("currentvalue") or ZERO_QUANTITY, obj.get("averagevalue")
            ),
            "describedObject": encode_object_ref(obj.get("target")),
        }
    if raw.get("pods") is not None:
        pods = fold_struct(raw["pods"])
        out["pods"] = {
            "metric": encode_identifier(pods.get("metricname"), pods.get("selector")),
            "current": _v2_current(average=pods.get("currentaveragevalue") or ZERO_QUANTITY),
        }
    if raw.get("resource") is not None:
        out["resource"] = _v2_resource_status(fold_struct(raw["resource"]), container=False)
    if raw.get("containerresource") is not None:
        out["containerResource"] = _v2_resource_status(fold_struct(raw["containerresource"]), True)
    if raw.get("external") is not None:
        ext = fold_struct(raw["external"])
        out["external"] = {
            "metric": encode_identifier(ext.get("metricname"), ext.get("metricselector")),
            "current": _v2_current(
                ext.get("currentvalue") or ZERO_QUANTITY, ext.get("currentaveragevalue")
            ),
        }
    return out


def convert_condition_to_v2(condition: Any) -> JSON:
    """One saved condition back to v2; ``TypeError`` when not decodable."""
    raw = fold_struct(condition)
    out: JSON = {"type": raw.get("type", ""), "status": raw.get("status", "")}
    put_omitempty(out, "lastTransitionTime", raw.get("lasttransitiontime"))
    put_omitempty(out, "reason", raw.get("reason"))
    put_omitempty(out, "message", raw.get("message"))
    if raw.get("observedgeneration") is not None:
        out["observedGeneration"] = raw["observedgeneration"]
    return out


def decode_internal_rules(rules: Any) -> JSON:
    """Internal-shape scaling rules back to v2 JSON; TypeError when not decodable."""
    raw = fold_struct(rules)
    out: JSON = {}
    if raw.get("stabilizationwindowseconds") is not None:
        out["stabilizationWindowSeconds"] = raw["stabilizationwindowseconds"]
    put_omitempty(out, "selectPolicy", raw.get("selectpolicy"))
    policies = []
    for item in raw.get("policies") or []:
        policy = fold_struct(item)
        policies.append(
            {
                "type": policy.get("type", ""),
                "value": policy.get("value", 0),
                "periodSeconds": policy.get("periodseconds", 0),
            }
        )
    put_omitempty(out, "policies", policies)
    put_omitempty(out, "tolerance", encode_quantity(raw.get("tolerance")))
    return out
