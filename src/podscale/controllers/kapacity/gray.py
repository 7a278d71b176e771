"""Gray changes: how many replicas are online, cut off or on standby while a change runs.

When the followed portrait value changes, the IHPA moves from the previous value's
replicas to the current one's. With a `GrayStrategy` for that direction the move goes in
steps, as Kapacity's IHPA reconciler takes them:
- the change starts at 0% (`start_gray`, stamped `now`); the first step is due at once,
  each later one `changeIntervalSeconds` after the previous, and each adds
  `changePercent` (capped at 100);
- at p% the gray pods number max(1, |current - previous| x p / 100) (integer division):
  scaling up they are online on top of the previous count; scaling down they leave the
  online count and wait in the strategy's `grayState` (Cutoff, Standby; Deleted keeps
  none), so online + gray pods stays the previous count until the change ends;
- after 100% the gray pods stay for `observationSeconds`, then the change ends and the
  online count is the current value's.
Without a strategy for the direction, or in Preview mode, the current value applies at
once. Counts are clamped first (`podscale.controllers.kapacity.portraits.clamp_replicas`)
so a change never leaves [min, max]. `podscale.controllers.kapacity.stability` may hold
or undo a step. Pure: `now` is a parameter; `next_step_at` says when to look again.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from podscale.controllers.kapacity.portraits import Clamped, clamp_replicas
from podscale.controllers.kapacity.types import GrayStrategy

__all__ = [
    "GrayDecision",
    "GrayInput",
    "GrayStatus",
    "GrayStrategy",
    "ReplicaSplit",
    "current_strategy",
    "decide_gray",
    "split_at",
    "start_gray",
    "wait_seconds",
]


@dataclass(frozen=True)
class GrayStatus:
    """status.gray: the percent of the change applied and when it was last advanced."""

    gray_percent: int
    last_update_time: dt.datetime


@dataclass(frozen=True)
class ReplicaSplit:
    """The ReplicaProfile's counts; the workload runs online + cutoff + standby pods."""

    online: int
    cutoff: int = 0
    standby: int = 0


@dataclass(frozen=True)
class GrayInput:
    min_replicas: int
    max_replicas: int
    previous_replicas: int | None  # status.previousPortraitValue, None before the first change
    current_replicas: int
    scale_up: GrayStrategy | None = None
    scale_down: GrayStrategy | None = None
    preview: bool = False


@dataclass(frozen=True)
class GrayDecision:
    split: ReplicaSplit
    clamped: Clamped  # the current value clamped, with the ScalingLimited condition
    gray: GrayStatus | None  # status.gray to write (unchanged when no step was taken)
    next_step_at: dt.datetime | None  # when the change next moves; None: nothing pending
    progressing: bool  # GrayProgressing: online differs from the current (clamped) value


def current_strategy(spec: GrayInput) -> GrayStrategy | None:
    """The strategy of the change's direction, None when there is no gray change."""
    if spec.preview or spec.previous_replicas is None:
        return None
    previous = clamp_replicas(spec.previous_replicas, spec.min_replicas, spec.max_replicas)
    current = clamp_replicas(spec.current_replicas, spec.min_replicas, spec.max_replicas)
    if current.replicas > previous.replicas:
        return spec.scale_up
    if current.replicas < previous.replicas:
        return spec.scale_down
    return None


def start_gray(spec: GrayInput, now: dt.datetime) -> GrayStatus | None:
    """status.gray when the followed value has just changed: 0% from `now`, if gray."""
    return GrayStatus(0, now) if current_strategy(spec) is not None else None


def wait_seconds(strategy: GrayStrategy, gray_percent: int) -> int:
    """The pause before the next move: none before the first step, the observation time
    after 100%, the change interval in between."""
    if gray_percent == 0:
        return 0
    if gray_percent >= 100:
        return strategy.observation_seconds
    return strategy.change_interval_seconds


def gray_pods(previous: int, current: int, percent: int) -> int:
    return max(1, abs(current - previous) * percent // 100)


def split_at(previous: int, current: int, strategy: GrayStrategy, percent: int) -> ReplicaSplit:
    """The counts with `percent` of the change from `previous` to `current` applied."""
    pods = gray_pods(previous, current, percent)
    if current > previous:
        return ReplicaSplit(online=previous + pods)
    online = previous - pods
    if strategy.gray_state == "Cutoff":
        return ReplicaSplit(online=online, cutoff=pods)
    if strategy.gray_state == "Standby":
        return ReplicaSplit(online=online, standby=pods)
    return ReplicaSplit(online=online)


def decide_gray(spec: GrayInput, gray: GrayStatus | None, now: dt.datetime) -> GrayDecision:
    """The counts for this reconcile; a due step advances the percent and restamps it."""
    clamped = clamp_replicas(spec.current_replicas, spec.min_replicas, spec.max_replicas)
    target = clamped.replicas
    strategy = current_strategy(spec)
    if strategy is None or gray is None or spec.previous_replicas is None:
        return GrayDecision(ReplicaSplit(target), clamped, gray, None, False)
    previous = clamp_replicas(spec.previous_replicas, spec.min_replicas, spec.max_replicas)
    due = gray.last_update_time + dt.timedelta(seconds=wait_seconds(strategy, gray.gray_percent))
    if gray.gray_percent >= 100 and now >= due:
        return GrayDecision(ReplicaSplit(target), clamped, gray, None, False)
    if now < due:
        split = split_at(previous.replicas, target, strategy, gray.gray_percent)
        return GrayDecision(split, clamped, gray, due, split.online != target)
    percent = min(100, gray.gray_percent + strategy.change_percent)
    advanced = GrayStatus(percent, now)
    split = split_at(previous.replicas, target, strategy, percent)
    next_at = now + dt.timedelta(seconds=wait_seconds(strategy, percent))
    return GrayDecision(split, clamped, advanced, next_at, split.online != target)
