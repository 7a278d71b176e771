"""Portrait values, their merge by priority, and the clamp to [minReplicas, maxReplicas].

An IntelligentHorizontalPodAutoscaler lists portrait providers (Static, Cron, Dynamic),
each with a priority; every reconcile each provider offers at most one `PortraitValue`.
`merge_portraits` picks the one the autoscaler follows, as Kapacity's IHPA reconciler
does: a value counts only while unexpired (no expiry, or `now` strictly before it); among
those the higher priority wins, and on equal priority the one asking for more replicas
(the earlier listed keeps a tie on replicas too). `clamp_replicas` then bounds the chosen
count and says which `ScalingLimited` condition to report, with Kapacity's reasons and
messages. `static_portrait` is the Static provider; `podscale.controllers.kapacity.
cron_portrait` builds the Cron one; `podscale.controllers.kapacity.gray` consumes the
clamped counts. Pure: `now` is a parameter.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

# The provider identifiers Kapacity writes into status.currentPortraitValue.provider.
STATIC_PROVIDER = "Static"
CRON_PROVIDER = "Cron"

SCALING_LIMITED = "ScalingLimited"
DESIRED_WITHIN_RANGE = "DesiredWithinRange"
TOO_FEW_REPLICAS = "TooFewReplicas"
TOO_MANY_REPLICAS = "TooManyReplicas"

_MESSAGES = {
    DESIRED_WITHIN_RANGE: (
        "the desired replica count of current portrait value is within the acceptable range"
    ),
    TOO_FEW_REPLICAS: (
        "the desired replica count of current portrait value is less than the minimum replica count"
    ),
    TOO_MANY_REPLICAS: (
        "the desired replica count of current portrait value is more than the maximum replica count"
    ),
}


@dataclass(frozen=True)
class PortraitValue:
    """One provider's desired online replicas; `expire_time` None means it never expires."""

    provider: str
    replicas: int
    expire_time: dt.datetime | None = None

    def unexpired(self, now: dt.datetime) -> bool:
        return self.expire_time is None or now < self.expire_time


@dataclass(frozen=True)
class PortraitOffer:
    """What one listed provider offered this reconcile (None: nothing valid now)."""

    priority: int
    value: PortraitValue | None


@dataclass(frozen=True)
class Condition:
    """A status condition as the controller will write it (type, status, reason, message)."""

    type: str
    status: Literal["True", "False"]
    reason: str
    message: str


@dataclass(frozen=True)
class Clamped:
    replicas: int
    limited: Condition


def static_portrait(replicas: int) -> PortraitValue:
    """The Static provider: always the configured count, never expiring."""
    return PortraitValue(provider=STATIC_PROVIDER, replicas=replicas)


def merge_portraits(offers: Iterable[PortraitOffer], now: dt.datetime) -> PortraitValue | None:
    """The value the autoscaler follows now, or None when no provider offers a live one."""
    chosen: PortraitValue | None = None
    chosen_priority = 0
    for offer in offers:
        value = offer.value
        if value is None or not value.unexpired(now):
            continue
        if (
            chosen is None
            or offer.priority > chosen_priority
            or (offer.priority == chosen_priority and value.replicas > chosen.replicas)
        ):
            chosen, chosen_priority = value, offer.priority
    return chosen


def clamp_replicas(replicas: int, min_replicas: int, max_replicas: int) -> Clamped:
    """Bound `replicas` to [min, max]; the maximum is checked last, so it wins if min > max
    (validation rejects that spec, but the order is Kapacity's)."""
    reason = DESIRED_WITHIN_RANGE
    if replicas < min_replicas:
        replicas, reason = min_replicas, TOO_FEW_REPLICAS
    if replicas > max_replicas:
        replicas, reason = max_replicas, TOO_MANY_REPLICAS
    status: Literal["True", "False"] = "False" if reason == DESIRED_WITHIN_RANGE else "True"
    return Clamped(replicas, Condition(SCALING_LIMITED, status, reason, _MESSAGES[reason]))
