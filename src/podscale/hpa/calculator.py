"""The replica calculator: one autoscaling/v2 MetricSpec in, one ``MetricProposal`` out.

``calculate_replicas`` picks the calculation the way upstream's ``horizontal.go`` does
(``computeStatusForResourceMetricGeneric``, ``computeStatusForPodsMetric``,
``computeStatusForObjectMetric``, ``computeStatusForExternalMetric``), fetches the samples
from the ``MetricsSource`` and wraps their failures in upstream's ``ReplicaCalculator``
wording. Per-pod arithmetic lives in ``calculator_pods``; Object and External metrics are
handled by ``calculator_values``. ``metric_status`` wraps each proposal or ``MetricError``
into a MetricStatus or condition, and ``decide`` takes the highest proposal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from podscale.hpa.calculator_math import quantity_milli
from podscale.hpa.calculator_pods import (
    PodsResult,
    calculate_plain_replicas,
    calculate_utilization_replicas,
)
from podscale.hpa.calculator_values import (
    external_proposal,
    format_go_label_selector,
    object_proposal,
)
from podscale.hpa.tolerance import Tolerances
from podscale.hpa.types import (
    CalculationTrace,
    Config,
    MetricError,
    MetricInputs,
    MetricProposal,
    MetricsSource,
    MetricsUnavailable,
    PodMetric,
)

__all__ = [
    "calculate_replicas",
    "format_go_label_selector",
    "propose_replicas",
]  # the latter re-exported

_NEITHER_RESOURCE = (
    "invalid resource metric source: neither an average utilization target nor an average "
    "value (usage) target was set"
)


def calculate_replicas(
    metric_spec: dict[str, Any],
    *,
    current_replicas: int,
    pods: list[dict[str, Any]],
    metrics: MetricsSource,
    namespace: str,
    selector: str,
    now: datetime,
    config: Config,
    tolerances: tuple[float, float] | None = None,
    status_replicas: int | None = None,
) -> MetricProposal:
    """Propose a replica count for one metric of an HPA.

    ``current_replicas`` is the scale's ``spec.replicas`` and ``status_replicas`` its
    ``status.replicas`` (defaulting to ``current_replicas``), which the ``averageValue``
    Object and External targets divide by. ``pods`` are the pods the target's
    ``selector`` matches; ``tolerances`` default to ``config.tolerance`` both ways.
    Raises ``MetricError`` carrying upstream's message when no count can be computed.
    """
    inputs = MetricInputs(
        current_replicas=current_replicas,
        status_replicas=current_replicas if status_replicas is None else status_replicas,
        pods=pods,
        metrics=metrics,
        namespace=namespace,
        selector=selector,
        now=now,
        config=config,
        tolerances=tolerances or (config.tolerance, config.tolerance),
    )
    return propose_replicas(metric_spec, inputs)


def propose_replicas(metric_spec: dict[str, Any], inputs: MetricInputs) -> MetricProposal:
    """``calculate_replicas`` over inputs a sync has already gathered for all its metrics."""
    metric_type = metric_spec.get("type")
    if metric_type in ("Resource", "ContainerResource"):
        is_container = metric_type == "ContainerResource"
        source = metric_spec.get("containerResource" if is_container else "resource") or {}
        container = str(source.get("container") or "") if is_container else ""
        return _resource_proposal(source, container, inputs)
    if metric_type == "Pods":
        return _pods_proposal(metric_spec.get("pods") or {}, inputs)
    if metric_type == "Object":
        return object_proposal(metric_spec.get("object") or {}, inputs)
    if metric_type == "External":
        return external_proposal(metric_spec.get("external") or {}, inputs)
    raise MetricError(f"unknown metric source type {json.dumps(str(metric_type))}")


def _pods_trace(
    metric: str, target_type: str, target_value: int, result: PodsResult, bands: Tolerances
) -> CalculationTrace:
    return CalculationTrace(
        metric=metric,
        target_type=target_type,
        current_value=result.current_value,
        target_value=target_value,
        usage_ratio=result.usage_ratio,
        tolerances=bands,
        within_tolerance=result.within_tolerance,
        ready_pod_count=result.groups.ready_count,
        ignored_pods=result.groups.ignored,
        unready_pods=result.groups.unready,
        missing_pods=tuple(sorted(result.groups.missing)),
        rebalanced_ratio=result.rebalanced_ratio,
        outcome=result.outcome,
    )


def _resource_proposal(
    source: Mapping[str, Any], container: str, inputs: MetricInputs
) -> MetricProposal:
    resource = str(source.get("name", ""))
    target = source.get("target") or {}
    # An averageValue target wins over averageUtilization, as upstream checks it first.
    target_usage: int | None = None
    target_utilization = 0
    if target.get("averageValue") is not None:
        target_usage = quantity_milli(target["averageValue"])
    elif target.get("averageUtilization") is not None:
        target_utilization = int(target["averageUtilization"])
    else:
        raise MetricError(_NEITHER_RESOURCE)
    try:
        samples, timestamp = inputs.metrics.resource_metric(
            resource, inputs.namespace, inputs.selector, container or None
        )
    except MetricsUnavailable as err:
        raise MetricError(f"unable to get metrics for resource {resource}: {err}") from err
    if target_usage is not None:
        return _plain_proposal(
            f"{resource} resource", resource, target_usage, samples, timestamp, inputs
        )
    result = calculate_utilization_replicas(
        inputs,
        samples,
        target_utilization=target_utilization,
        resource=resource,
        container=container,
    )
    kind = "container resource" if container else "resource"
    description = f"{resource} {kind} utilization (percentage of request)"
    trace = _pods_trace(description, "Utilization", target_utilization, result, inputs.tolerances)
    return MetricProposal(
        result.replicas, result.current_value, result.raw_average, timestamp, trace
    )


def _pods_proposal(source: Mapping[str, Any], inputs: MetricInputs) -> MetricProposal:
    identifier = source.get("metric") or {}
    name = str(identifier.get("name", ""))
    average_value = (source.get("target") or {}).get("averageValue")
    if average_value is None:
        # Validation requires it; upstream would dereference a nil pointer here.
        raise MetricError("invalid pods metric source: no average value target was set")
    target_usage = quantity_milli(average_value)
    try:
        samples, timestamp = inputs.metrics.pods_metric(
            name, inputs.namespace, inputs.selector, identifier.get("selector")
        )
    except MetricsUnavailable as err:
        raise MetricError(f"unable to get metric {name}: {err}") from err
    return _plain_proposal(f"pods metric {name}", "", target_usage, samples, timestamp, inputs)


def _plain_proposal(
    metric: str,
    resource: str,
    target_usage: int,
    samples: dict[str, PodMetric],
    timestamp: datetime,
    inputs: MetricInputs,
) -> MetricProposal:
    """An AverageValue target over per-pod samples (a Resource's or a Pods metric's)."""
    result = calculate_plain_replicas(inputs, samples, target_usage=target_usage, resource=resource)
    trace = _pods_trace(metric, "AverageValue", target_usage, result, inputs.tolerances)
    return MetricProposal(result.replicas, None, result.raw_average, timestamp, trace)
