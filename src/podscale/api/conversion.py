"""HorizontalPodAutoscaler conversion between autoscaling/v1 and v2, as upstream does it.

autoscaling/v2 is the storage version (``podscale.api.kinds``); the API server converts with
``convert_hpa`` when a client speaks v1. v1 can only say "target this CPU utilization", so
everything else a v2 object holds rides in four annotations, JSON-encoded the way upstream's Go
encoder writes them (pkg/apis/autoscaling/v1/conversion.go):

- ``autoscaling.alpha.kubernetes.io/metrics``: the non-CPU-utilization metrics, in v1's
  old-style MetricSpec shape (``metricName``, ``targetAverageValue``...);
- ``.../current-metrics``: every current metric, in v1's MetricStatus shape;
- ``.../conditions``: the status conditions;
- ``.../behavior``: the behavior, in upstream's *internal* Go shape (``ScaleUp``,
  ``StabilizationWindowSeconds``...: upstream marshals an untagged internal struct).

Converting back restores the fields and drops the annotations. Faithful to upstream, and so
lossless only for objects in the shape upstream round-trips: a CPU utilization metric comes back
last, and v1's non-pointer quantities (``targetValue``, ``currentAverageValue``...) come back as
``"0"`` where v2 had none. Malformed annotations are ignored, as upstream ignores them.
Quantity strings are carried verbatim (upstream would re-canonicalize them).
Neighbours: ``podscale.api.defaults`` (conversion never defaults, except v1's implicit 80% CPU).
"""

from __future__ import annotations

import copy
import json
from typing import Any, Final

from podscale.api.defaults import DEFAULT_CPU_UTILIZATION

__all__ = [
    "BEHAVIOR_ANNOTATION",
    "CONDITIONS_ANNOTATION",
    "CURRENT_METRICS_ANNOTATION",
    "METRICS_ANNOTATION",
    "ROUND_TRIP_ANNOTATIONS",
    "convert_hpa",
    "hpa_v1_to_v2",
    "hpa_v2_to_v1",
]

METRICS_ANNOTATION: Final = "autoscaling.alpha.kubernetes.io/metrics"
CURRENT_METRICS_ANNOTATION: Final = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS_ANNOTATION: Final = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR_ANNOTATION: Final = "autoscaling.alpha.kubernetes.io/behavior"
ROUND_TRIP_ANNOTATIONS: Final = (
    METRICS_ANNOTATION,
    BEHAVIOR_ANNOTATION,
    CURRENT_METRICS_ANNOTATION,
    CONDITIONS_ANNOTATION,
)

V1: Final = "autoscaling/v1"
V2: Final = "autoscaling/v2"
KIND: Final = "HorizontalPodAutoscaler"
# A Go resource.Quantity that was never set marshals as "0".
_ZERO: Final = "0"

JSON = dict[str, Any]


def convert_hpa(obj: JSON, api_version: str) -> JSON:
    """Convert an HPA to ``api_version`` (autoscaling/v1 or /v2); a copy if already there."""
    if obj.get("kind") != KIND:
        raise ValueError(f"cannot convert kind {obj.get('kind')!r}: only {KIND} is convertible")
    source = obj.get("apiVersion")
    if api_version not in (V1, V2) or source not in (V1, V2):
        raise ValueError(f"cannot convert {KIND} from {source!r} to {api_version!r}")
    if source == api_version:
        return copy.deepcopy(obj)
    return hpa_v2_to_v1(obj) if api_version == V1 else hpa_v1_to_v2(obj)


# --- encoding helpers ---------------------------------------------------------------------------


def _go_json(value: Any) -> str:
    """Compact JSON escaped like Go's encoding/json (HTML-safe, U+2028/2029 escaped)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def _put(out: JSON, key: str, value: Any) -> None:
    """Set an ``omitempty`` field: only when it carries a value."""
    if value not in (None, "", [], {}):
        out[key] = value


def _fold(value: Any) -> JSON:
    """Key lookup as Go's decoder does it: case-insensitive. Non-objects decode as empty."""
    return {str(k).lower(): v for k, v in value.items()} if isinstance(value, dict) else {}


def _strict(value: Any) -> JSON:
    """``_fold`` for decoding annotations: a non-object where a struct belongs fails the decode."""
    if value is not None and not isinstance(value, dict):
        raise TypeError(f"cannot decode {type(value).__name__} into a struct")
    return _fold(value)


def _quantity(value: Any) -> Any:
    # A JSON number is a valid quantity for Go's decoder; keep strings as written.
    if isinstance(value, bool) or value is None:
        return None
    return str(value) if isinstance(value, int | float) else value


def _selector(value: Any) -> JSON | None:
    """A LabelSelector re-encoded in Go's field order; unknown fields fall away as in Go."""
    if not isinstance(value, dict):
        return None
    raw = _fold(value)
    out: JSON = {}
    labels = raw.get("matchlabels")
    if isinstance(labels, dict) and labels:
        out["matchLabels"] = dict(sorted(labels.items()))
    expressions = []
    for item in raw.get("matchexpressions") or []:
        expr = _fold(item)
        entry: JSON = {"key": expr.get("key", ""), "operator": expr.get("operator", "")}
        _put(entry, "values", expr.get("values"))
        expressions.append(entry)
    _put(out, "matchExpressions", expressions)
    return out


def _object_ref(value: Any) -> JSON:
    raw = _fold(value)
    ref: JSON = {"kind": raw.get("kind", ""), "name": raw.get("name", "")}
    _put(ref, "apiVersion", raw.get("apiversion"))
    return ref


def _identifier(name: Any, selector: Any) -> JSON:
    metric: JSON = {"name": name or ""}
    _put(metric, "selector", _selector(selector))
    return metric


# --- v2 -> v1 ------------------------------------------------------------------------------------


def _v1_resource_spec(source: JSON, container: bool) -> JSON:
    target = _fold(source.get("target"))
    out: JSON = {"name": source.get("name", "")}
    _put(out, "targetAverageUtilization", target.get("averageutilization"))
    _put(out, "targetAverageValue", _quantity(target.get("averagevalue")))
    if container:
        out["container"] = source.get("container", "")
    return out


def _v1_metric_spec(metric: JSON) -> JSON:
    out: JSON = {"type": metric.get("type", "")}
    if isinstance(obj := metric.get("object"), dict):
        target, ident = _fold(obj.get("target")), _fold(obj.get("metric"))
        source: JSON = {"target": _object_ref(obj.get("describedObject"))}
        source["metricName"] = ident.get("name", "")
        source["targetValue"] = _quantity(target.get("value")) or _ZERO
        _put(source, "selector", _selector(ident.get("selector")))
        _put(source, "averageValue", _quantity(target.get("averagevalue")))
        out["object"] = source
    if isinstance(pods := metric.get("pods"), dict):
        target, ident = _fold(pods.get("target")), _fold(pods.get("metric"))
        source = {"metricName": ident.get("name", "")}
        source["targetAverageValue"] = _quantity(target.get("averagevalue")) or _ZERO
        _put(source, "selector", _selector(ident.get("selector")))
        out["pods"] = source
    if isinstance(resource := metric.get("resource"), dict):
        out["resource"] = _v1_resource_spec(resource, container=False)
    if isinstance(container := metric.get("containerResource"), dict):
        out["containerResource"] = _v1_resource_spec(container, container=True)
    if isinstance(external := metric.get("external"), dict):
        target, ident = _fold(external.get("target")), _fold(external.get("metric"))
        source = {"metricName": ident.get("name", "")}
        _put(source, "metricSelector", _selector(ident.get("selector")))
        _put(source, "targetValue", _quantity(target.get("value")))
        _put(source, "targetAverageValue", _quantity(target.get("averagevalue")))
        out["external"] = source
    return out


def _v1_resource_status(source: JSON, container: bool) -> JSON:
    current = _fold(source.get("current"))
    out: JSON = {"name": source.get("name", "")}
    _put(out, "currentAverageUtilization", current.get("averageutilization"))
    out["currentAverageValue"] = _quantity(current.get("averagevalue")) or _ZERO
    if container:
        out["container"] = source.get("container", "")
    return out


def _v1_metric_status(metric: JSON) -> JSON:
    out: JSON = {"type": metric.get("type", "")}
    if isinstance(obj := metric.get("object"), dict):
        current, ident = _fold(obj.get("current")), _fold(obj.get("metric"))
        source: JSON = {"target": _object_ref(obj.get("describedObject"))}
        source["metricName"] = ident.get("name", "")
        source["currentValue"] = _quantity(current.get("value")) or _ZERO
        _put(source, "selector", _selector(ident.get("selector")))
        _put(source, "averageValue", _quantity(current.get("averagevalue")))
        out["object"] = source
    if isinstance(pods := metric.get("pods"), dict):
        current, ident = _fold(pods.get("current")), _fold(pods.get("metric"))
        source = {"metricName": ident.get("name", "")}
        source["currentAverageValue"] = _quantity(current.get("averagevalue")) or _ZERO
        _put(source, "selector", _selector(ident.get("selector")))
        out["pods"] = source
    if isinstance(resource := metric.get("resource"), dict):
        out["resource"] = _v1_resource_status(resource, container=False)
    if isinstance(container := metric.get("containerResource"), dict):
        out["containerResource"] = _v1_resource_status(container, container=True)
    if isinstance(external := metric.get("external"), dict):
        current, ident = _fold(external.get("current")), _fold(external.get("metric"))
        source = {"metricName": ident.get("name", "")}
        _put(source, "metricSelector", _selector(ident.get("selector")))
        source["currentValue"] = _quantity(current.get("value")) or _ZERO
        _put(source, "currentAverageValue", _quantity(current.get("averagevalue")))
        out["external"] = source
    return out


def _v1_condition(condition: JSON) -> JSON:
    # metav1.Time is a struct, so omitempty never drops it: an unset time encodes as null.
    out: JSON = {"type": condition.get("type", ""), "status": condition.get("status", "")}
    out["lastTransitionTime"] = condition.get("lastTransitionTime")
    _put(out, "reason", condition.get("reason"))
    _put(out, "message", condition.get("message"))
    if condition.get("observedGeneration") is not None:
        out["observedGeneration"] = condition["observedGeneration"]
    return out


def _internal_rules(rules: Any) -> JSON | None:
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
        "Tolerance": _quantity(rules.get("tolerance")),
    }


def _is_cpu_resource(metric: JSON) -> bool:
    resource = metric.get("resource")
    return (
        metric.get("type") == "Resource"
        and isinstance(resource, dict)
        and resource.get("name") == "cpu"
    )


def _cpu_utilization(metric: JSON, field: str) -> Any:
    return _fold(metric["resource"].get(field)).get("averageutilization")


def _drop_round_trip_annotations(metadata: JSON) -> None:
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict) and any(k in annotations for k in ROUND_TRIP_ANNOTATIONS):
        for key in ROUND_TRIP_ANNOTATIONS:
            annotations.pop(key, None)
        if not annotations:
            del metadata["annotations"]


def hpa_v2_to_v1(obj: JSON) -> JSON:
    """Convert an autoscaling/v2 HPA to autoscaling/v1; ``obj`` is not modified."""
    out = copy.deepcopy(obj)
    out["apiVersion"], out["kind"] = V1, KIND
    spec, status = out.get("spec"), out.get("status")
    spec = spec if isinstance(spec, dict) else {}
    status = status if isinstance(status, dict) else {}
    metrics = [m for m in spec.pop("metrics", None) or [] if isinstance(m, dict)]
    behavior = spec.pop("behavior", None)
    current_metrics = [m for m in status.pop("currentMetrics", None) or [] if isinstance(m, dict)]
    conditions = [c for c in status.pop("conditions", None) or [] if isinstance(c, dict)]

    # The first CPU Resource metric decides the v1 target, even when it is not a utilization.
    for metric in metrics:
        if _is_cpu_resource(metric):
            _put(spec, "targetCPUUtilizationPercentage", _cpu_utilization(metric, "target"))
            break
    # The last CPU utilization reading wins, as upstream keeps overwriting it.
    for metric in current_metrics:
        if _is_cpu_resource(metric) and _cpu_utilization(metric, "current") is not None:
            status["currentCPUUtilizationPercentage"] = _cpu_utilization(metric, "current")

    other_metrics = [
        _v1_metric_spec(m)
        for m in metrics
        if not (_is_cpu_resource(m) and _cpu_utilization(m, "target") is not None)
    ]
    encoded: dict[str, str] = {}
    if other_metrics:
        encoded[METRICS_ANNOTATION] = _go_json(other_metrics)
    if current_metrics:
        encoded[CURRENT_METRICS_ANNOTATION] = _go_json(
            [_v1_metric_status(m) for m in current_metrics]
        )
    if isinstance(behavior, dict):
        encoded[BEHAVIOR_ANNOTATION] = _go_json(
            {
                "ScaleUp": _internal_rules(behavior.get("scaleUp")),
                "ScaleDown": _internal_rules(behavior.get("scaleDown")),
            }
        )
    if conditions:
        encoded[CONDITIONS_ANNOTATION] = _go_json([_v1_condition(c) for c in conditions])

    # Stale round-trip annotations never survive: only the ones produced here are written.
    metadata = out.get("metadata")
    if isinstance(metadata, dict):
        _drop_round_trip_annotations(metadata)
    if encoded:
        if not isinstance(metadata, dict):
            metadata = out["metadata"] = {}
        if not isinstance(metadata.get("annotations"), dict):
            metadata["annotations"] = {}
        metadata["annotations"].update(encoded)
    return out


# --- v1 -> v2 ------------------------------------------------------------------------------------


def _v2_target(kind: str, value: Any = None, average: Any = None, utilization: Any = None) -> JSON:
    target: JSON = {"type": kind}
    _put(target, "value", _quantity(value))
    _put(target, "averageValue", _quantity(average))
    if utilization is not None:
        target["averageUtilization"] = utilization
    return target


def _v2_current(value: Any = None, average: Any = None, utilization: Any = None) -> JSON:
    current: JSON = {}
    _put(current, "value", _quantity(value))
    _put(current, "averageValue", _quantity(average))
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


def _v2_metric_spec(metric: Any) -> JSON:
    raw = _strict(metric)
    out: JSON = {"type": raw.get("type", "")}
    if raw.get("object") is not None:
        obj = _strict(raw["object"])
        average = obj.get("averagevalue")
        kind = "Value" if average is None else "AverageValue"
        value = obj.get("targetvalue") or _ZERO
        out["object"] = {
            "describedObject": _object_ref(obj.get("target")),
            "target": _v2_target(kind, value=value, average=average),
            "metric": _identifier(obj.get("metricname"), obj.get("selector")),
        }
    if raw.get("pods") is not None:
        pods = _strict(raw["pods"])
        average = pods.get("targetaveragevalue") or _ZERO
        out["pods"] = {
            "metric": _identifier(pods.get("metricname"), pods.get("selector")),
            "target": _v2_target("AverageValue", average=average),
        }
    if raw.get("resource") is not None:
        out["resource"] = _v2_resource_spec(_strict(raw["resource"]), container=False)
    if raw.get("containerresource") is not None:
        out["containerResource"] = _v2_resource_spec(_strict(raw["containerresource"]), True)
    if raw.get("external") is not None:
        ext = _strict(raw["external"])
        value, average = ext.get("targetvalue"), ext.get("targetaveragevalue")
        kind = "AverageValue" if value is None else "Value"
        out["external"] = {
            "metric": _identifier(ext.get("metricname"), ext.get("metricselector")),
            "target": _v2_target(kind, value=value, average=average),
        }
    return out


def _v2_resource_status(raw: JSON, container: bool) -> JSON:
    out: JSON = {"name": raw.get("name", "")}
    if container:
        out["container"] = raw.get("container", "")
    out["current"] = _v2_current(
        average=raw.get("currentaveragevalue") or _ZERO,
        utilization=raw.get("currentaverageutilization"),
    )
    return out


def _v2_metric_status(metric: Any) -> JSON:
    raw = _strict(metric)
    out: JSON = {"type": raw.get("type", "")}
    if raw.get("object") is not None:
        obj = _strict(raw["object"])
        out["object"] = {
            "metric": _identifier(obj.get("metricname"), obj.get("selector")),
            "current": _v2_current(obj.get("currentvalue") or _ZERO, obj.get("averagevalue")),
            "describedObject": _object_ref(obj.get("target")),
        }
    if raw.get("pods") is not None:
        pods = _strict(raw["pods"])
        out["pods"] = {
            "metric": _identifier(pods.get("metricname"), pods.get("selector")),
            "current": _v2_current(average=pods.get("currentaveragevalue") or _ZERO),
        }
    if raw.get("resource") is not None:
        out["resource"] = _v2_resource_status(_strict(raw["resource"]), container=False)
    if raw.get("containerresource") is not None:
        out["containerResource"] = _v2_resource_status(_strict(raw["containerresource"]), True)
    if raw.get("external") is not None:
        ext = _strict(raw["external"])
        out["external"] = {
            "metric": _identifier(ext.get("metricname"), ext.get("metricselector")),
            "current": _v2_current(
                ext.get("currentvalue") or _ZERO, ext.get("currentaveragevalue")
            ),
        }
    return out


def _v2_condition(condition: Any) -> JSON:
    raw = _strict(condition)
    out: JSON = {"type": raw.get("type", ""), "status": raw.get("status", "")}
    _put(out, "lastTransitionTime", raw.get("lasttransitiontime"))
    _put(out, "reason", raw.get("reason"))
    _put(out, "message", raw.get("message"))
    if raw.get("observedgeneration") is not None:
        out["observedGeneration"] = raw["observedgeneration"]
    return out


def _v2_rules(rules: Any) -> JSON:
    """Internal-shape scaling rules back to v2 JSON; TypeError when not decodable."""
    raw = _strict(rules)
    out: JSON = {}
    if raw.get("stabilizationwindowseconds") is not None:
        out["stabilizationWindowSeconds"] = raw["stabilizationwindowseconds"]
    _put(out, "selectPolicy", raw.get("selectpolicy"))
    policies = []
    for item in raw.get("policies") or []:
        policy = _strict(item)
        policies.append(
            {
                "type": policy.get("type", ""),
                "value": policy.get("value", 0),
                "periodSeconds": policy.get("periodseconds", 0),
            }
        )
    _put(out, "policies", policies)
    _put(out, "tolerance", _quantity(raw.get("tolerance")))
    return out


def _decode_list(annotations: JSON, key: str) -> list[Any] | None:
    """The JSON list in annotation ``key``, or None when absent or not a well-formed list."""
    try:
        value = json.loads(annotations[key])
    except (KeyError, TypeError, ValueError):
        return None
    return value if isinstance(value, list) else None


def _decode_behavior(annotations: JSON) -> JSON | None:
    """The behavior saved in the annotation, or None when absent, malformed or all-nil."""
    try:
        raw = _strict(json.loads(annotations[BEHAVIOR_ANNOTATION]))
        behavior: JSON = {}
        if raw.get("scaleup") is not None:
            behavior["scaleUp"] = _v2_rules(raw["scaleup"])
        if raw.get("scaledown") is not None:
            behavior["scaleDown"] = _v2_rules(raw["scaledown"])
    except (KeyError, TypeError, ValueError):
        return None
    # An all-nil behavior is indistinguishable from none at all: upstream leaves it unset.
    return behavior or None


def _safely(convert: Any, items: list[Any] | None) -> list[JSON] | None:
    """Convert every item, or None if any is malformed (Go's decode fails as a whole)."""
    if items is None:
        return None
    try:
        return [convert(item) for item in items]
    except (AttributeError, TypeError, ValueError):
        return None


def hpa_v1_to_v2(obj: JSON) -> JSON:
    """Convert an autoscaling/v1 HPA to autoscaling/v2; ``obj`` is not modified."""
    out = copy.deepcopy(obj)
    out["apiVersion"], out["kind"] = V2, KIND
    spec = out.setdefault("spec", {})
    metadata = out.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    annotations = annotations if isinstance(annotations, dict) else {}

    metrics: list[JSON] = []
    target_cpu = spec.pop("targetCPUUtilizationPercentage", None)
    other_metrics = _safely(_v2_metric_spec, _decode_list(annotations, METRICS_ANNOTATION))
    metrics.extend(other_metrics or [])
    if target_cpu is not None:
        metrics.append(_cpu_metric(target_cpu))
    # v1 once applied 80% CPU implicitly in the controller; v2 makes it explicit here.
    spec["metrics"] = metrics or [_cpu_metric(DEFAULT_CPU_UTILIZATION)]
    if (behavior := _decode_behavior(annotations)) is not None:
        spec["behavior"] = behavior

    status = out.get("status")
    if isinstance(status, dict):
        current_cpu = status.pop("currentCPUUtilizationPercentage", None)
        if current_cpu is not None:
            cpu_status = {"name": "cpu", "current": {"averageUtilization": current_cpu}}
            status["currentMetrics"] = [{"type": "Resource", "resource": cpu_status}]
    saved = _decode_list(annotations, CURRENT_METRICS_ANNOTATION)
    # The annotation has more detail than the one CPU percentage: it wins.
    _restore_status_list(out, "currentMetrics", _safely(_v2_metric_status, saved))
    saved = _decode_list(annotations, CONDITIONS_ANNOTATION)
    _restore_status_list(out, "conditions", _safely(_v2_condition, saved))

    if isinstance(metadata, dict):
        _drop_round_trip_annotations(metadata)
    return out


def _restore_status_list(out: JSON, key: str, items: list[JSON] | None) -> None:
    """Replace ``status[key]`` with decoded ``items``; an empty list leaves the field unset."""
    if items is None:
        return
    status = out.setdefault("status", {})
    if items:
        status[key] = items
    else:
        status.pop(key, None)


def _cpu_metric(utilization: Any) -> JSON:
    target = {"type": "Utilization", "averageUtilization": utilization}
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}
