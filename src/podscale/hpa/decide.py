"""The whole HPA decision for one sync: upstream's ``reconcileAutoscaler``, without I/O.

``decide`` takes what the controller gathered (the HPA, its target's ``Scale``, the
target's pods, a ``MetricsSource``, the remembered ``History`` and ``now``) and returns a
``Decision``: the replica count to write through ``/scale`` (if any), the new HPA
status with upstream's conditions, the events upstream would emit, the updated history,
and a ``DecisionTrace`` explaining every step. It combines the per-metric outcomes of
``metric_status`` (which wraps ``calculator``) and the normalization of ``normalize``.
The controller shell (a later layer) writes the results; if the ``/scale`` update
fails it calls ``apply_rescale_failure`` to get upstream's failure status and events.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from podscale.api.defaults import default_scale_down_rules, default_scale_up_rules
from podscale.hpa import conditions as c
from podscale.hpa.combine import combine_metrics
from podscale.hpa.normalize_step import normalize_desired_replicas
from podscale.hpa.policies import record_scale_event, seed_history
from podscale.hpa.sync import SyncRecorder
from podscale.hpa.tolerance import tolerances_for
from podscale.hpa.trace import DecisionTrace
from podscale.hpa.types import Config, Event, History, MetricsSource

__all__ = ["Decision", "apply_rescale_failure", "decide"]

DEFAULT_METRICS: Final = (
    {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
    },
)


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


def _defaulted_behavior(behavior: dict[str, Any] | None) -> dict[str, Any] | None:
    if behavior is None:
        return None
    return {
        "scaleUp": default_scale_up_rules(behavior.get("scaleUp")),
        "scaleDown": default_scale_down_rules(behavior.get("scaleDown")),
    }


def _build_status(
    *,
    current_replicas: int,
    desired_replicas: int,
    metric_statuses: Sequence[dict[str, Any]] | None,
    last_scale_time: str | None,
    conditions: list[dict[str, Any]],
) -> dict[str, Any]:
    """setStatus: fields in Go's order, with Go's omitempty rules."""
    status: dict[str, Any] = {}
    if last_scale_time:
        status["lastScaleTime"] = last_scale_time
    if current_replicas:
        status["currentReplicas"] = current_replicas
    status["desiredReplicas"] = desired_replicas
    if metric_statuses:
        status["currentMetrics"] = list(metric_statuses)
    if conditions:
        status["conditions"] = conditions
    return status


def decide(
    hpa: dict[str, Any],
    *,
    scale: dict[str, Any],
    pods: list[dict[str, Any]],
    metrics: MetricsSource,
    history: History | None,
    now: datetime,
    config: Config | None = None,
    controlling_hpas: Sequence[str] = (),
) -> Decision:
    """Decide one sync of ``hpa`` (autoscaling/v2 JSON) at ``now``.

    ``scale`` is the target's autoscaling/v1 Scale (``spec.replicas``, ``status.replicas``,
    ``status.selector``); ``pods`` the pods its selector matches; ``history=None`` means
    the controller has never seen this HPA (upstream seeds it with the current count).
    ``controlling_hpas`` lists the ``namespace/name`` of every HPA whose target selects
    these pods (the controller knows them): more than one is ``AmbiguousSelector``.
    Neither ``hpa`` nor ``history`` is modified.
    """
    config = config or Config()
    meta = hpa.get("metadata") or {}
    namespace = str(meta.get("namespace") or "default")
    spec = hpa.get("spec") or {}
    old_status = hpa.get("status") or {}
    target_ref = spec.get("scaleTargetRef") or {}
    reference = f"{target_ref.get('kind', '')}/{namespace}/{target_ref.get('name', '')}"
    sync = SyncRecorder(now, [dict(cond) for cond in old_status.get("conditions") or []], [])
    sync.condition(
        c.ABLE_TO_SCALE,
        "True",
        c.SUCCEEDED_GET_SCALE,
        "the HPA controller was able to get the target's current scale",
    )
    current_replicas = int((scale.get("spec") or {}).get("replicas") or 0)
    scale_status = scale.get("status") or {}
    status_replicas = int(scale_status.get("replicas") or 0)
    working = history.copy() if history is not None else seed_history(current_replicas, now=now)
    min_value = spec.get("minReplicas")
    min_replicas = 1 if min_value is None else int(min_value)
    max_replicas = int(spec.get("maxReplicas") or 0)
    behavior = _defaulted_behavior(spec.get("behavior"))
    last_scale_time = old_status.get("lastScaleTime")
    # Trace fields accumulate as the sync proceeds; the trace is built once at the end.
    trace_fields: dict[str, Any] = {
        "hpa": f"{namespace}/{meta.get('name', '')}",
        "at": now,
        "current_replicas": current_replicas,
        "status_replicas": status_replicas,
        "min_replicas": min_replicas,
        "max_replicas": max_replicas,
    }

    desired_replicas = 0
    rescale_reason = ""
    rescale = True
    error: str | None = None
    metric_statuses: list[dict[str, Any]] | None = None
    if current_replicas == 0 and min_replicas != 0:
        rescale = False
        sync.condition(
            c.SCALING_ACTIVE,
            "False",
            c.SCALING_DISABLED,
            "scaling is disabled since the replica count of the target is zero",
        )
        trace_fields["branch"] = "scaling disabled: the target is at 0 replicas (maintenance mode)"
    elif current_replicas > max_replicas:
        rescale_reason = "Current number of replicas above Spec.MaxReplicas"
        desired_replicas = max_replicas
        trace_fields["branch"] = "current replicas above maxReplicas: clamp"
    elif current_replicas < min_replicas:
        rescale_reason = "Current number of replicas below Spec.MinReplicas"
        desired_replicas = min_replicas
        trace_fields["branch"] = "current replicas below minReplicas: clamp"
    else:
        tolerances = tolerances_for(spec.get("behavior"), config)
        result = combine_metrics(
            sync,
            spec.get("metrics") or DEFAULT_METRICS,
            selector=str(scale_status.get("selector") or ""),
            controlling_hpas=controlling_hpas,
            current_replicas=current_replicas,
            status_replicas=status_replicas,
            pods=pods,
            metrics=metrics,
            namespace=namespace,
            config=config,
            tolerances=tolerances,
        )
        metric_statuses = result.statuses
        trace_fields.update(
            tolerances=tolerances, metrics=result.traces, invalid_metrics=result.invalid
        )
        if result.replicas == -1:
            # Nothing usable: report current replicas and metrics, keep desiredReplicas.
            message = result.error or ""
            sync.event("Warning", "FailedComputeMetricsReplicas", message)
            status = _build_status(
                current_replicas=current_replicas,
                desired_replicas=int(old_status.get("desiredReplicas") or 0),
                metric_statuses=metric_statuses,
                last_scale_time=last_scale_time,
                conditions=sync.final_conditions(),
            )
            trace = DecisionTrace(
                branch="metrics: no usable proposal, no scaling",
                desired_replicas=current_replicas,
                rescale=False,
                reason="",
                notes=(message,),
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
                f"for {reference}: {message}",
                metric_statuses=None if metric_statuses is None else tuple(metric_statuses),
            )
        error = result.error  # some metrics failed but scaling goes on (upstream's retErr)
        rescale_metric = ""
        if result.replicas > desired_replicas:
            desired_replicas = result.replicas
            rescale_metric = result.name
        if desired_replicas > current_replicas:
            rescale_reason = f"{rescale_metric} above target"
        if desired_replicas < current_replicas:
            rescale_reason = "All metrics below target"
        proposed = desired_replicas
        desired_replicas, stab_trace, limit_trace = normalize_desired_replicas(
            sync,
            working,
            desired_replicas,
            current_replicas=current_replicas,
            min_replicas=min_replicas,
            max_replicas=max_replicas,
            behavior=behavior,
            config=config,
        )
        rescale = desired_replicas != current_replicas
        trace_fields.update(
            branch="metrics",
            proposed_replicas=proposed,
            proposed_by=result.name,
            stabilization=stab_trace,
            limit=limit_trace,
        )

    history_without_rescale: History | None = None
    if rescale:
        sync.condition(
            c.ABLE_TO_SCALE,
            "True",
            c.SUCCEEDED_RESCALE,
            f"the HPA controller was able to update the target scale to {desired_replicas}",
        )
        sync.event(
            "Normal", "SuccessfulRescale", f"New size: {desired_replicas}; reason: {rescale_reason}"
        )
        history_without_rescale = working.copy()
        record_scale_event(
            working,
            behavior=behavior,
            previous_replicas=current_replicas,
            new_replicas=desired_replicas,
            now=now,
        )
        last_scale_time = c.format_time(now)
    else:
        desired_replicas = current_replicas
    status = _build_status(
        current_replicas=current_replicas,
        desired_replicas=desired_replicas,
        metric_statuses=metric_statuses,
        last_scale_time=last_scale_time,
        conditions=sync.final_conditions(),
    )
    trace = DecisionTrace(
        desired_replicas=desired_replicas,
        rescale=rescale,
        reason=rescale_reason,
        notes=(error,) if error else (),
        **trace_fields,
    )
    return Decision(
        current_replicas=current_replicas,
        desired_replicas=desired_replicas,
        rescale=rescale,
        reason=rescale_reason,
        status=status,
        history=working,
        events=tuple(sync.events),
        trace=trace,
        error=error,
        metric_statuses=None if metric_statuses is None else tuple(metric_statuses),
        history_without_rescale=history_without_rescale,
    )


def apply_rescale_failure(
    decision: Decision, hpa: dict[str, Any], *, error: str, now: datetime
) -> Decision:
    """The decision as upstream leaves it when the ``/scale`` update fails.

    Emits ``FailedRescale``, sets ``AbleToScale=False`` / ``FailedUpdateScale``, reports
    current replicas and metrics while keeping the old ``desiredReplicas`` and
    ``lastScaleTime``, and forgets the scale event that never happened.
    """
    if not decision.rescale:
        raise ValueError("apply_rescale_failure needs a decision that rescales")
    old_status = hpa.get("status") or {}
    conditions = [dict(cond) for cond in decision.status.get("conditions") or []]
    c.set_condition(
        conditions,
        c.ABLE_TO_SCALE,
        "False",
        c.FAILED_UPDATE_SCALE,
        f"the HPA controller was unable to update the target scale: {error}",
        now=now,
    )
    events = [e for e in decision.events if e.reason != "SuccessfulRescale"]
    events.append(
        Event(
            "Warning",
            "FailedRescale",
            f"New size: {decision.desired_replicas}; reason: {decision.reason}; error: {error}",
        )
    )
    status = _build_status(
        current_replicas=decision.current_replicas,
        desired_replicas=int(old_status.get("desiredReplicas") or 0),
        metric_statuses=decision.metric_statuses,
        last_scale_time=old_status.get("lastScaleTime"),
        conditions=conditions,
    )
    reference = _reference(hpa)
    return dataclasses.replace(
        decision,
        status=status,
        events=tuple(events),
        history=decision.history_without_rescale or decision.history,
        error=f"failed to rescale {reference}: {error}",
    )


def _reference(hpa: dict[str, Any]) -> str:
    meta = hpa.get("metadata") or {}
    ref = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
    return f"{ref.get('kind', '')}/{meta.get('namespace') or 'default'}/{ref.get('name', '')}"
