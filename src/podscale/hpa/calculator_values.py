"""Object and External metrics for the replica calculator: fetching, errors, proposals.

The dispatcher (``calculator``) hands Object and External MetricSpecs here. This module
chooses the target path as upstream's ``computeStatusForObjectMetric`` and
``computeStatusForExternalMetric`` do, fetches the value from the ``MetricsSource``,
words failures like upstream's ``ReplicaCalculator`` and turns the arithmetic of
``calculator_object`` into a ``MetricProposal``. ``format_go_label_selector`` renders a
metric selector the way upstream's messages and metric names print it.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    MetricInputs,
    MetricProposal,
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


def _target(source: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None, Mapping[str, Any]]:
    """The metric's name, its metric selector and the target of an Object or External source."""
    identifier = source.get("metric") or {}
    return str(identifier.get("name", "")), identifier.get("selector"), source.get("target") or {}


def _averaged_or_total(
    per_pod: bool,
    metric: str,
    usage: int,
    target_value: int,
    timestamp: datetime,
    inputs: MetricInputs,
    *,
    saturated_total_as_is: bool,
) -> MetricProposal:
    """An averageValue target divides ``usage`` by the status replicas; a value target
    compares it with the target as is. Upstream reports a zero timestamp on the latter."""
    bands = inputs.tolerances
    if per_pod:
        per_pod_result = calculate_per_pod_replicas(
            status_replicas=inputs.status_replicas,
            usage=usage,
            target_average=target_value,
            tolerances=bands,
            saturated_total_as_is=saturated_total_as_is,
        )
        return _value_proposal(
            metric, "AverageValue", target_value, per_pod_result, timestamp, bands
        )
    result = calculate_usage_ratio_replicas(
        current_replicas=inputs.current_replicas,
        usage=usage,
        target_value=target_value,
        pods=inputs.pods,
        tolerances=bands,
    )
    return _value_proposal(metric, "Value", target_value, result, None, bands)


def object_proposal(source: Mapping[str, Any], inputs: MetricInputs) -> MetricProposal:
    name, metric_selector, target = _target(source)
    described = source.get("describedObject") or {}
    target_type = target.get("type")
    if target_type == "Value" and target.get("value") is not None:
        target_value, per_pod = quantity_milli(target["value"]), False
    elif target_type == "AverageValue" and target.get("averageValue") is not None:
        target_value, per_pod = quantity_milli(target["averageValue"]), True
    else:
        raise MetricError(_NEITHER_OBJECT)
    try:
        usage, timestamp = inputs.metrics.object_metric(
            name, inputs.namespace, dict(described), metric_selector
        )
    except MetricsUnavailable as err:
        # Upstream's Errorf lists kind before the namespace and the error last, so the
        # cause lands after the object's name: "... on Service default web/<cause>".
        kind, object_name = described.get("kind", ""), described.get("name", "")
        raise MetricError(
            f"unable to get metric {name}: {kind} on {inputs.namespace} {object_name}/{err}"
        ) from err
    if per_pod:
        # Upstream labels this path "external metric" too.
        metric = f"external metric {name}({format_go_label_selector(metric_selector)})"
    else:
        metric = f"{described.get('kind', '')} metric {name}"
    return _averaged_or_total(
        per_pod, metric, usage, target_value, timestamp, inputs, saturated_total_as_is=False
    )


def external_proposal(source: Mapping[str, Any], inputs: MetricInputs) -> MetricProposal:
    name, metric_selector, target = _target(source)
    if target.get("averageValue") is not None:
        target_value, per_pod = quantity_milli(target["averageValue"]), True
    elif target.get("value") is not None:
        target_value, per_pod = quantity_milli(target["value"]), False
    else:
        raise MetricError(_NEITHER_EXTERNAL)
    selector_text = format_go_label_selector(metric_selector)
    try:
        values, timestamp = inputs.metrics.external_metric(name, inputs.namespace, metric_selector)
    except MetricsUnavailable as err:
        raise MetricError(
            f"unable to get external metric {inputs.namespace}/{name}/{selector_text}: {err}"
        ) from err
    usage = sum_external_values_per_pod(values) if per_pod else sum_external_values(values)
    metric = f"external metric {name}({selector_text})"
    return _averaged_or_total(
        per_pod, metric, usage, target_value, timestamp, inputs, saturated_total_as_is=True
    )
