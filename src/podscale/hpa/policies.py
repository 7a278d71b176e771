"""Scaling policies of ``spec.behavior``: past scale events and the rate limits they imply.

This is the rate-limiting half of upstream's HorizontalController normalization
(``pkg/controller/podautoscaler/horizontal.go``) and the keeper of its memory:
``seed_history`` starts a ``History`` (``podscale.hpa.types``) for a newly seen HPA,
``record_scale_event`` remembers each rescale in it, and ``scale_up_limit`` /
``scale_down_limit`` turn one direction's ``HPAScalingRules`` plus that memory into the
furthest replica count allowed right now. ``podscale.hpa.normalize`` combines these limits
with min/max replicas and stabilization; ``decide`` calls ``record_scale_event`` after a
rescale was actually applied.

Rules are autoscaling/v2 ``HPAScalingRules`` dicts (``selectPolicy``, ``policies`` of
``{"type": "Pods"|"Percent", "value": n, "periodSeconds": s}``), already defaulted.

Time is strict as upstream's ``time.Before``/``After``: an event exactly ``periodSeconds``
old is no longer inside its period, and is outdated only once it is strictly older than
the longest period. Percent arithmetic runs in IEEE doubles exactly like upstream's
``float64`` code, so its rounding quirks (``ceil(100 * 1.1) == 111``) are reproduced.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.hpa.types import History, Recommendation, ScaleEvent

__all__ = [
    "longest_policy_period",
    "policy_proposals",
    "record_scale_event",
    "replicas_change_in_period",
    "scale_down_limit",
    "scale_up_limit",
    "seed_history",
    "select_limit",
]

# Upstream folds policies into an int32 accumulator seeded with these bounds; with no
# policies the seed itself is the limit, which the caller then clamps to current replicas.
_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1

_SELECT_MIN: Final = "Min"
_SELECT_DISABLED: Final = "Disabled"
_POLICY_PODS: Final = "Pods"
_POLICY_PERCENT: Final = "Percent"


def seed_history(current_replicas: int, *, now: datetime) -> History:
    """Start the memory of a newly seen HPA (recordInitialRecommendation).

    The current size counts as a recommendation, so a controller that just started does
    not scale down before a stabilization window of its own recommendations has passed.
    """
    return History(recommendations=[Recommendation(replicas=current_replicas, timestamp=now)])


def replicas_change_in_period(
    events: Sequence[ScaleEvent], *, period: timedelta, now: datetime
) -> int:
    """Sum the replica changes of events strictly newer than ``now - period``.

    Outdated flags are ignored, as upstream does: an outdated event is older than every
    period of its direction anyway.
    """
    cutoff = now - period
    return sum(event.replica_change for event in events if event.timestamp > cutoff)


def scale_up_limit(
    current_replicas: int, *, rules: Mapping[str, Any], history: History, now: datetime
) -> int:
    """Return the highest replica count the scale-up ``rules`` allow at ``now``.

    ``selectPolicy: Max`` (the default) picks the policy allowing the most replicas,
    ``Min`` the fewest, ``Disabled`` pins the limit to ``current_replicas``. The result may
    be below ``current_replicas``; the caller clamps it, as upstream does.
    """
    return _fold_policies(current_replicas, rules, history, now, direction=+1)


def scale_down_limit(
    current_replicas: int, *, rules: Mapping[str, Any], history: History, now: datetime
) -> int:
    """Return the lowest replica count the scale-down ``rules`` allow at ``now``.

    ``selectPolicy: Max`` (the default) picks the policy removing the most replicas (the
    lowest count), ``Min`` the fewest (the highest count), ``Disabled`` returns
    ``current_replicas``. The result may exceed ``current_replicas``; the caller clamps it.
    """
    return _fold_policies(current_replicas, rules, history, now, direction=-1)


def longest_policy_period(rules: Mapping[str, Any] | None) -> timedelta:
    """Return the longest ``periodSeconds`` among the rules' policies (zero when none)."""
    longest = 0
    for policy in _policies_of(rules):
        longest = max(longest, int(policy.get("periodSeconds") or 0))
    return timedelta(seconds=longest)


def record_scale_event(
    history: History | None,
    *,
    behavior: Mapping[str, Any] | None,
    previous_replicas: int,
    new_replicas: int,
    now: datetime,
) -> History | None:
    """Remember a rescale from ``previous_replicas`` to ``new_replicas`` (storeScaleEvent).

    Without ``behavior`` nothing is recorded, since only policies read events; the history
    comes back as given (``None`` stays ``None``). Otherwise the event goes to its
    direction's list, after marking events older than that direction's longest policy
    period as outdated; the last outdated slot is overwritten, else the event is appended.
    Like upstream, anything that is not a scale up (including no change) is stored as a
    scale-down event; ``decide`` only records real rescales.
    """
    if behavior is None:
        return history
    if history is None:
        history = History()
    if new_replicas > previous_replicas:
        events = history.scale_up_events
        rules = behavior.get("scaleUp")
        change = new_replicas - previous_replicas
    else:
        events = history.scale_down_events
        rules = behavior.get("scaleDown")
        change = previous_replicas - new_replicas
    _mark_outdated(events, cutoff=now - longest_policy_period(rules))
    event = ScaleEvent(replica_change=change, timestamp=now)
    reusable = [index for index, old in enumerate(events) if old.outdated]
    if reusable:
        events[reusable[-1]] = event
    else:
        events.append(event)
    return history


def _mark_outdated(events: list[ScaleEvent], *, cutoff: datetime) -> None:
    # Events are frozen values; flagging one means swapping in a flagged copy.
    for index, event in enumerate(events):
        if event.timestamp < cutoff and not event.outdated:
            events[index] = ScaleEvent(event.replica_change, event.timestamp, outdated=True)


def policy_proposals(
    current_replicas: int,
    *,
    rules: Mapping[str, Any],
    history: History,
    now: datetime,
    direction: int,
) -> list[tuple[Mapping[str, Any], int]]:
    """Each policy with the bound it alone allows now, before ``selectPolicy`` picks one.

    ``direction`` is +1 for scale up, -1 for scale down. The decision trace shows these;
    ``select_limit`` folds them into the limit.
    """
    proposals: list[tuple[Mapping[str, Any], int]] = []
    proposed = 0
    for policy in _policies_of(rules):
        period = timedelta(seconds=int(policy.get("periodSeconds") or 0))
        added = replicas_change_in_period(history.scale_up_events, period=period, now=now)
        deleted = replicas_change_in_period(history.scale_down_events, period=period, now=now)
        period_start_replicas = current_replicas - added + deleted
        proposed = _propose(period_start_replicas, policy, direction=direction, otherwise=proposed)
        proposals.append((policy, proposed))
    return proposals


def select_limit(
    current_replicas: int,
    *,
    rules: Mapping[str, Any],
    proposals: Sequence[tuple[Mapping[str, Any], int]],
    direction: int,
) -> int:
    """Fold policy proposals with the selectPolicy's min or max.

    "Min" means the smallest change, which is the lowest count going up but the highest
    count going down; "Disabled" pins the limit to ``current_replicas``.
    """
    select_policy = rules.get("selectPolicy")
    if select_policy == _SELECT_DISABLED:
        return current_replicas
    smallest_change = select_policy == _SELECT_MIN
    choose_lower = smallest_change == (direction > 0)
    pick: Callable[[int, int], int] = min if choose_lower else max
    result = _INT32_MAX if choose_lower else _INT32_MIN
    for _, proposed in proposals:
        result = pick(result, proposed)
    return result


def _fold_policies(
    current_replicas: int,
    rules: Mapping[str, Any],
    history: History,
    now: datetime,
    *,
    direction: int,
) -> int:
    if rules.get("selectPolicy") == _SELECT_DISABLED:
        return current_replicas
    proposals = policy_proposals(
        current_replicas, rules=rules, history=history, now=now, direction=direction
    )
    return select_limit(current_replicas, rules=rules, proposals=proposals, direction=direction)


def _propose(
    period_start_replicas: int, policy: Mapping[str, Any], *, direction: int, otherwise: int
) -> int:
    """One policy's bound, measured from the replica count at the start of its period.

    An unknown policy type proposes ``otherwise`` (the previous policy's proposal): upstream
    leaves its accumulator untouched then. Validation rejects such types anyway.
    """
    value = int(policy.get("value") or 0)
    policy_type = policy.get("type")
    if policy_type == _POLICY_PODS:
        return period_start_replicas + direction * value
    if policy_type != _POLICY_PERCENT:
        return otherwise
    if direction > 0:
        # Rounded up so that a small percentage of a small count still adds a pod.
        return math.ceil(float(period_start_replicas) * (1 + float(value) / 100))
    # Truncated toward zero, as upstream's int32 conversion does.
    return int(float(period_start_replicas) * (1 - float(value) / 100))


def _policies_of(rules: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    if not rules:
        return []
    policies = rules.get("policies") or []
    return [policy for policy in policies if isinstance(policy, Mapping)]
