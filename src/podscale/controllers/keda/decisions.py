"""One step of KEDA's ScaledObject scale loop, as a pure function of what the step read.

The controller shell polls every trigger's scaler (``activity.TriggerOutcome``), reads the
target's ``/scale`` replicas, and calls ``poll``; it writes ``PollDecision.scale_to`` to
``/scale``, ``PollDecision.status`` as the whole new ``.status``, and records the events.
``poll`` is KEDA's ``getScaledObjectState`` followed by its executor's ``RequestScale``:

* activity (``activity.trigger_state``): whether the object is active and errored this
  poll, and the scaler-failure events.
* pause (``pause``): ``paused`` stops the step; ``paused-replicas`` scales to its count and
  records ``pausedReplicaCount``; ``paused-scale-out`` blocks activation, ``paused-scale-in``
  deactivation; ``force-activation`` counts as active.
* active: from 0 (or below min with idleReplicaCount) to ``max(minReplicaCount, 1)``; else
  ``lastActiveTime`` = now. Inactive: after ``cooldownPeriod`` since ``lastActiveTime``
  (``initialCooldownPeriod`` since creation when there is none) to idleReplicaCount or 0;
  below minReplicaCount back up to it. Between 1 and max the generated HPA scales, not this.
* errors: ``Ready`` Unknown ``PartialTriggerError`` when another trigger is active, False
  ``TriggerError`` when none is and there is no fallback; a fallback with replicas keeps the
  target where it is so the HPA can apply the fallback metric (``fallback``).
* status: ``Active`` (``ScalerActive``/``ScalerNotActive``/``ScalerCooldown``), ``health`` and
  ``Fallback``, ``triggersActivity`` keyed by ``externalMetricNames``, ``Paused``.

``lastActiveTime`` is written as if the scale write succeeds; on a failed write the shell
records ``events.activation_failed``/``deactivation_failed`` and keeps the old status.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from podscale.controllers.keda import events as ev
from podscale.controllers.keda.activity import TriggerOutcome, TriggerState, trigger_state
from podscale.controllers.keda.events import Event
from podscale.controllers.keda.fallback import fallback_condition, fallback_enabled
from podscale.controllers.keda.pause import (
    Pause,
    condition,
    needs_pause,
    read_pause,
    reconcile_paused,
    set_condition,
)
from podscale.controllers.keda.status import READY_MESSAGE, READY_REASON
from podscale.controllers.keda.types import ScaledObject

__all__ = ["Event", "PollDecision", "PollInputs", "format_time", "poll"]

_ACTIVE = ("True", "ScalerActive", "Scaling is performed because triggers are active")
_FORCED = (
    "True",
    "ScalerActive",
    "Scaling is performed because activation is being forced by annotation",
)
_NOT_ACTIVE = (
    "False",
    "ScalerNotActive",
    "Scaling is not performed because triggers are not active",
)
_COOLDOWN = ("False", "ScalerCooldown", "Scaler cooling down because triggers are not active")
_PARTIAL_ERROR = (
    "Unknown",
    "PartialTriggerError",
    "Some triggers defined in ScaledObject are not working correctly",
)
_TRIGGER_ERROR = (
    "False",
    "TriggerError",
    "Triggers defined in ScaledObject are not working correctly",
)


@dataclass(frozen=True)
class PollInputs:
    so: ScaledObject
    current_replicas: int  # the target's /scale spec.replicas
    outcomes: tuple[TriggerOutcome, ...]
    status: Mapping[str, Any]  # the ScaledObject's current .status JSON ({} if none)
    created_at: datetime  # metadata.creationTimestamp (initialCooldownPeriod)
    now: datetime


@dataclass(frozen=True)
class PollDecision:
    scale_to: int | None  # write the target's /scale spec.replicas, or None
    status: Mapping[str, Any]  # the WHOLE new .status (keeps fields it does not own)
    events: tuple[Event, ...]


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def format_time(moment: datetime) -> str:
    """RFC 3339 in whole seconds, UTC, as a ``metav1.Time`` serializes."""
    return _utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return _utc(datetime.fromisoformat(value))
    except ValueError:
        return None


def _fallback(so: ScaledObject, status: dict[str, Any]) -> None:
    """The ``Fallback`` condition from the health the metrics server's reads keep. KEDA's
    loop reads every trigger too (``getScaledObjectState``) but counts no failure: only
    ``GetMetricsWithFallback`` on the metrics server's path does."""
    health: Mapping[str, Any] = status.get("health") or {}
    covered = any(not t.is_resource and fallback_enabled(so, t.target_type) for t in so.triggers)
    if not covered or not health:
        return
    fb_status, fb_reason, fb_message = fallback_condition(so, health)
    status.update(set_condition(status, "Fallback", fb_status, fb_reason, fb_message))


def _triggers_activity(status: dict[str, Any], active: Sequence[str]) -> None:
    names = [n for n in status.get("externalMetricNames") or () if isinstance(n, str)]
    current = status.get("triggersActivity")
    wanted = {name: {"isActive": name in active} for name in names}
    if current is None and not names:
        return
    if current != wanted:
        status["triggersActivity"] = wanted


def _cooled_down(inputs: PollInputs, status: Mapping[str, Any]) -> bool:
    so, now = inputs.so, _utc(inputs.now)
    last = _parse_time(status.get("lastActiveTime"))
    if last is None:
        created = _utc(inputs.created_at).replace(microsecond=0)
        return created + timedelta(seconds=so.initial_cooldown_period) < now
    return last + timedelta(seconds=so.cooldown_period) < now


def _set(status: dict[str, Any], kind: str, state: tuple[str, str, str]) -> None:
    status.update(set_condition(status, kind, *state))


def poll(inputs: PollInputs) -> PollDecision:
    """KEDA's scale-loop step for one ScaledObject."""
    so, current = inputs.so, inputs.current_replicas
    pause = read_pause(so.annotations)
    status = dict(inputs.status)
    pending = pause.paused_replicas is not None and pause.paused_replicas != current
    if needs_pause(pause, status) and not pending:
        return PollDecision(None, reconcile_paused(status, pause), ())  # the loop is stopped
    state = trigger_state(so, inputs.outcomes)
    events = list(state.events)
    _fallback(so, status)
    was_ready = condition(status, "Ready").get("status")
    if not state.error and was_ready != "True":
        _set(status, "Ready", ("True", READY_REASON, READY_MESSAGE))
    if pause.paused_replicas_error is not None or pause.paused_replicas is not None:
        scale_to = _paused(status, pause, current)
        return PollDecision(scale_to, reconcile_paused(status, pause), tuple(events))
    scale_to = _request_scale(inputs, pause, state, status, events, was_ready)
    forced = pause.force_activation
    active = condition(status, "Active").get("status")
    if active not in ("True", "False") or (active == "True") != (state.active or forced):
        _set(status, "Active", _ACTIVE if state.active else _FORCED if forced else _NOT_ACTIVE)
    _triggers_activity(status, state.active_triggers)
    return PollDecision(scale_to, reconcile_paused(status, pause), tuple(events))


def _paused(status: dict[str, Any], pause: Pause, current: int) -> int | None:
    """``paused-replicas``: scale to the count and record it; nothing else runs."""
    if pause.paused_replicas is None:
        # KEDA marks a bad count with Ready False, yet with its success reason and message.
        _set(status, "Ready", ("False", READY_REASON, READY_MESSAGE))
        return None
    count = pause.paused_replicas
    if count < 0:
        # The API server refuses a negative /scale; KEDA then sets Ready Unknown the same way.
        _set(status, "Ready", ("Unknown", READY_REASON, READY_MESSAGE))
        return None
    if count != current or status.get("pausedReplicaCount") is None:
        status["pausedReplicaCount"] = count
    return count if count != current else None


def _request_scale(
    inputs: PollInputs,
    pause: Pause,
    state: TriggerState,
    status: dict[str, Any],
    events: list[Event],
    was_ready: Any,
) -> int | None:
    so, current = inputs.so, inputs.current_replicas
    low, idle = so.min_replica_count, so.idle_replica_count
    kind = str(status.get("scaleTargetKind") or "")
    target = (kind, so.namespace, so.scale_target.name)
    if state.active or pause.force_activation:
        if (idle is not None and current < low) or current == 0:
            if pause.scale_out:
                return None
            wanted = low if low > 0 else 1
            events.append(
                ev.activated(
                    *target, current, wanted, state.active_triggers, forced=pause.force_activation
                )
            )
            status["lastActiveTime"] = format_time(inputs.now)
            return wanted
        if state.error:
            if was_ready != "Unknown":
                _set(status, "Ready", _PARTIAL_ERROR)
            return None
        status["lastActiveTime"] = format_time(inputs.now)
        return None
    fallback = so.fallback
    if state.error and fallback is not None and fallback.replicas != 0:
        return None  # stay up: scaled to 0 the HPA could never apply the fallback replicas
    if state.error and fallback is None:
        if was_ready != "False":
            _set(status, "Ready", _TRIGGER_ERROR)
        return None
    if (idle is not None and current > idle) or (current > 0 and low == 0):
        if pause.scale_in:
            return None
        if not _cooled_down(inputs, status):
            cond = condition(status, "Active")
            if cond.get("status") != "False" or cond.get("reason") != _COOLDOWN[1]:
                _set(status, "Active", _COOLDOWN)
            return None
        wanted = idle if idle is not None else low
        events.append(ev.deactivated(*target, current, wanted))
        _set(status, "Active", _NOT_ACTIVE)
        return wanted
    if current < low and idle is None:
        return low
    return None
