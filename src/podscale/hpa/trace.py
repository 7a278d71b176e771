"""The decision trace: a machine-readable record of why ``decide`` chose what it chose.

Upstream explains a decision only through conditions, events and verbose logs. podscale
records every step of every decision: each metric's proposal with the pods set aside and
the ratios before and after rebalancing (``CalculationTrace``), what stabilization chose
from which recommendations, which policy limited the change, and the min/max clamp.
``trace_to_dict`` gives JSON-ready data; ``render_trace`` the text that
``podscale explain-scale`` prints.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from podscale.hpa.conditions import format_time
from podscale.hpa.types import CalculationTrace, Recommendation

__all__ = [
    "DecisionTrace",
    "LimitTrace",
    "MetricTrace",
    "PolicyTrace",
    "StabilizationTrace",
    "render_trace",
    "trace_to_dict",
]


class MetricTrace(NamedTuple):
    """One ``spec.metrics[i]``: its proposal or its error."""

    position: int  # the index in spec.metrics
    type: str
    name: str
    replicas: int | None
    error: str | None = None
    calculation: CalculationTrace | None = None


class StabilizationTrace(NamedTuple):
    """What the stabilization window did to the combined proposal."""

    path: str  # "legacy" (no behavior) or "behavior"
    recommendations: tuple[Recommendation, ...]  # the history it looked at
    down_window_seconds: float
    up_window_seconds: float | None  # None on the legacy path
    before: int
    after: int
    reason: str


class PolicyTrace(NamedTuple):
    """One scaling policy and the bound it alone would allow now."""

    type: str
    value: int
    period_seconds: int
    allows: int


class LimitTrace(NamedTuple):
    """The rate limit and min/max clamp applied after stabilization."""

    before: int
    after: int
    reason: str
    min_replicas: int
    max_replicas: int
    direction: str  # "up", "down" or "none"
    rate_limit: int | None = None
    select_policy: str | None = None
    policies: tuple[PolicyTrace, ...] = ()


class DecisionTrace(NamedTuple):
    """Every step of one decision, in the order the controller takes them."""

    hpa: str
    at: datetime
    current_replicas: int
    status_replicas: int
    min_replicas: int
    max_replicas: int
    branch: str
    desired_replicas: int
    rescale: bool
    reason: str
    tolerances: tuple[float, float] | None = None
    metrics: tuple[MetricTrace, ...] = ()
    invalid_metrics: int = 0
    proposed_replicas: int | None = None
    proposed_by: str = ""
    stabilization: StabilizationTrace | None = None
    limit: LimitTrace | None = None
    notes: tuple[str, ...] = ()


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a trace record
        return {name: _plain(item) for name, item in zip(value._fields, value, strict=True)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def trace_to_dict(trace: DecisionTrace) -> dict[str, Any]:
    """JSON-ready form: datetimes as RFC 3339, tuples as lists."""
    result = _plain(trace)
    assert isinstance(result, dict)
    return result


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _render_calculation(calc: CalculationTrace) -> list[str]:
    low, high = 1.0 - calc.tolerances[0], 1.0 + calc.tolerances[1]
    band = "within" if calc.within_tolerance else "outside"
    lines = [
        f"current {calc.current_value} vs target {calc.target_value} ({calc.target_type}): "
        f"ratio {_ratio(calc.usage_ratio)}, {band} tolerance [{low:.2f}, {high:.2f}]"
    ]
    if calc.ready_pod_count or calc.ignored_pods or calc.unready_pods or calc.missing_pods:
        lines.append(f"pods: {calc.ready_pod_count} counted")
    for title, pods in (("ignored", calc.ignored_pods), ("unready", calc.unready_pods)):
        if pods:
            listed = ", ".join(f"{name} ({why})" for name, why in sorted(pods.items()))
            lines.append(f"{title}: {listed}")
    if calc.missing_pods:
        lines.append("missing metrics: " + ", ".join(sorted(calc.missing_pods)))
    if calc.rebalanced_ratio is not None:
        lines.append(
            f"ratio after rebalancing missing/unready pods: {_ratio(calc.rebalanced_ratio)}"
        )
    if calc.outcome:
        lines.append(f"outcome: {calc.outcome}")
    return lines


def _render_limit(limit: LimitTrace) -> list[str]:
    lines = [
        f"limits: {limit.before} -> {limit.after} ({limit.reason}); "
        f"bounds [{limit.min_replicas}, {limit.max_replicas}]"
    ]
    if limit.rate_limit is not None:
        policy = f" (selectPolicy {limit.select_policy})" if limit.select_policy else ""
        lines.append(f"  rate limit going {limit.direction}: {limit.rate_limit}{policy}")
    for p in limit.policies:
        lines.append(f"  policy {p.type} {p.value} per {p.period_seconds}s allows {p.allows}")
    return lines


def render_trace(trace: DecisionTrace) -> str:
    """Human-readable explanation, one fact per line."""
    verdict = (
        f"scale {trace.current_replicas} -> {trace.desired_replicas}"
        if trace.rescale
        else f"keep {trace.current_replicas}"
    )
    out = [f"HPA {trace.hpa} at {format_time(trace.at)}: {verdict}"]
    if trace.reason:
        out.append(f"  reason: {trace.reason}")
    out.append(
        f"  target: spec.replicas {trace.current_replicas}, status.replicas "
        f"{trace.status_replicas}; HPA bounds [{trace.min_replicas}, {trace.max_replicas}]"
    )
    out.append(f"  path: {trace.branch}")
    if trace.tolerances is not None:
        down, up = trace.tolerances
        out.append(f"  tolerance: scale-down {down:g}, scale-up {up:g}")
    for metric in trace.metrics:
        head = f"  metric[{metric.position}] {metric.type}"
        if metric.error is not None:
            out.append(f"{head}: invalid: {metric.error}")
            continue
        out.append(f"{head} {metric.name}: proposes {metric.replicas}")
        if metric.calculation is not None:
            out.extend(f"    {line}" for line in _render_calculation(metric.calculation))
    if trace.metrics:
        valid = len(trace.metrics) - trace.invalid_metrics
        out.append(f"  {valid} of {len(trace.metrics)} metrics valid")
    if trace.proposed_replicas is not None:
        by = f" from {trace.proposed_by}" if trace.proposed_by else ""
        out.append(f"  largest proposal: {trace.proposed_replicas}{by}")
    if (stab := trace.stabilization) is not None:
        windows = f"down window {stab.down_window_seconds:g}s"
        if stab.up_window_seconds is not None:
            windows = f"up window {stab.up_window_seconds:g}s, {windows}"
        seen = ", ".join(f"{r.replicas}@{format_time(r.timestamp)}" for r in stab.recommendations)
        out.append(
            f"  stabilization ({stab.path}; {windows}): {stab.before} -> {stab.after} "
            f"({stab.reason}); recommendations [{seen}]"
        )
    if trace.limit is not None:
        out.extend(f"  {line}" for line in _render_limit(trace.limit))
    out.extend(f"  note: {note}" for note in trace.notes)
    out.append(f"  desired replicas: {trace.desired_replicas}")
    return "\n".join(out)
