"""Normalization of a metric-driven replica count: stabilization, rate limits, min/max.

Upstream's HorizontalController (``pkg/controller/podautoscaler/horizontal.go``) turns the
replica count proposed by the metrics into the count it will apply in two steps, along one
of two paths:

* legacy (the HPA has no ``spec.behavior``): ``stabilize_recommendation`` keeps the highest
  recommendation of the controller-wide downscale stabilization window, then
  ``limit_legacy`` applies min/max and the fixed scale-up limit ``max(2 * current, 4)``;
* behavior: ``stabilize_with_behavior`` keeps the count inside the envelope of the scale-up
  and scale-down windows, then ``limit_by_policies`` applies min/max and the rate limits of
  ``podscale.hpa.policies``.

Each step returns its count with the upstream condition reason; ``LIMIT_MESSAGES`` and
``STABILIZATION_MESSAGES`` give the matching messages. ``decide`` sets the AbleToScale and
ScalingLimited conditions from them; a new HPA's memory starts from
``podscale.hpa.policies.seed_history``.
The stabilizers record the unstabilized recommendation in the ``History`` they are given
(in place, as upstream updates its map), reusing a slot that fell out of every window.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any, Final

from podscale.hpa.policies import scale_down_limit, scale_up_limit
from podscale.hpa.types import Config, History, Recommendation

__all__ = [
    "LIMIT_MESSAGES",
    "STABILIZATION_MESSAGES",
    "clamp_to_rate_limit",
    "legacy_scale_up_limit",
    "limit_by_policies",
    "limit_legacy",
    "stabilize_recommendation",
    "stabilize_with_behavior",
]

# ScalingLimited condition: reason -> message, word for word as upstream.
LIMIT_MESSAGES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "ScaleUpLimit": (
            "the desired replica count is increasing faster than the maximum scale rate"
        ),
        "TooManyReplicas": "the desired replica count is more than the maximum replica count",
        "ScaleDownLimit": (
            "the desired replica count is decreasing faster than the maximum scale rate"
        ),
        "TooFewReplicas": "the desired replica count is less than the minimum replica count",
        "DesiredWithinRange": "the desired count is within the acceptable range",
    }
)

# AbleToScale condition while normalizing: reason -> message, word for word as upstream.
STABILIZATION_MESSAGES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "ScaleUpStabilized": (
            "recent recommendations were lower than current one, "
            "applying the lowest recent recommendation"
        ),
        "ScaleDownStabilized": (
            "recent recommendations were higher than current one, "
            "applying the highest recent recommendation"
        ),
        "ReadyForNewScale": "recommended size matches current size",
    }
)


def stabilize_recommendation(
    history: History, desired_replicas: int, *, now: datetime, config: Config
) -> int:
    """Return the highest recommendation of the downscale window, ``desired_replicas`` included.

    Legacy path. A recommendation counts unless it is strictly older than
    ``config.downscale_stabilization``; ``desired_replicas`` is then recorded in the last
    expired slot, or appended when none expired.
    """
    cutoff = now - config.downscale_stabilization
    highest = desired_replicas
    expired_slot: int | None = None
    for index, (replicas, stamp) in enumerate(history.recommendations):
        if stamp < cutoff:
            expired_slot = index
        elif replicas > highest:
            highest = replicas
    _record(history, Recommendation(desired_replicas, now), slot=expired_slot)
    return highest


def limit_legacy(
    desired_replicas: int,
    *,
    current_replicas: int,
    min_replicas: int,
    max_replicas: int,
    config: Config,
) -> tuple[int, str]:
    """Bound ``desired_replicas`` by min/max and the fixed scale-up limit (legacy path).

    The scale-up limit is ``max(factor * current, minimum)`` from ``config`` (2 and 4 by
    default), truncated to an integer. Below ``min_replicas`` wins over everything; above
    the upper bound the reason names whichever of max replicas and the limit is lower
    (``TooManyReplicas`` on a tie).
    """
    limit = legacy_scale_up_limit(current_replicas, config=config)
    if max_replicas > limit:
        upper, upper_reason = limit, "ScaleUpLimit"
    else:
        upper, upper_reason = max_replicas, "TooManyReplicas"
    if desired_replicas < min_replicas:
        return min_replicas, "TooFewReplicas"
    if desired_replicas > upper:
        return upper, upper_reason
    return desired_replicas, "DesiredWithinRange"


def legacy_scale_up_limit(current_replicas: int, *, config: Config) -> int:
    """Upstream's calculateScaleUpLimit: ``max(factor * current, minimum)``, truncated.

    Guards against a bogus usage report causing a runaway scale-up when no behavior is set.
    """
    return int(
        max(config.scale_up_limit_factor * float(current_replicas), config.scale_up_limit_minimum)
    )


def stabilize_with_behavior(
    history: History,
    desired_replicas: int,
    *,
    current_replicas: int,
    behavior: Mapping[str, Any],
    now: datetime,
    config: Config,
) -> tuple[int, str]:
    """Keep the count inside the envelope of both stabilization windows (behavior path).

    The floor is the lowest recommendation inside the scale-up window, the ceiling the
    highest inside the scale-down window (``desired_replicas`` belongs to both); the result
    is ``current_replicas`` moved just enough to lie between them. A recommendation is
    inside a window when strictly newer than its cutoff, and its slot is reusable once
    strictly older than both cutoffs. ``desired_replicas`` is recorded either way.

    A missing scale-down window means the controller-wide ``config.downscale_stabilization``
    (maybeInitScaleDownStabilizationWindow); ``behavior`` itself is not modified. The
    reason is ``ScaleUpStabilized`` when ``desired_replicas >= current_replicas``, else
    ``ScaleDownStabilized``, whether or not stabilization changed anything.
    """
    up_cutoff = now - _window(behavior.get("scaleUp"), default=timedelta(0))
    down_cutoff = now - _window(behavior.get("scaleDown"), default=_whole_seconds(config))
    floor = desired_replicas
    ceiling = desired_replicas
    expired_slot: int | None = None
    # Hot loop (a controller keeps about one recommendation per sync in each window):
    # plain comparisons rather than min()/max() calls.
    for index, (replicas, stamp) in enumerate(history.recommendations):
        if stamp > up_cutoff and replicas < floor:
            floor = replicas
        if stamp > down_cutoff and replicas > ceiling:
            ceiling = replicas
        if stamp < up_cutoff and stamp < down_cutoff:
            expired_slot = index
    # floor <= desired <= ceiling, so the envelope is never empty.
    stabilized = min(max(current_replicas, floor), ceiling)
    _record(history, Recommendation(desired_replicas, now), slot=expired_slot)
    if desired_replicas >= current_replicas:
        return stabilized, "ScaleUpStabilized"
    return stabilized, "ScaleDownStabilized"


def limit_by_policies(
    desired_replicas: int,
    *,
    current_replicas: int,
    min_replicas: int,
    max_replicas: int,
    behavior: Mapping[str, Any],
    history: History,
    now: datetime,
) -> tuple[int, str]:
    """Bound a stabilized count by min/max and the behavior's rate limits.

    Only the direction of travel is limited, by the policies of that direction
    (``scale_up_limit`` / ``scale_down_limit``); see ``clamp_to_rate_limit`` for the rest.
    """
    rate_limit: int | None = None
    if desired_replicas > current_replicas:
        rules = behavior.get("scaleUp") or {}
        rate_limit = scale_up_limit(current_replicas, rules=rules, history=history, now=now)
    elif desired_replicas < current_replicas:
        rules = behavior.get("scaleDown") or {}
        rate_limit = scale_down_limit(current_replicas, rules=rules, history=history, now=now)
    return clamp_to_rate_limit(
        desired_replicas,
        current_replicas=current_replicas,
        min_replicas=min_replicas,
        max_replicas=max_replicas,
        rate_limit=rate_limit,
    )


def clamp_to_rate_limit(
    desired_replicas: int,
    *,
    current_replicas: int,
    min_replicas: int,
    max_replicas: int,
    rate_limit: int | None,
) -> tuple[int, str]:
    """Clamp ``desired_replicas`` to min/max and the policies' ``rate_limit`` for its direction.

    Going up the bound is the lower of ``max_replicas`` and the rate limit (never below
    ``current_replicas``); going down, the higher of ``min_replicas`` and the rate limit
    (never above ``current_replicas``). The reason names the binding bound, preferring
    ``TooManyReplicas``/``TooFewReplicas`` on a tie; an unchanged count is
    ``DesiredWithinRange`` even outside [min, max], as upstream (the caller handles an
    out-of-range current size before normalizing). ``rate_limit`` is unused then.
    """
    if desired_replicas > current_replicas:
        limit = max(current_replicas if rate_limit is None else rate_limit, current_replicas)
        if max_replicas > limit:
            upper, reason = limit, "ScaleUpLimit"
        else:
            upper, reason = max_replicas, "TooManyReplicas"
        if desired_replicas > upper:
            return upper, reason
    elif desired_replicas < current_replicas:
        limit = min(current_replicas if rate_limit is None else rate_limit, current_replicas)
        if min_replicas < limit:
            lower, reason = limit, "ScaleDownLimit"
        else:
            lower, reason = min_replicas, "TooFewReplicas"
        if desired_replicas < lower:
            return lower, reason
    return desired_replicas, "DesiredWithinRange"


def _window(rules: Mapping[str, Any] | None, *, default: timedelta) -> timedelta:
    seconds = (rules or {}).get("stabilizationWindowSeconds")
    if seconds is None:
        return default
    return timedelta(seconds=int(seconds))


def _whole_seconds(config: Config) -> timedelta:
    # Upstream stores the flag's window into an int32 of seconds, dropping any fraction.
    return timedelta(seconds=int(config.downscale_stabilization.total_seconds()))


def _record(history: History, recommendation: Recommendation, *, slot: int | None) -> None:
    if slot is None:
        history.recommendations.append(recommendation)
    else:
        history.recommendations[slot] = recommendation
