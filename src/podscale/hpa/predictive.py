"""The predictive inputs of one HPA decision, and which part of it won.

``decide`` (``podscale.hpa.decide``) takes an optional ``Predictive``: a predictive
autoscaler's controller (``podscale.controllers.phpa``) computes the proactive replica
count from a forecast and the bounds of the active schedule window, and hands them here,
so the HPA's own rules (clamps, stabilization, rate policies) apply to the combined
proposal exactly as they apply to an HPA's. ``decided_by`` names the part that set the
desired count, for the Decision, the trace and the autoscaler's status.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "DECIDED_BY_BEHAVIOR",
    "DECIDED_BY_BOUNDS",
    "DECIDED_BY_PASSIVE",
    "DECIDED_BY_PROACTIVE",
    "Predictive",
    "decided_by",
]

DECIDED_BY_PASSIVE: Final = "passive"
DECIDED_BY_PROACTIVE: Final = "proactive"
DECIDED_BY_BOUNDS: Final = "bounds"
DECIDED_BY_BEHAVIOR: Final = "behavior"
# The clamp reasons of ``normalize.clamp_to_rate_limit`` / ``limit_legacy`` that a bound set.
_BOUND_REASONS: Final = frozenset({"TooManyReplicas", "TooFewReplicas"})


@dataclass(frozen=True, slots=True)
class Predictive:
    """What a forecast adds to one sync.

    ``proactive_replicas``: the replicas the forecast demand over the lead time needs (None:
    no usable forecast, the passive part decides alone). ``min_replicas``/``max_replicas``:
    the active window's bounds, replacing the spec's (None: the spec's stands); ``window``
    names that window for the trace.
    """

    proactive_replicas: int | None = None
    min_replicas: int | None = None
    max_replicas: int | None = None
    window: str | None = None


def decided_by(
    *, passive: int, proactive: int | None, proposed: int, final: int, limit_reason: str
) -> str:
    """Which part set ``final``: a min/max clamp (``bounds``), stabilization or a rate
    policy (``behavior``), else the larger of the proactive and passive proposals (the
    passive one on a tie: the forecast added nothing)."""
    if limit_reason in _BOUND_REASONS:
        return DECIDED_BY_BOUNDS
    if final != proposed:
        return DECIDED_BY_BEHAVIOR
    if proactive is not None and proactive > passive:
        return DECIDED_BY_PROACTIVE
    return DECIDED_BY_PASSIVE
