"""When the target's ``/scale`` subresource fails: upstream's handling, as pure functions.

The controller shell talks to ``/scale``; ``decide`` only sees a Scale it was given.
- Reading the scale failed: ``scale_unavailable`` gives upstream's ``FailedGetScale``
  outcome (``AbleToScale=False``, a Warning event, the status otherwise untouched).
- Writing the new size failed: ``decide`` assumed success (``SucceededRescale``, a
  ``SuccessfulRescale`` event, the scale event remembered); ``apply_rescale_failure``
  turns that into what upstream's ``reconcileAutoscaler`` leaves behind instead.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

import podscale.hpa.conditions as c
from podscale.hpa.decision import Decision
from podscale.hpa.status import build_status, target_reference
from podscale.hpa.trace import DecisionTrace
from podscale.hpa.types import Event, History

__all__ = ["apply_rescale_failure", "scale_unavailable"]


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
    status = build_status(
        current_replicas=decision.current_replicas,
        desired_replicas=int(old_status.get("desiredReplicas") or 0),
        metric_statuses=decision.metric_statuses,
        last_scale_time=old_status.get("lastScaleTime"),
        conditions=conditions,
    )
    reference = target_reference(hpa)
    return dataclasses.replace(
        decision,
        status=status,
        events=tuple(events),
        history=decision.history_without_rescale or decision.history,
        error=f"failed to rescale {reference}: {error}",
    )


def scale_unavailable(
    hpa: dict[str, Any], *, error: str, history: History | None, now: datetime
) -> Decision:
    """The sync when the target's scale could not be read (upstream's ``FailedGetScale``).

    Only ``AbleToScale`` changes in the status; nothing is decided, so the history comes
    back as given (upstream records its initial recommendation only after reading the
    scale).
    """
    old_status = hpa.get("status") or {}
    conditions = list(old_status.get("conditions") or [])
    c.set_condition(
        conditions,
        c.ABLE_TO_SCALE,
        "False",
        c.FAILED_GET_SCALE,
        f"the HPA controller was unable to get the target's current scale: {error}",
        now=now,
    )
    status = {**old_status, "conditions": conditions}
    current = int(old_status.get("currentReplicas") or 0)
    meta = hpa.get("metadata") or {}
    spec = hpa.get("spec") or {}
    trace = DecisionTrace(
        hpa=f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}",
        at=now,
        current_replicas=current,
        status_replicas=current,
        min_replicas=1 if spec.get("minReplicas") is None else int(spec["minReplicas"]),
        max_replicas=int(spec.get("maxReplicas") or 0),
        branch="the target's scale could not be read: no decision",
        desired_replicas=current,
        rescale=False,
        reason="",
        notes=(error,),
    )
    return Decision(
        current_replicas=current,
        desired_replicas=current,
        rescale=False,
        reason="",
        status=status,
        history=history.copy() if history is not None else History(),
        events=(Event("Warning", c.FAILED_GET_SCALE, error),),
        trace=trace,
        error=f"failed to query scale subresource for {target_reference(hpa)}: {error}",
    )
