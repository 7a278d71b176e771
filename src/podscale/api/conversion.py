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
Neighbours: ``conversion_to_v1`` / ``conversion_to_v2`` shape the per-metric, condition and
behavior pieces, ``conversion_json`` holds the Go-JSON codec helpers; ``podscale.api.defaults``
(conversion never defaults, except v1's implicit 80% CPU).
"""

from __future__ import annotations

import copy
import json
from typing import Any, Final

from podscale.api.conversion_json import JSON, encode_go_json, fold_keys, fold_struct, put_omitempty
from podscale.api.conversion_to_v1 import (
    convert_condition_to_v1,
    convert_metric_spec_to_v1,
    convert_metric_status_to_v1,
    encode_internal_rules,
)
from podscale.api.conversion_to_v2 import (
    convert_condition_to_v2,
    convert_metric_spec_to_v2,
    convert_metric_status_to_v2,
    decode_internal_rules,
)
from podscale.api.defaults_hpa import DEFAULT_CPU_UTILIZATION

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


def _is_cpu_resource(metric: JSON) -> bool:
    resource = metric.get("resource")
    return (
        metric.get("type") == "Resource"
        and isinstance(resource, dict)
        and resource.get("name") == "cpu"
    )


def _cpu_utilization(metric: JSON, field: str) -> Any:
    return fold_keys(metric["resource"].get(field)).get("averageutilization")


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
            put_omitempty(
                spec, "targetCPUUtilizationPercentage", _cpu_utilization(metric, "target")
            )
            break
    # The last CPU utilization reading wins, as upstream keeps overwriting it.
    for metric in current_metrics:
        if _is_cpu_resource(metric) and _cpu_utilization(metric, "current") is not None:
            status["currentCPUUtilizationPercentage"] = _cpu_utilization(metric, "current")

    other_metrics = [
        convert_metric_spec_to_v1(m)
        for m in metrics
        if not (_is_cpu_resource(m) and _cpu_utilization(m, "target") is not None)
    ]
    encoded: dict[str, str] = {}
    if other_metrics:
        encoded[METRICS_ANNOTATION] = encode_go_json(other_metrics)
    if current_metrics:
        encoded[CURRENT_METRICS_ANNOTATION] = encode_go_json(
            [convert_metric_status_to_v1(m) for m in current_metrics]
        )
    if isinstance(behavior, dict):
        encoded[BEHAVIOR_ANNOTATION] = encode_go_json(
            {
                "ScaleUp": encode_internal_rules(behavior.get("scaleUp")),
                "ScaleDown": encode_internal_rules(behavior.get("scaleDown")),
            }
        )
    if conditions:
        encoded[CONDITIONS_ANNOTATION] = encode_go_json(
            [convert_condition_to_v1(c) for c in conditions]
        )

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
        raw = fold_struct(json.loads(annotations[BEHAVIOR_ANNOTATION]))
        behavior: JSON = {}
        if raw.get("scaleup") is not None:
            behavior["scaleUp"] = decode_internal_rules(raw["scaleup"])
        if raw.get("scaledown") is not None:
            behavior["scaleDown"] = decode_internal_rules(raw["scaledown"])
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
    other_metrics = _safely(
        convert_metric_spec_to_v2, _decode_list(annotations, METRICS_ANNOTATION)
    )
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
    _restore_status_list(out, "currentMetrics", _safely(convert_metric_status_to_v2, saved))
    saved = _decode_list(annotations, CONDITIONS_ANNOTATION)
    _restore_status_list(out, "conditions", _safely(convert_condition_to_v2, saved))

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
