"""Arithmetic the replica calculator shares: Go's integer and float semantics, and ratios.

Upstream computes in int64/int32 and float64; Python integers never overflow and Python
floats raise on division by zero, so the few places where that differs are made explicit
here: truncating integer division, IEEE division by zero, and the int32 ceiling on
replica counts. ``resource_utilization_ratio`` and ``usage_ratio`` mirror upstream's
``GetResourceUtilizationRatio`` and ``GetMetricUsageRatio`` (``metrics/utilization.go``).
Used by ``calculator_pods`` and ``calculator_object``; ``quantity_milli`` also by ``pods``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Final

from podscale.api.quantity import parse_quantity
from podscale.hpa.types import MetricError

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "ceil_to_int32",
    "divide",
    "quantity_milli",
    "resource_utilization_ratio",
    "truncating_div",
    "usage_ratio",
    "utilization_of_totals",
]

INT32_MAX: Final = 2**31 - 1
INT32_MIN: Final = -(2**31)
INT64_MAX: Final = 2**63 - 1


@lru_cache(maxsize=1024)
def quantity_milli(value: str | int | float) -> int:
    """A quantity (``"100m"``, ``"1k"``, or a bare JSON number) in milli-units, rounded up.

    Cached: the same request and target strings recur on every sync.
    """
    return parse_quantity(value).milli_value()


def truncating_div(numerator: int, denominator: int) -> int:
    """Integer division rounding toward zero, as Go's ``/`` on integers."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator >= 0) else -quotient


def divide(numerator: float, denominator: float) -> float:
    """Float division with IEEE results for a zero denominator (±Inf, or NaN for 0/0)."""
    if denominator:
        return numerator / denominator
    if numerator == 0 or math.isnan(numerator):
        return math.nan
    return math.copysign(math.inf, numerator) * math.copysign(1.0, denominator)


def ceil_to_int32(value: float) -> int:
    """Round a replica count up, capped to the int32 range replica counts live in.

    Upstream caps at ``MaxInt32`` where it guards against overflow; elsewhere Go's
    out-of-range float-to-int32 conversion is undefined, so podscale caps everywhere.
    NaN (only reachable through a zero target, which validation forbids) becomes 0.
    """
    if math.isnan(value):
        return 0
    if value > INT32_MAX:
        return INT32_MAX
    if value < INT32_MIN:
        return INT32_MIN
    return math.ceil(value)


def resource_utilization_ratio(
    values: Mapping[str, int], requests: Mapping[str, int], target_utilization: int
) -> tuple[float, int, int]:
    """Return ``(usage_ratio, utilization_percent, raw_average)`` over pods with a request.

    Samples of pods without a request (pods outside the listed set) are skipped. The
    percentage is truncated to an integer before the ratio is taken, exactly as upstream
    does, so 149.9% against a 100% target yields a ratio of 1.49. Totals are exact.
    """
    metrics_total = requests_total = entries = 0
    for name, value in values.items():
        request = requests.get(name)
        if request is None:
            continue
        metrics_total += value
        requests_total += request
        entries += 1
    return utilization_of_totals(metrics_total, requests_total, entries, target_utilization)


def utilization_of_totals(
    metrics_total: int, requests_total: int, entries: int, target_utilization: int
) -> tuple[float, int, int]:
    """``resource_utilization_ratio`` from its totals: the summed usage and requests of
    the ``entries`` pods that have both (``pod_facts.scan_pods`` sums them as it goes)."""
    if requests_total == 0:
        raise MetricError("no metrics returned matched known pods")
    percentage = truncating_div(metrics_total * 100, requests_total)
    if not INT32_MIN <= percentage <= INT32_MAX:
        raise MetricError(f"resource utilization {percentage} is outside the int32 range")
    ratio = divide(float(percentage), float(target_utilization))
    return ratio, percentage, truncating_div(metrics_total, entries)


def usage_ratio(values: Mapping[str, int], target_usage: int) -> tuple[float, int]:
    """Return ``(usage_ratio, average_usage)`` for per-pod samples against a per-pod target.

    Every sample counts, including samples of pods that were not listed. The average is
    truncated to an integer (milli-units) before the ratio is taken. ``values`` is never
    empty here: callers reject that case first.
    """
    average = truncating_div(sum(values.values()), len(values))
    return divide(float(average), float(target_usage)), average
