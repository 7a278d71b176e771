"""When the ``/scale`` update fails: upstream's FailedRescale handling, as a pure function.

``decide`` assumes the rescale it asks for will succeed (conditions ``SucceededRescale``,
event ``SuccessfulRescale``, the scale event remembered). The controller shell calls
``apply_rescale_failure`` when the write fails, and gets the decision as upstream's
``reconcileAutoscaler`` leaves it in that case.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from podscale.hpa import conditions as c
from podscale.hpa.decide import Decision
from podscale.hpa.status import build_status, target_reference
from podscale.hpa.types import Event

__all__ = ["apply_rescale_failure"]


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
