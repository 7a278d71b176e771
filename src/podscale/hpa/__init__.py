"""The pure HPA decision engine: upstream's HorizontalController and ReplicaCalculator.

No I/O, no clock reads: ``now`` is always a parameter, metrics come through the
``MetricsSource`` protocol, and the controller's memory (recommendations and scale
events) travels in ``History``. Modules, bottom up:

- ``types``: value types and the ``MetricsSource`` protocol.
- ``pods`` / ``calculator`` / ``tolerance``: one metric's replica proposal.
- ``metric_status``: the controller's view of one metric (status entry, failure condition).
- ``normalize`` / ``policies``: stabilization windows, scaling policies, min/max limits.
- ``conditions``: condition reasons and messages; ``decide``: the whole sync
  (``combine``, ``normalize_step``, ``sync``, ``status``) and ``decision``: its outcome
  (``Decision``); ``scale_failures``.
- ``trace``: the decision trace's records and ``trace_to_dict`` (+ ``trace_json``, the
  stored document; ``trace_read``, reading it back; ``trace_render``, its text);
  ``static_source`` and ``scenario``: fixed inputs.
- ``contest`` / ``contest_verdict``: who else writes the target's replicas, and podscale's
  ``ReplicasContested`` condition, event and trace entry about it.
"""

from podscale.hpa.calculator import calculate_replicas
from podscale.hpa.conditions import set_condition
from podscale.hpa.decide import decide
from podscale.hpa.decision import Decision
from podscale.hpa.normalize import (
    LIMIT_MESSAGES,
    STABILIZATION_MESSAGES,
    limit_by_policies,
    limit_legacy,
    stabilize_recommendation,
    stabilize_with_behavior,
)
from podscale.hpa.policies import (
    record_scale_event,
    replicas_change_in_period,
    scale_down_limit,
    scale_up_limit,
    seed_history,
)
from podscale.hpa.scale_failures import apply_rescale_failure, scale_unavailable
from podscale.hpa.static_source import StaticMetricsSource
from podscale.hpa.tolerance import tolerances_for
from podscale.hpa.trace import DecisionTrace, trace_to_dict
from podscale.hpa.trace_render import render_trace
from podscale.hpa.types import (
    CalculationTrace,
    Config,
    Event,
    History,
    MetricError,
    MetricProposal,
    MetricsSource,
    MetricsUnavailable,
    PodMetric,
    Recommendation,
    ScaleEvent,
)

__all__ = [
    "LIMIT_MESSAGES",
    "STABILIZATION_MESSAGES",
    "CalculationTrace",
    "Config",
    "Decision",
    "DecisionTrace",
    "Event",
    "History",
    "MetricError",
    "MetricProposal",
    "MetricsSource",
    "MetricsUnavailable",
    "PodMetric",
    "Recommendation",
    "ScaleEvent",
    "StaticMetricsSource",
    "apply_rescale_failure",
    "calculate_replicas",
    "decide",
    "limit_by_policies",
    "limit_legacy",
    "record_scale_event",
    "render_trace",
    "replicas_change_in_period",
    "scale_down_limit",
    "scale_unavailable",
    "scale_up_limit",
    "seed_history",
    "set_condition",
    "stabilize_recommendation",
    "stabilize_with_behavior",
    "tolerances_for",
    "trace_to_dict",
]
