"""One IntelligentHorizontalPodAutoscaler reconcile as a pure decision, in Kapacity's order.

``decide`` takes the parsed IHPA (``types.Ihpa``), what its portrait providers offered
this time (``portrait_sources``), the ReplicaProfile it owns (counts and ``paused``, or
None), the stability checkers' readings with their last anomalies, and ``now``; it returns
the status to write, what to do with the ReplicaProfile, the events and when to look
again. The controller shell (``controller``) does the I/O; the conditions, ReplicaProfile spec and
event texts come from ``ihpa_messages``. Kapacity's steps:
- paused: the ReplicaProfile (if any) is paused; ``ScalingActive`` False ``ScalingPaused``;
- a provider failing (or a spec ``validation.portrait_problem`` refuses): ``ScalingActive``
  False ``FailedUpdateAndFetchPortraitValue`` with a Warning event of that reason; no live
  value: the same with ``NoValidPortraitValue``;
- a followed value (``portraits.merge_portraits``) other than ``status.currentPortraitValue``
  moves current to previous and, when the change has a gray strategy, restarts
  ``status.gray`` at 0% stamped ``now``;
- Auto: the counts are ``gray.decide_gray``'s, held or undone by ``stability.stabilize``;
  ``ScalingLimited`` from the clamp; the ReplicaProfile is created (event
  ``CreateReplicaProfile``) or updated (``UpdateReplicaProfile`` when a count changes; both
  texts keep Kapacity's "onlineReplcas" spelling); ``GrayProgressing`` compares the online
  count with the (clamped) current value. Preview: the ReplicaProfile is deleted;
- finally ``ScalingActive`` True ``SucceededAutoscaling``.
Kapacity clamps ``status.currentPortraitValue`` in place (a Go pointer alias), which makes
the next reconcile see a changed value; podscale keeps the provider's value in the status.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from podscale.controllers.kapacity import gray as gray_steps
from podscale.controllers.kapacity.ihpa_messages import (
    Event,
    checker_events,
    profile_events,
    replica_profile_spec,
    set_condition,
)
from podscale.controllers.kapacity.ihpa_status import GrayStatus, IhpaStatus, PortraitValue
from podscale.controllers.kapacity.portraits import PortraitOffer, merge_portraits
from podscale.controllers.kapacity.portraits import PortraitValue as Offered
from podscale.controllers.kapacity.reading import JSON
from podscale.controllers.kapacity.stability import CheckerReading, stabilize, verdict
from podscale.controllers.kapacity.types import Ihpa, ScaleMode
from podscale.controllers.kapacity.validation import FAILED_PORTRAIT

__all__ = [
    "Decision",
    "Existing",
    "ProviderResult",
    "RpAction",
    "decide",
    "gray_in_force",
    "replica_profile_spec",
    "set_condition",
]

SCALING_ACTIVE: Final = "ScalingActive"
# podscale's period for reading stability checkers during a gray change (the HPA's sync
# period); Kapacity has none, as its controller does not read checkers yet.
CHECK_PERIOD: Final = dt.timedelta(seconds=15)
GRAY_PROGRESSING: Final = "GrayProgressing"
_EPOCH: Final = dt.datetime(1, 1, 1, tzinfo=dt.UTC)

RpAction = Literal["none", "create", "patch", "delete"]


@dataclass(frozen=True, slots=True)
class ProviderResult:
    """One listed provider this reconcile: its offer, or Kapacity's error text for it."""

    offer: PortraitOffer | None = None
    error: str | None = None  # "failed to update portrait spec: ..." / "failed to fetch ..."


@dataclass(frozen=True, slots=True)
class Existing:
    """The ReplicaProfile named as the IHPA, as found."""

    split: gray_steps.ReplicaSplit
    spec: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Decision:
    status: IhpaStatus
    rp_action: RpAction
    rp_spec: JSON | None  # the spec to create, or the full desired spec to merge-patch
    events: tuple[Event, ...] = ()
    requeue_after: dt.timedelta | None = None
    last_anomaly: Mapping[str, dt.datetime] = field(default_factory=dict)
    failed: bool = False  # Kapacity returns an error: the work queue retries with backoff


def _gray_input(ihpa: Ihpa, previous: PortraitValue | None, current: int) -> gray_steps.GrayInput:
    behavior = ihpa.spec.behavior
    return gray_steps.GrayInput(
        min_replicas=ihpa.spec.min_replicas,
        max_replicas=ihpa.spec.max_replicas,
        previous_replicas=None if previous is None else previous.replicas,
        current_replicas=current,
        # A disabled direction takes no step, gray or not (``_disabled`` holds its count).
        scale_up=None if behavior.scale_up_disabled else behavior.scale_up,
        scale_down=None if behavior.scale_down_disabled else behavior.scale_down,
        preview=ihpa.spec.scale_mode == ScaleMode.PREVIEW,
    )


def _disabled(ihpa: Ihpa, online: int, wanted: int) -> bool:
    """Whether moving the online count from ``online`` to ``wanted`` goes in a direction
    ``spec.behavior`` disables (podscale's reading of ``disabled``: the profile is held)."""
    behavior = ihpa.spec.behavior
    return (wanted > online and behavior.scale_up_disabled) or (
        wanted < online and behavior.scale_down_disabled
    )


def _same(status_value: PortraitValue | None, offered: Offered) -> bool:
    if status_value is None:
        return False
    # The status holds whole seconds (metav1.Time), so compare at that precision.
    expire = None if offered.expire_time is None else offered.expire_time.replace(microsecond=0)
    return (status_value.provider, status_value.replicas, status_value.expire_time) == (
        offered.provider,
        offered.replicas,
        expire,
    )


def gray_in_force(ihpa: Ihpa, now: dt.datetime) -> bool:
    """Whether a gray change of ``ihpa``'s status is running (its steps or observation):
    the only time its stability checkers matter, hence are read."""
    status = ihpa.status
    if ihpa.spec.scale_mode != ScaleMode.AUTO or status.gray is None or status.current is None:
        return False
    steps = _gray_input(ihpa, status.previous, status.current.replicas)
    strategy = gray_steps.current_strategy(steps)
    if strategy is None:
        return False
    gray = status.gray
    if gray.gray_percent < 100 or gray.last_update_time is None:
        return True
    return now < gray.last_update_time + dt.timedelta(seconds=strategy.observation_seconds)


def _fail(
    ihpa: Ihpa, status: IhpaStatus, reason: str, message: str, now: dt.datetime, *, failed: bool
) -> Decision:
    conditions = set_condition(
        status.conditions, SCALING_ACTIVE, "False", reason, message, ihpa.generation, now
    )
    return Decision(
        replace(status, conditions=conditions),
        "none",
        None,
        (("Warning", reason, message),),
        failed=failed,
    )


def decide(
    ihpa: Ihpa,
    results: Sequence[ProviderResult],
    existing: Existing | None,
    readings: Sequence[CheckerReading],
    last_anomaly: Mapping[str, dt.datetime],
    now: dt.datetime,
) -> Decision:
    """This reconcile's outcome; see the module docstring for Kapacity's steps."""
    status = ihpa.status
    gen = ihpa.generation
    if ihpa.spec.paused:
        conditions = set_condition(
            status.conditions,
            SCALING_ACTIVE,
            "False",
            "ScalingPaused",
            "scaling is paused",
            gen,
            now,
        )
        paused = existing is not None and not existing.spec.get("paused")
        return Decision(
            replace(status, conditions=conditions),
            "patch" if paused else "none",
            {**existing.spec, "paused": True} if paused and existing is not None else None,
        )
    for result in results:
        if result.error is not None:
            message = f"failed to update and fetch portrait value: {result.error}"
            return _fail(ihpa, status, FAILED_PORTRAIT, message, now, failed=True)
    chosen = merge_portraits((r.offer for r in results if r.offer is not None), now)
    if chosen is None:
        message = "no valid portrait value for now"
        return _fail(ihpa, status, "NoValidPortraitValue", message, now, failed=False)
    previous, gray = status.previous, status.gray
    current = status.current
    if not _same(current, chosen):
        previous = current if current is not None else previous
        expire = None if chosen.expire_time is None else chosen.expire_time.replace(microsecond=0)
        current = PortraitValue(chosen.provider, chosen.replicas, expire)
        started = gray_steps.start_gray(_gray_input(ihpa, previous, current.replicas), now)
        if started is not None:
            gray = GrayStatus(0, now)
    assert current is not None
    conditions = status.conditions
    events: list[Event] = []
    action: RpAction = "none"
    spec: JSON | None = None
    requeue: dt.timedelta | None = None
    seen: Mapping[str, dt.datetime] = dict(last_anomaly)
    if ihpa.spec.scale_mode == ScaleMode.AUTO:
        steps = _gray_input(ihpa, previous, current.replicas)
        held = (
            None
            if gray is None
            else gray_steps.GrayStatus(gray.gray_percent, gray.last_update_time or _EPOCH)
        )
        decision = gray_steps.decide_gray(steps, held, now)
        found = verdict(readings, last_anomaly, now)
        seen = found.last_anomaly
        plain, decision = decision, stabilize(steps, held, decision, found, now)
        if decision is not plain:
            events.extend(checker_events(readings, last_anomaly, found, decision, now))
        if decision.gray is not None and decision.gray != held:
            gray = GrayStatus(decision.gray.gray_percent, decision.gray.last_update_time)
        limited = decision.clamped.limited
        conditions = set_condition(
            conditions, limited.type, limited.status, limited.reason, limited.message, gen, now
        )
        split = decision.split
        if existing is not None and _disabled(ihpa, existing.split.online, split.online):
            split = existing.split
        spec = replica_profile_spec(ihpa, split)
        if existing is None:
            action = "create"
            events.extend(profile_events(None, split))
        else:
            events.extend(profile_events(existing.split, split))
            if any(existing.spec.get(key) != value for key, value in spec.items()):
                action = "patch"
        if decision.clamped.replicas == split.online:
            cond = ("False", "ReplicasMatchPortrait", "online replica count matches")
        else:
            cond = ("True", "ReplicasNotMatchPortrait", "online replica count does not match")
        conditions = set_condition(
            conditions,
            GRAY_PROGRESSING,
            cond[0],
            cond[1],
            f"{cond[2]} replica count of current portrait value",
            gen,
            now,
        )
        if decision.next_step_at is not None:
            requeue = max(decision.next_step_at - now, dt.timedelta(0))
            if ihpa.spec.stability_checkers:
                # Look at the checkers while the change runs, not only at its steps.
                requeue = min(requeue, CHECK_PERIOD)
    elif existing is not None:
        action = "delete"
    conditions = set_condition(
        conditions,
        SCALING_ACTIVE,
        "True",
        "SucceededAutoscaling",
        "the autoscaling process is functional",
        gen,
        now,
    )
    new_status = IhpaStatus(previous, current, gray, conditions)
    return Decision(new_status, action, spec, tuple(events), requeue, seen)
