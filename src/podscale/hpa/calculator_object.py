"""Replica proposals from single values: Object and External metrics.

Mirrors upstream's ``GetObjectMetricReplicas`` / ``GetExternalMetricReplicas`` (a total
compared with a ``value`` target, scaled by the number of ready pods, or straight from
the ratio when the target sits at zero replicas) and ``GetObjectPerPodMetricReplicas`` /
``GetExternalPerPodMetricReplicas`` (a total divided among ``status.replicas`` against
an ``averageValue`` target). Values are milli-units. The dispatcher (``calculator``)
fetches the values, formats errors and builds the ``MetricProposal``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from podscale.hpa.calculator_math import INT64_MAX, ceil_to_int32, divide
from podscale.hpa.pods import count_ready_pods
from podscale.hpa.tolerance import Tolerances, is_within
from podscale.hpa.types import MetricError

__all__ = [
    "ValueResult",
    "calculate_per_pod_replicas",
    "calculate_usage_ratio_replicas",
    "sum_external_values",
    "sum_external_values_per_pod",
]


class ValueResult(NamedTuple):
    """The outcome of a single-value calculation, before it becomes a ``MetricProposal``.

    ``reported_value`` is what upstream reports as the current value: the total for a
    ``value`` target, the per-pod share for an ``averageValue`` target.
    """

    replicas: int
    reported_value: int
    usage_ratio: float
    ready_pod_count: int
    within_tolerance: bool
    outcome: str


def sum_external_values(values: Iterable[int]) -> int:
    """Sum external samples for a ``value`` target, saturating at int64's maximum."""
    total = 0
    for value in values:
        if value > 0 and total > INT64_MAX - value:
            return INT64_MAX
        total += value
    return total


def sum_external_values_per_pod(values: Iterable[int]) -> int:
    """Sum external samples for an ``averageValue`` target, as upstream does.

    Upstream detects int64 overflow by the running sum turning negative, so any sum
    that goes below zero (a negative sample, too) saturates at int64's maximum.
    """
    total = 0
    for value in values:
        total += value
        if total < 0 or total > INT64_MAX:
            return INT64_MAX
    return total


def calculate_usage_ratio_replicas(
    *,
    current_replicas: int,
    usage: int,
    target_value: int,
    pods: Sequence[Mapping[str, Any]],
    tolerances: Tolerances,
) -> ValueResult:
    """Propose a count for a ``value`` target (upstream's ``getUsageRatioReplicaCount``).

    With a nonzero current count the tolerance applies and the ratio scales the number
    of ready pods. At zero replicas (scale-to-zero) neither pods nor tolerance are
    consulted: the ratio itself, rounded up, is the count, so any usage wakes the target.
    """
    ratio = divide(float(usage), float(target_value))
    if current_replicas == 0:
        return ValueResult(ceil_to_int32(ratio), usage, ratio, 0, False, "scaled from zero")
    if is_within(tolerances, ratio):
        return ValueResult(current_replicas, usage, ratio, 0, True, "within tolerance")
    try:
        ready = count_ready_pods(pods)
    except MetricError as err:
        raise MetricError(f"unable to calculate ready pods: {err}") from err
    return ValueResult(
        ceil_to_int32(ratio * ready), usage, ratio, ready, False, "scaled ready pods by ratio"
    )


def calculate_per_pod_replicas(
    *,
    status_replicas: int,
    usage: int,
    target_average: int,
    tolerances: Tolerances,
    saturated_total_as_is: bool,
) -> ValueResult:
    """Propose a count for an ``averageValue`` target spread over ``status_replicas``.

    The count is ``ceil(usage / target)`` unless the per-pod ratio is within tolerance.
    The reported value is the per-pod share, rounded up. With ``saturated_total_as_is``
    (the External path) a total at int64's maximum is reported as is, as upstream does.
    With ``status_replicas`` 0 the total is reported: upstream divides by zero there,
    which has no defined integer result.
    """
    ratio = divide(float(usage), float(target_average) * float(status_replicas))
    if is_within(tolerances, ratio):
        replicas, within, outcome = status_replicas, True, "within tolerance"
    else:
        replicas = ceil_to_int32(divide(float(usage), float(target_average)))
        within, outcome = False, "scaled by total over per-pod target"
    if status_replicas == 0 or (saturated_total_as_is and float(usage) >= float(INT64_MAX)):
        reported = usage
    else:
        reported = math.ceil(float(usage) / float(status_replicas))
    return ValueResult(replicas, reported, ratio, 0, within, outcome)
