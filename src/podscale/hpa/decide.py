"""The whole HPA decision for one sync: upstream's ``reconcileAutoscaler``, without I/O.

``decide`` takes what the controller gathered (the HPA, its target's ``Scale``, the
target's pods, a ``MetricsSource``, the remembered ``History`` and ``now``) and returns a
``decision.Decision``: the replica count to write through ``/scale`` (if any), the new HPA
status with upstream's conditions, the events upstream would emit, the updated history,
and a ``DecisionTrace`` explaining every step. It combines the per-metric outcomes of
``metric_status`` (which wraps ``calculator``) and the normalization of ``normalize``;
when no metric is usable, ``decision.blocked_decision`` builds the outcome.
The controller shell (a later layer) writes the results; if the ``/scale`` update
fails it calls ``scale_failures.apply_rescale_failure`` for upstream's failure status.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

import podscale.hpa.conditions as c
from podscale.api.defaults_hpa import default_scale_down_rules, default_scale_up_rules
from podscale.hpa.combine import combine_metrics
from podscale.hpa.decision import Decision, blocked_decision
from podscale.hpa.normalize_step import normalize_desired_replicas
from podscale.hpa.policies import record_scale_event, seed_history
from podscale.hpa.predictive import (
    DECIDED_BY_BOUNDS,
    DECIDED_BY_PASSIVE,
    Predictive,
    decided_by,
)
from podscale.hpa.status import build_status
from podscale.hpa.sync import SyncRecorder
from podscale.hpa.tolerance import tolerances_for
from podscale.hpa.trace import DecisionTrace
from podscale.hpa.types import Config, History, MetricsSource, PodReader

__all__ = ["decide"]

DEFAULT_METRICS: Final = (
    {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
    },
)


def _defaulted_behavior(behavior: dict[str, Any] | None) -> dict[str, Any] | None:
    if behavior is None:
        return None
    return {
        "scaleUp": default_scale_up_rules(behavior.get("scaleUp")),
        "scaleDown": default_scale_down_rules(behavior.get("scaleDown")),
    }


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
    predictive: Predictive | None = None,
    pod_reader: PodReader | None = None,
) -> Decision:
    """Decide one sync of ``hpa`` (autoscaling/v2 JSON) at ``now``.

    ``scale`` is the target's autoscaling/v1 Scale (``spec.replicas``, ``status.replicas``,
    ``status.selector``); ``pods`` the pods its selector matches; ``history=None`` means
    the controller has never seen this HPA (upstream seeds it with the current count).
    ``controlling_hpas`` lists the ``namespace/name`` of every HPA whose target selects
    these pods (the controller knows them): more than one is ``AmbiguousSelector``.
    Neither ``hpa`` nor ``history`` is modified.

    ``predictive`` (a predictive autoscaler's sync): the proposal is the larger of the
    metrics' (passive) and ``proactive_replicas``, and the window's bounds replace
    ``minReplicas``/``maxReplicas`` everywhere, the clamps included; behavior then applies
    as usual. None decides exactly as the HPA.

    ``pod_reader``: per-pod values (readiness facts, requests) as the caller keeps them
    between syncs (``PodReader``: the same values, so the same decision); None reads
    every pod afresh.
    """
    config = config or Config()
    meta = hpa.get("metadata") or {}
    namespace = str(meta.get("namespace") or "default")
    spec = hpa.get("spec") or {}
    old_status = hpa.get("status") or {}
    # set_condition replaces condition dicts rather than editing them: a list copy suffices.
    sync = SyncRecorder(now, list(old_status.get("conditions") or []), [])
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
    proactive: int | None = None
    if predictive is not None:
        proactive = predictive.proactive_replicas
        if predictive.min_replicas is not None:
            min_replicas = predictive.min_replicas
        if predictive.max_replicas is not None:
            max_replicas = predictive.max_replicas
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
    if predictive is not None:
        trace_fields.update(proactive_replicas=proactive, window=predictive.window)
    decision_by = DECIDED_BY_PASSIVE
    passive: int | None = None

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
        decision_by = DECIDED_BY_BOUNDS
        trace_fields["branch"] = "current replicas above maxReplicas: clamp"
    elif current_replicas < min_replicas:
        rescale_reason = "Current number of replicas below Spec.MinReplicas"
        desired_replicas = min_replicas
        decision_by = DECIDED_BY_BOUNDS
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
            pod_reader=pod_reader,
        )
        metric_statuses = result.statuses
        trace_fields.update(
            tolerances=tolerances, metrics=result.traces, invalid_metrics=result.invalid
        )
        if result.replicas == -1:
            return blocked_decision(
                hpa,
                sync,
                result,
                old_status=old_status,
                current_replicas=current_replicas,
                metric_statuses=metric_statuses,
                last_scale_time=last_scale_time,
                working=working,
                decision_by=decision_by,
                proactive=proactive,
                trace_fields=trace_fields,
            )
        error = result.error  # some metrics failed but scaling goes on (upstream's retErr)
        rescale_metric = ""
        if result.replicas > desired_replicas:
            desired_replicas = result.replicas
            rescale_metric = result.name
        passive = desired_replicas
        proposed_by = result.name
        if proactive is not None and proactive > desired_replicas:
            desired_replicas = proactive
            rescale_metric = proposed_by = "predicted demand"
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
        decision_by = decided_by(
            passive=passive,
            proactive=proactive,
            proposed=proposed,
            final=desired_replicas,
            limit_reason=limit_trace.reason,
        )
        trace_fields.update(
            branch="metrics",
            proposed_replicas=proposed,
            proposed_by=proposed_by,
            passive_replicas=passive,
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
    status = build_status(
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
        decided_by=decision_by,
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
        decided_by=decision_by,
        passive_replicas=passive,
        proactive_replicas=proactive,
    )
