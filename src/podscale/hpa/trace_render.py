"""The decision trace as text: ``render_trace``, what ``podscale explain-scale`` prints.

One fact per line: the verdict, the target and bounds, each metric's proposal (with its
calculation: ratio, tolerance band, the pods set aside), the predictive parts, what
stabilization chose from which recommendations, the policies' limits, the notes and a
contest. ``podscale describe hpa`` renders the stored trace the same way after
``trace_read.trace_from_dict``. Neighbours: ``trace`` (the records), ``conditions``
(``format_time``).
"""

from __future__ import annotations

from podscale.hpa.conditions import format_time
from podscale.hpa.trace import DecisionTrace, LimitTrace
from podscale.hpa.types import CalculationTrace

__all__ = ["render_trace"]


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


def _render_predictive(trace: DecisionTrace) -> list[str]:
    def shown(value: int | None) -> str:
        return "-" if value is None else str(value)

    lines = [
        f"  passive (metrics): {shown(trace.passive_replicas)}; "
        f"proactive (forecast): {shown(trace.proactive_replicas)}"
    ]
    if trace.window is not None:
        lines.append(
            f"  window {trace.window}: bounds [{trace.min_replicas}, {trace.max_replicas}]"
        )
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
    if trace.proactive_replicas is not None or trace.window is not None:
        out.extend(_render_predictive(trace))
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
    if trace.contest is not None:
        out.append(f"  replicas contested ({trace.contest.reason}): {trace.contest.message}")
    # Only a predictive decision names its winner: an HPA's explanation reads as before.
    predictive = trace.proactive_replicas is not None or trace.window is not None
    decided = f" (decided by {trace.decided_by})" if predictive and trace.decided_by else ""
    out.append(f"  desired replicas: {trace.desired_replicas}{decided}")
    return "\n".join(out)
