"""The verdict on a replicas fight: podscale's ``ReplicasContested`` condition, event, trace.

Beyond upstream, whose HPA conditions (``AbleToScale``, ``ScalingActive``,
``ScalingLimited``) stay as they are: from the writes ``contest.observe`` recorded,
``assess`` says whether someone else wrote the target's ``spec.replicas`` inside the
window (``FIGHT_WINDOW``) and whether it is a loop (the same manager twice or more: a
GitOps or apply loop); ``apply_contest`` puts the verdict into a ``Decision``:

- condition ``ReplicasContested``: ``True`` with reason ``ReplicasOverwritten`` (one write)
  or ``ReplicasFightLoop`` (a loop), the message naming the manager, the value, the time
  and the fix; ``False`` with ``ReplicasUncontested`` once a whole window passes without
  another write. An HPA nobody fought never carries it;
- only writes the autoscaler disagreed with count (``disagrees``, ``contest.settle``): a
  CronHPA that raises the target to the HPA's new minimum is no fight;
- a ``Warning`` event with the same reason and message for each newly seen write;
- ``DecisionTrace.contest`` (a ``ContestTrace``) while the window holds a write.

The fix: a manifest writer should drop ``replicas`` from what it applies, or hand the
field's ownership to the autoscaler as the server-side apply docs describe
(``TRANSFER_DOCS``); a writer through ``/scale`` should move the HPA's bounds instead.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from typing import Final

from podscale.api.timestamps import parse_time_or_none
from podscale.hpa.conditions import get_condition, set_condition
from podscale.hpa.contest import SCALE_SUBRESOURCE, ContestState, ContestTrace, ReplicasWrite
from podscale.hpa.decision import Decision
from podscale.hpa.types import Event

__all__ = [
    "FIGHT_WINDOW",
    "REASON_FIGHT_LOOP",
    "REASON_OVERWRITTEN",
    "REASON_UNCONTESTED",
    "REPLICAS_CONTESTED",
    "TRANSFER_DOCS",
    "apply_contest",
    "assess",
    "disagrees",
]

REPLICAS_CONTESTED: Final = "ReplicasContested"
REASON_OVERWRITTEN: Final = "ReplicasOverwritten"
REASON_FIGHT_LOOP: Final = "ReplicasFightLoop"
REASON_UNCONTESTED: Final = "ReplicasUncontested"
# Long enough to hold two syncs of the common GitOps intervals (Argo CD's 3 minutes,
# Flux's 10); a window without another write clears the condition.
FIGHT_WINDOW: Final = timedelta(minutes=30)
TRANSFER_DOCS: Final = (
    "https://kubernetes.io/docs/reference/using-api/server-side-apply/#transferring-ownership"
)


def _writer(write: ReplicasWrite) -> str:
    if not write.manager:
        return "an unknown writer (no managedFields entry of the target names one)"
    via = " through /scale" if write.subresource == SCALE_SUBRESOURCE else ""
    operation = f" ({write.operation}{via})" if write.operation else ""
    return f'manager "{write.manager}"{operation}'


def _fix(write: ReplicasWrite) -> str:
    if write.subresource == SCALE_SUBRESOURCE:
        return "change the HPA's minReplicas/maxReplicas instead of writing /scale"
    return (
        "drop replicas from the manifest it applies, or transfer ownership of "
        f"spec.replicas to the autoscaler: {TRANSFER_DOCS}"
    )


def _minutes(window: timedelta) -> str:
    return f"{int(window.total_seconds() // 60)}m"


def _in_window(write: ReplicasWrite, cutoff: datetime) -> bool:
    at = parse_time_or_none(write.time)
    return at is not None and at >= cutoff


def disagrees(decision: Decision) -> bool:
    """Whether ``decision`` would undo the replicas it found: it rescales, or its proposal
    within the HPA's bounds differs and only stabilization holds the value for now."""
    if decision.rescale:
        return True
    trace = decision.trace
    if trace.proposed_replicas is None:
        return False
    bounded = min(max(trace.proposed_replicas, trace.min_replicas), trace.max_replicas)
    return bounded != decision.current_replicas


def assess(
    state: ContestState,
    *,
    target: str,
    now: datetime,
    observed: ReplicasWrite | None = None,
    window: timedelta = FIGHT_WINDOW,
) -> ContestTrace | None:
    """The fight ``state`` shows at ``now`` over ``target`` (``Kind/name``), or None when
    no write falls inside the window. ``observed``: the write first seen in this sync."""
    cutoff = now - window
    recent = [w for w in state.writes if w.contested and _in_window(w, cutoff)]
    if not recent:
        return None
    last = recent[-1]
    count = sum(1 for w in recent if w.manager == last.manager)
    replaced = "" if last.replaced is None else f", replacing {last.replaced}"
    if count >= 2:
        reason = REASON_FIGHT_LOOP
        message = (
            f"{_writer(last)} keeps resetting spec.replicas of {target}: {count} writes in "
            f"the last {_minutes(window)}, the last to {last.replicas} at {last.time}"
            f"{replaced}; an apply or GitOps loop undoing the autoscaler: {_fix(last)}"
        )
    else:
        reason = REASON_OVERWRITTEN
        message = (
            f"spec.replicas of {target} was set to {last.replicas} by {_writer(last)} at "
            f"{last.time}{replaced}; {_fix(last)}"
        )
    return ContestTrace(reason, message, last.manager, count, last, observed == last)


def apply_contest(
    decision: Decision,
    state: ContestState,
    *,
    target: str,
    now: datetime,
    observed: ReplicasWrite | None = None,
    window: timedelta = FIGHT_WINDOW,
) -> Decision:
    """``decision`` with the verdict of ``assess`` applied (see the module docstring)."""
    verdict = assess(state, target=target, now=now, observed=observed, window=window)
    conditions = [dict(c) for c in decision.status.get("conditions") or []]
    events = decision.events
    trace = decision.trace
    if verdict is not None:
        set_condition(
            conditions, REPLICAS_CONTESTED, "True", verdict.reason, verdict.message, now=now
        )
        if verdict.observed:
            events = (Event("Warning", verdict.reason, verdict.message), *events)
        trace = trace._replace(contest=verdict)
    else:
        existing = get_condition(conditions, REPLICAS_CONTESTED)
        if existing is None or existing.get("status") != "True":
            return decision
        last = f" (the last at {state.writes[-1].time})" if state.writes else ""
        message = (
            f"no other manager has written spec.replicas of {target} in the last "
            f"{_minutes(window)}{last}"
        )
        set_condition(conditions, REPLICAS_CONTESTED, "False", REASON_UNCONTESTED, message, now=now)
    status = {**decision.status, "conditions": conditions}
    return dataclasses.replace(decision, status=status, events=events, trace=trace)
