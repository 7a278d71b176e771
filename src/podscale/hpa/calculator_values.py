"""Object and External metrics for the replica calculator: fetching, errors, proposals.

The dispatcher (``calculator``) hands Object and External MetricSpecs here. This module
chooses the target path as upstream's ``computeStatusForObjectMetric`` and
``computeStatusForExternalMetric`` do, fetches the value from the ``MetricsSource``,
words failures like upstream's ``ReplicaCalculator`` and turns the arithmetic of
``calculator_object`` into a ``MetricProposal``. ``format_go_label_selector`` renders a
metric selector the way upstream's messages and metric names print it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from podscale.hpa.calculator_math import quantity_milli
from podscale.hpa.calculator_object import (
    ValueResult,
    calculate_per_pod_replicas,
    calculate_usage_ratio_replicas,
    sum_external_values,
    sum_external_values_per_pod,
)
from podscale.hpa.tolerance import Tolerances
from podscale.hpa.types import (
    CalculationTrace,
    MetricError,
    MetricProposal,
    MetricsSource,
    MetricsUnavailable,
)

__all__ = ["external_proposal", "format_go_label_selector", "object_proposal"]

_NEITHER_OBJECT: Final = (
    "invalid object metric source: neither a value target nor an average value target was set"
)
_NEITHER_EXTERNAL: Final = (
    "invalid external metric source: neither a value target nor an average value target was set"
)


def format_go_label_selector(selector: Mapping[str, Any] | None) -> str:
    """Render a LabelSelector as upstream's ``%+v`` of ``*metav1.LabelSelector`` prints it.

    That is the generated ``String()`` method: ``nil`` for no selector, otherwise
    ``&LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]...{},}``
    with labels sorted by key and each requirement as
    ``LabelSelectorRequirement{Key:k,Operator:In,Values:[a b],}``.
    """
    if selector is None:
        return "nil"
    labels = selector.get("matchLabels") or {}
    label_text = "".join(f"{key}: {labels[key]}," for key in sorted(labels))
    requirement_text = "".join(
        "LabelSelectorRequirement{"
        f"Key:{req.get('key', '')},"
        f"Operator:{req.get('operator', '')},"
        f"Values:[{' '.join(req.get('values') or ())}],"
        "},"
        for req in selector.get("matchExpressions") or ()
    )
    return (
        f"&LabelSelector{{MatchLabels:map[string]string{{{label_text}}},"
        f"MatchExpressions:[]LabelSelectorRequirement{{{requirement_text}}},}}"
    )


def _value_proposal(
    metric: str,
    target_type: str,
    target_value: int,
    result: ValueResult,
    timestamp: datetime | None,
    bands: Tolerances,
) -> MetricProposal:
    trace = CalculationTrace(
        metric=metric,
        target_type=target_type,
        current_value=result.reported_value,
        target_value=target_value,
        usage_ratio=result.usage_ratio,
        tolerances=bands,
        within_tolerance=result.within_tolerance,
        ready_pod_count=result.ready_pod_count,
        outcome=result.outcome,
    )
    return MetricProposal(result.replicas, None, result.reported_value, timestamp, trace)


def object_proposal(
    source: Mapping[str, Any],
    spec_replicas: int,
    status_replicas: int,
    pods: Sequence[Mapping[str, Any]],
    metrics: MetricsSource,
    namespace: str,
    bands: Tolerances,
) -> MetricProposal:
    identifier = source.get("metric") or {}
    name = str(identifier.get("name", ""))
    metric_selector = identifier.get("selector")
    described = source.get("describedObject") or {}
    target = source.get("target") or {}
    target_type = target.get("type")
    if target_type == "Value" and target.get("value") is not None:
        target_value, per_pod = quantity_milli(target["value"]), False
    elif target_type == "AverageValue" and target.get("averageValue") is not None:
        target_value, per_pod = quantity_milli(target["averageValue"]), True
    else:
        raise MetricError(_NEITHER_OBJECT)
    try:
        usage, timestamp = metrics.object_metric(name, namespace, dict(described), metric_selector)
    except MetricsUnavailable as err:
        # Upstream's Errorf lists kind before the namespace and the error last, so the
        # cause lands after the object's name: "... on Service default web/<cause>".
        kind, object_name = described.get("kind", ""), described.get("name", "")
        raise MetricError(
            f"unable to get metric {name}: {kind} on {namespace} {object_name}/{err}"
        ) from err
    if per_pod:
        result = calculate_per_pod_replicas(
            status_replicas=status_replicas,
            usage=usage,
            target_average=target_value,
            tolerances=bands,
            saturated_total_as_is=False,
        )
        # Upstream labels this path "external metric" too.
        metric = f"external metric {name}({format_go_label_selector(metric_selector)})"
        return _value_proposal(metric, "AverageValue", target_value, result, timestamp, bands)
    result = calculate_usage_ratio_replicas(
        current_replicas=spec_replicas,
        usage=usage,
        target_value=target_value,
        pods=pods,
        tolerances=bands,
    )
    # Upstream drops the object's timestamp on this path and reports a zero time.
    metric = f"{described.get('kind', '')} metric {name}"
    return _value_proposal(metric, "Value", target_value, result, None, bands)


def external_proposal(
    source: Mapping[str, Any],
    spec_replicas: int,
    status_replicas: int,
    pods: Sequence[Mapping[str, Any]],
    metrics: MetricsSource,
    namespace: str,
    bands: Tolerances,
) -> MetricProposal:
    identifier = source.get("metric") or {}
    name = str(identifier.get("name", ""))
    metric_selector = identifier.get("selector")
    target = source.get("target") or {}
    if target.get("averageValue") is not None:
        target_value, per_pod = quantity_milli(target["averageValue"]), True
    elif target.get("value") is not None:
        target_value, per_pod = quantity_milli(target["value"]), False
    else:
        raise MetricError(_NEITHER_EXTERNAL)
    selector_text = format_go_label_selector(metric_selector)
    try:
        values, timestamp = metrics.external_metric(name, namespace, metric_selector)
    except MetricsUnavailable as err:
        raise MetricError(
            f"unable to get external metric {namespace}/{name}/{selector_text}: {err}"
        ) from err
    metric = f"external metric {name}({selector_text})"
    if per_pod:
        result = calculate_per_pod_replicas(
            status_replicas=status_replicas,
            usage=sum_external_values_per_pod(values),
            target_average=target_value,
            tolerances=bands,
            saturated_total_as_is=True,
        )
        return _value_proposal(metric, "AverageValue", target_value, result, timestamp, bands)
    result = calculate_usage_ratio_replicas(
        current_replicas=spec_replicas,
        usage=sum_external_values(values),
        target_value=target_value,
        pods=pods,
        tolerances=bands,
    )
    # As for Object values, upstream reports a zero timestamp here.
    return _value_proposal(metric, "Value", target_value, result, None, bands)
