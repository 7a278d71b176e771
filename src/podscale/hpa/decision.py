"""What one HPA sync decided: ``Decision``, and the one built when no metric is usable.

``decide`` (the sync) returns a ``Decision``: the replica count to write through ``/scale``,
the new HPA status, the events, the updated ``History`` and the ``DecisionTrace``. When
``combine.combine_metrics`` gives nothing to act on, ``decide`` hands over to
``blocked_decision``: upstream's FailedComputeMetricsReplicas event, a status that keeps
``desiredReplicas`` (``status.build_status``), the trace's branch saying why and upstream's
reconcile error. The controller shell reads ``Decision`` (``controllers.hpa``), as do
``scale_failures`` and ``contest_verdict``, which reshape it after the fact.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from podscale.hpa.combine import MetricsResult
from podscale.hpa.predictive import DECIDED_BY_PASSIVE
from podscale.hpa.status import build_status, target_reference
from podscale.hpa.sync import SyncRecorder
from podscale.hpa.trace import DecisionTrace
from podscale.hpa.types import Event, History

__all__ = ["Decision", "blocked_decision"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome of one sync.

    ``rescale`` says whether to write ``desired_replicas`` to the target's ``/scale``;
    ``reason`` is upstream's rescale reason (``"cpu resource utilization (percentage of
    request) above target"``, ``"All metrics below target"``, ...). ``status`` is the
    complete new autoscaling/v2 HPA status; ``error`` the error upstream's reconcile
    would return (logged, and the HPA is retried on the next sync), if any.
    """

    current_replicas: int
    desired_replicas: int
    rescale: bool
    reason: str
    status: dict[str, Any]
    history: History
    events: tuple[Event, ...]
    trace: DecisionTrace
    error: str | None = None
    metric_statuses: tuple[dict[str, Any], ...] | None = None
    history_without_rescale: History | None = dataclasses.field(default=None, repr=False)
    # Which part set desired_replicas (``predictive.decided_by``) and the two proposals
    # (passive: the metrics'; proactive: the forecast's, None without one).
    decided_by: str = DECIDED_BY_PASSIVE
    passive_replicas: int | None = None
    proactive_replicas: int | None = None


def blocked_decision(
    hpa: dict[str, Any],
    sync: SyncRecorder,
    result: MetricsResult,
    *,
    old_status: dict[str, Any],
    current_replicas: int,
    metric_statuses: list[dict[str, Any]] | None,
    last_scale_time: str | None,
    working: History,
    decision_by: str,
    proactive: int | None,
    trace_fields: dict[str, Any],
) -> Decision:
    """The sync's outcome when the metrics gave no usable proposal (``result.replicas`` is
    upstream's -1): no scaling, and the reconcile error upstream returns."""
    # Nothing usable: report current replicas and metrics, keep desiredReplicas.
    message = result.error or ""
    sync.event("Warning", "FailedComputeMetricsReplicas", message)
    status = build_status(
        current_replicas=current_replicas,
        desired_replicas=int(old_status.get("desiredReplicas") or 0),
        metric_statuses=metric_statuses,
        last_scale_time=last_scale_time,
        conditions=sync.final_conditions(),
    )
    trace = DecisionTrace(
        branch=_blocked_branch(result.invalid, len(result.traces)),
        desired_replicas=current_replicas,
        rescale=False,
        reason="",
        notes=(message,),
        decided_by=decision_by,
        **trace_fields,
    )
    return Decision(
        current_replicas=current_replicas,
        desired_replicas=current_replicas,
        rescale=False,
        reason="",
        status=status,
        history=working,
        events=tuple(sync.events),
        trace=trace,
        error="failed to compute desired number of replicas based on listed metrics "
        f"for {target_reference(hpa)}: {message}",
        metric_statuses=None if metric_statuses is None else tuple(metric_statuses),
        proactive_replicas=proactive,
    )


def _blocked_branch(invalid: int, computed: int) -> str:
    """Why the metrics gave nothing to act on, for the trace."""
    if computed == 0:
        return "metrics: the target's selector is unusable, no scaling"
    if invalid >= computed:
        return "metrics: every metric failed, no scaling"
    return (
        "metrics: a metric failed and the valid ones point below the current count; "
        "upstream does not scale down on partial metrics"
    )
