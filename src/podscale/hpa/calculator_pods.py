"""Replica proposals from per-pod samples: resource utilization and per-pod averages.

Mirrors upstream's ``GetResourceReplicas`` (a utilization target, percent of request) and
``calcPlainMetricReplicas`` (an average-value target, behind ``GetRawResourceReplicas``
and ``GetMetricReplicas``). Both sort the pods with ``pods.group_pods``, drop samples of
ignored and unready pods, and then settle the count in ``_settle``: the plain ratio when
nothing is unknown, otherwise a conservative rebalancing that fills in missing and
unready pods and refuses to act on a result that flips direction. With a ``PodReader``
a utilization target first tries ``pod_facts.scan_pods`` (groups, requests and the ready
totals in one pass over the pods; the general path answers whatever it leaves). The
dispatcher (``calculator``) fetches the samples and builds the ``MetricProposal``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from podscale.hpa.calculator_math import (
    ceil_to_int32,
    resource_utilization_ratio,
    usage_ratio,
    utilization_of_totals,
)
from podscale.hpa.pod_facts import group_pod_facts, scan_pods
from podscale.hpa.pods import PodGroups, calculate_requests, group_pods
from podscale.hpa.tolerance import Tolerances, is_within
from podscale.hpa.types import Config, MetricError, MetricInputs, PodMetric, PodReader

__all__ = ["PodsResult", "calculate_plain_replicas", "calculate_utilization_replicas"]


class PodsResult(NamedTuple):
    """The outcome of a per-pod calculation, before it becomes a ``MetricProposal``.

    ``current_value`` is the utilization percent (utilization targets) or the average
    per-pod usage in milli-units; ``raw_average`` the average usage in milli-units.
    """

    replicas: int
    current_value: int
    raw_average: int
    usage_ratio: float
    groups: PodGroups
    within_tolerance: bool
    rebalanced_ratio: float | None
    outcome: str


def _usable_samples(
    pods: Sequence[Mapping[str, Any]],
    metrics: Mapping[str, PodMetric],
    resource: str,
    now: datetime,
    config: Config,
    reader: PodReader | None,
) -> tuple[PodGroups, dict[str, int]]:
    if not pods:
        raise MetricError("no pods returned by selector while calculating replica count")
    if reader is None:
        groups = group_pods(
            pods,
            metrics,
            resource,
            now=now,
            cpu_initialization_period=config.cpu_initialization_period,
            initial_readiness_delay=config.initial_readiness_delay,
        )
    else:  # the same groups, from the facts the caller keeps per pod
        groups = group_pod_facts(
            pods,
            metrics,
            resource,
            reader,
            now=now,
            cpu_initialization_period=config.cpu_initialization_period,
            initial_readiness_delay=config.initial_readiness_delay,
        )
    values = _usable_values(metrics, groups)
    if not values:
        raise MetricError("did not receive metrics for targeted pods (pods might be unready)")
    return groups, values


def _usable_values(metrics: Mapping[str, PodMetric], groups: PodGroups) -> dict[str, int]:
    # Samples of pods outside the listed set stay: upstream keeps them too, and they
    # count in averages and in the number of pods a rebalanced ratio is applied to.
    ignored, unready = groups.ignored, groups.unready
    return {
        name: sample.value
        for name, sample in metrics.items()
        if name not in ignored and name not in unready
    }


def _rebalances(groups: PodGroups, ratio: float) -> bool:
    """Whether ``_settle`` fills in unknown pods (and so reads the usable samples)."""
    return bool(groups.missing) or (bool(groups.unready) and ratio > 1.0)


def _settle(
    current_replicas: int,
    ratio: float,
    groups: PodGroups,
    values: dict[str, int],
    missing_value_on_scale_down: Callable[[str], int],
    recompute_ratio: Callable[[dict[str, int]], float],
    tolerances: Tolerances,
) -> tuple[int, bool, float | None, str]:
    """Turn a usage ratio into ``(replicas, within_tolerance, rebalanced_ratio, outcome)``.

    When samples are missing, or unready pods exist while scaling up, the ratio is
    recomputed assuming the unknown pods sit at the least favourable value for the
    direction: missing pods at ``missing_value_on_scale_down`` when scaling down and at
    zero when scaling up, unready pods at zero. The HPA keeps the current count if the
    recomputed ratio falls within tolerance, points the other way, or would move the
    count against its own direction.
    """
    scale_up_with_unready = bool(groups.unready) and ratio > 1.0
    if not _rebalances(groups, ratio):
        if is_within(tolerances, ratio):
            return current_replicas, True, None, "within tolerance"
        return ceil_to_int32(ratio * groups.ready_count), False, None, "scaled by ratio"

    if ratio < 1.0:
        for name in groups.missing:
            values[name] = missing_value_on_scale_down(name)
    elif ratio > 1.0:
        for name in groups.missing:
            values[name] = 0
    if scale_up_with_unready:
        for name in groups.unready:
            values[name] = 0

    new_ratio = recompute_ratio(values)
    if is_within(tolerances, new_ratio):
        return current_replicas, True, new_ratio, "within tolerance after rebalancing"
    if (ratio < 1.0 < new_ratio) or (new_ratio < 1.0 < ratio):
        return current_replicas, False, new_ratio, "direction flipped after rebalancing"
    new_replicas = ceil_to_int32(new_ratio * len(values))
    if (new_ratio < 1.0 and new_replicas > current_replicas) or (
        new_ratio > 1.0 and new_replicas < current_replicas
    ):
        return current_replicas, False, new_ratio, "pod count would move against the ratio"
    return new_replicas, False, new_ratio, "scaled by rebalanced ratio"


def calculate_utilization_replicas(
    inputs: MetricInputs,
    metrics: Mapping[str, PodMetric],
    *,
    target_utilization: int,
    resource: str,
    container: str,
) -> PodsResult:
    """Propose a count for a utilization target (percent of the pods' requests).

    Missing pods are assumed, when scaling down, to use ``max(100, target)`` percent of
    their request: a pod without a sample is presumed busy, never idle.
    """
    pods = inputs.pods
    reader = inputs.pod_reader
    config = inputs.config
    scan = None
    if reader is not None:
        scan = scan_pods(
            pods,
            metrics,
            resource,
            container,
            reader,
            now=inputs.now,
            cpu_initialization_period=config.cpu_initialization_period,
            initial_readiness_delay=config.initial_readiness_delay,
        )
    if scan is not None:  # one pass; the same groups, requests and ratio
        groups, requests = scan.groups, scan.requests
        ratio, utilization, raw_average = utilization_of_totals(
            scan.usage_total, scan.request_total, groups.ready_count, target_utilization
        )
        # The usable samples by name: read only when ``_settle`` rebalances.
        values = _usable_values(metrics, groups) if _rebalances(groups, ratio) else {}
    else:
        groups, values = _usable_samples(pods, metrics, resource, inputs.now, config, reader)
        requests = calculate_requests(pods, container, resource, reader)
        ratio, utilization, raw_average = resource_utilization_ratio(
            values, requests, target_utilization
        )
    fallback_percent = max(100, target_utilization)
    replicas, within, rebalanced, outcome = _settle(
        inputs.current_replicas,
        ratio,
        groups,
        values,
        lambda name: requests[name] * fallback_percent // 100,
        lambda filled: resource_utilization_ratio(filled, requests, target_utilization)[0],
        inputs.tolerances,
    )
    return PodsResult(
        replicas, utilization, raw_average, ratio, groups, within, rebalanced, outcome
    )


def calculate_plain_replicas(
    inputs: MetricInputs, metrics: Mapping[str, PodMetric], *, target_usage: int, resource: str
) -> PodsResult:
    """Propose a count for an average-value target (milli-units per pod).

    ``resource`` is the resource name for Resource/ContainerResource metrics (so cpu
    readiness rules apply) and ``""`` for Pods metrics. Missing pods are assumed, when
    scaling down, to sit exactly at the target.
    """
    groups, values = _usable_samples(
        inputs.pods, metrics, resource, inputs.now, inputs.config, inputs.pod_reader
    )
    ratio, average = usage_ratio(values, target_usage)
    replicas, within, rebalanced, outcome = _settle(
        inputs.current_replicas,
        ratio,
        groups,
        values,
        lambda _name: target_usage,
        lambda filled: usage_ratio(filled, target_usage)[0],
        inputs.tolerances,
    )
    return PodsResult(replicas, average, average, ratio, groups, within, rebalanced, outcome)
