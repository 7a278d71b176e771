"""Stability checkers: hold or undo a gray change while a watched metric is anomalous.

An IHPA's `stabilityCheckers` each name an action, Pause or Rollback, and a
`coolDownSeconds`: the action stays in force while the checker sees an anomaly and for
the cool-down after it last saw one, then the change resumes. Whether a Metrics checker
sees an anomaly is `podscale.controllers.kapacity.checkers`' rule comparison (read by
`checker_readings`); `metric_anomalous` is its default rule, observed above the target.
Kapacity declares these fields but its controller does not act on them yet; the rules
here are podscale's reading of their documentation:
- `verdict` folds the checkers: Rollback outranks Pause, and a checker counts while it
  is anomalous now or still cooling down (`now` before its last anomaly plus the
  cool-down); `last_anomaly` carries each checker's last anomalous instant forward.
- `stabilize` applies the verdict to `podscale.controllers.kapacity.gray`'s decision
  during a change: Pause keeps the counts of the step already taken, does not advance,
  and restarts the step's wait (or the observation) from `now`; Rollback returns every
  gray pod to the previous value's online count (cut-off or standby pods go back to
  traffic, so no new pod starts) and restarts the change at 0%, so that after the
  cool-down it begins again from its first step.
Pure: `now` is a parameter.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from podscale.controllers.kapacity.gray import (
    GrayDecision,
    GrayInput,
    GrayStatus,
    ReplicaSplit,
    current_strategy,
    split_at,
)
from podscale.controllers.kapacity.portraits import clamp_replicas

Action = Literal["Pause", "Rollback"]


@dataclass(frozen=True)
class CheckerReading:
    """One checker this reconcile: its spec and whether it sees an anomaly now."""

    name: str
    action: Action
    cool_down_seconds: int
    anomalous: bool


@dataclass(frozen=True)
class Verdict:
    action: Action | None
    until: dt.datetime | None  # when the action lapses if no new anomaly is seen
    last_anomaly: Mapping[str, dt.datetime]


def metric_anomalous(observed: float, threshold: float) -> bool:
    return observed > threshold


def verdict(
    readings: Sequence[CheckerReading],
    last_anomaly: Mapping[str, dt.datetime],
    now: dt.datetime,
) -> Verdict:
    """The action in force now and, per checker, the last instant it saw an anomaly."""
    seen = {r.name: last_anomaly[r.name] for r in readings if r.name in last_anomaly}
    in_force: dict[Action, dt.datetime] = {}
    for reading in readings:
        if reading.anomalous:
            seen[reading.name] = now
        last = seen.get(reading.name)
        if last is None:
            continue
        ends = last + dt.timedelta(seconds=reading.cool_down_seconds)
        if reading.anomalous or now < ends:
            in_force[reading.action] = max(ends, in_force.get(reading.action, ends))
    for action in ("Rollback", "Pause"):
        if action in in_force:
            return Verdict(action, in_force[action], seen)
    return Verdict(None, None, seen)


def stabilize(
    spec: GrayInput,
    gray: GrayStatus | None,
    decision: GrayDecision,
    found: Verdict,
    now: dt.datetime,
) -> GrayDecision:
    """`decision` as the verdict allows; unchanged outside a gray change or with no action."""
    strategy = current_strategy(spec)
    if found.action is None or strategy is None or gray is None:
        return decision
    observed_until = gray.last_update_time + dt.timedelta(seconds=strategy.observation_seconds)
    if gray.gray_percent >= 100 and now >= observed_until:
        return decision  # the change has ended: nothing left to hold or undo
    assert spec.previous_replicas is not None  # current_strategy saw a previous value
    previous = clamp_replicas(spec.previous_replicas, spec.min_replicas, spec.max_replicas)
    target = decision.clamped.replicas
    if found.action == "Rollback":
        return replace(
            decision,
            split=ReplicaSplit(previous.replicas),
            gray=GrayStatus(0, now),
            next_step_at=found.until,
            progressing=previous.replicas != target,
        )
    # Pause: keep the step already taken (none at 0%) and restart its wait from now, so
    # that neither the next step nor the end of the observation comes during the pause.
    held = ReplicaSplit(previous.replicas)
    if gray.gray_percent > 0:
        held = split_at(previous.replicas, target, strategy, gray.gray_percent)
    return replace(
        decision,
        split=held,
        gray=GrayStatus(gray.gray_percent, now),
        next_step_at=found.until,
        progressing=held.online != target,
    )
