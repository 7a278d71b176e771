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
    MetricProposal,
    MetricsSource,
    MetricsUnavailable,
)

__all__ = ["calculate_replicas", "format_go_label_selector"]  # the latter re-exported

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
    bands: Tolerances = tolerances or (config.tolerance, config.tolerance)
    metric_type = metric_spec.get("type")
    if metric_type in ("Resource", "ContainerResource"):
        is_container = metric_type == "ContainerResource"
        source = metric_spec.get("containerResource" if is_container else "resource") or {}
        container = str(source.get("container") or "") if is_container else ""
        return _resource_proposal(
            source, container, current_replicas, pods, metrics, namespace, selector, now, config,
            bands,
        )  # fmt: skip
    if metric_type == "Pods":
        return _pods_proposal(
            metric_spec.get("pods") or {}, current_replicas, pods, metrics, namespace, selector,
            now, config, bands,
        )  # fmt: skip
    # Object and External averageValue targets divide by the scale's status.replicas.
    per_pod_replicas = current_replicas if status_replicas is None else status_replicas
    if metric_type == "Object":
        source = metric_spec.get("object") or {}
        return object_proposal(
            source, current_replicas, per_pod_replicas, pods, metrics, namespace, bands
        )
    if metric_type == "External":
        source = metric_spec.get("external") or {}
        return external_proposal(
            source, current_replicas, per_pod_replicas, pods, metrics, namespace, bands
        )
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
    source: Mapping[str, Any],
    container: str,
    current_replicas: int,
    pods: list[dict[str, Any]],
    metrics: MetricsSource,
    namespace: str,
    selector: str,
    now: datetime,
    config: Config,
    bands: Tolerances,
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
        samples, timestamp = metrics.resource_metric(
            resource, namespace, selector, container or None
        )
    except MetricsUnavailable as err:
        raise MetricError(f"unable to get metrics for resource {resource}: {err}") from err
    if target_usage is not None:
        result = calculate_plain_replicas(
            current_replicas=current_replicas,
            target_usage=target_usage,
            resource=resource,
            pods=pods,
            metrics=samples,
            now=now,
            config=config,
            tolerances=bands,
        )
        trace = _pods_trace(f"{resource} resource", "AverageValue", target_usage, result, bands)
        return MetricProposal(result.replicas, None, result.raw_average, timestamp, trace)
    result = calculate_utilization_replicas(
        current_replicas=current_replicas,
        target_utilization=target_utilization,
        resource=resource,
        container=container,
        pods=pods,
        metrics=samples,
        now=now,
        config=config,
        tolerances=bands,
    )
    kind = "container resource" if container else "resource"
    description = f"{resource} {kind} utilization (percentage of request)"
    trace = _pods_trace(description, "Utilization", target_utilization, result, bands)
    return MetricProposal(
        result.replicas, result.current_value, result.raw_average, timestamp, trace
    )


def _pods_proposal(
    source: Mapping[str, Any],
    current_replicas: int,
    pods: list[dict[str, Any]],
    metrics: MetricsSource,
    namespace: str,
    selector: str,
    now: datetime,
    config: Config,
    bands: Tolerances,
) -> MetricProposal:
    identifier = source.get("metric") or {}
    name = str(identifier.get("name", ""))
    average_value = (source.get("target") or {}).get("averageValue")
    if average_value is None:
        # Validation requires it; upstream would dereference a nil pointer here.
        raise MetricError("invalid pods metric source: no average value target was set")
    target_usage = quantity_milli(average_value)
    try:
        samples, timestamp = metrics.pods_metric(
            name, namespace, selector, identifier.get("selector")
        )
    except MetricsUnavailable as err:
        raise MetricError(f"unable to get metric {name}: {err}") from err
    result = calculate_plain_replicas(
        current_replicas=current_replicas,
        target_usage=target_usage,
        resource="",
        pods=pods,
        metrics=samples,
        now=now,
        config=config,
        tolerances=bands,
    )
    trace = _pods_trace(f"pods metric {name}", "AverageValue", target_usage, result, bands)
    return MetricProposal(result.replicas, None, result.raw_average, timestamp, trace)
