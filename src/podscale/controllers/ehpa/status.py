"""The EffectiveHorizontalPodAutoscaler's status: what a sync writes, as pure functions.

Crane's EHPA status holds ``expectReplicas``, ``currentReplicas`` and ``lastScaleTime``
(the generated HPA's desired and current replicas and its latest scale, or the manual
scale of ``specificReplicas``) and the conditions: ``Ready``, ``PredictionReady`` and the
HPA's own three (``AbleToScale``, ``ScalingActive``, ``ScalingLimited``) copied.

- ``Failed`` is a sync step that failed: the ``Ready`` False reason and message, and the
  event to record (``controller`` raises it from its steps and catches it once).
- ``ready`` / ``not_ready`` set ``Ready``; ``prediction_ready`` sets ``PredictionReady``
  as Crane copies it from its TimeSeriesPrediction's ``Ready``: True ``PredictSucceed``
  (empty message) when every forecastable metric has a prediction served, else False
  ``PredictPartial``, "not all metric predicted" with why (``no predict data`` when no
  metric is forecastable); the metrics that have one are served all the same.
- ``from_hpa`` copies the generated HPA's status in.
Conditions are set with ``decisions.set_condition`` (transition times move only when a
status changes). ``controller`` writes the result through the status subresource.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from podscale.controllers.ehpa.decisions import mirrored_conditions, set_condition

__all__ = [
    "PREDICTION_PARTIAL",
    "PREDICTION_SUCCEED",
    "READY_REASON",
    "Failed",
    "from_hpa",
    "not_ready",
    "prediction_ready",
    "ready",
]

JSON = dict[str, Any]
# Crane's condition reasons and messages (pkg/controller/ehpa, pkg/known,
# pkg/controller/timeseriesprediction).
READY_REASON: Final = "EffectiveHorizontalPodAutoscalerReady"
READY_MESSAGE: Final = "Effective HPA is ready"
PREDICTION_SUCCEED: Final = "PredictSucceed"
PREDICTION_PARTIAL: Final = "PredictPartial"
PARTIAL_MESSAGE: Final = "not all metric predicted"
NO_DATA_MESSAGE: Final = "no predict data"


class Failed(Exception):
    """A step failed: the ``Ready`` reason and message, and maybe an event
    (``(type, reason)``, recorded with the message)."""

    def __init__(self, reason: str, message: str, event: tuple[str, str] | None = None) -> None:
        super().__init__(message)
        self.reason, self.message, self.event = reason, message, event


def ready(conditions: Sequence[JSON], now: datetime) -> list[JSON]:
    """``Ready`` True: every step of the sync went through."""
    return set_condition(conditions, "Ready", "True", READY_REASON, READY_MESSAGE, now)


def not_ready(conditions: Sequence[JSON], failure: Failed, now: datetime) -> list[JSON]:
    """``Ready`` False with the failed step's reason and message."""
    return set_condition(conditions, "Ready", "False", failure.reason, failure.message, now)


def prediction_ready(
    conditions: Sequence[JSON], predicted: Mapping[str, str], reasons: Sequence[str], now: datetime
) -> list[JSON]:
    """``PredictionReady`` (see the module docstring). ``predicted``: the metrics with a
    prediction; ``reasons``: one per forecastable metric without one."""
    if predicted and not reasons:
        return set_condition(conditions, "PredictionReady", "True", PREDICTION_SUCCEED, "", now)
    if not predicted and not reasons:
        message = NO_DATA_MESSAGE
    else:
        message = f"{PARTIAL_MESSAGE}: " + "; ".join(reasons)
    return set_condition(conditions, "PredictionReady", "False", PREDICTION_PARTIAL, message, now)


def from_hpa(
    status: Mapping[str, Any], conditions: Sequence[JSON], hpa: Mapping[str, Any], now: datetime
) -> tuple[JSON, list[JSON]]:
    """The status with the generated HPA's replicas, its latest scale time (never moved
    back: a manual scale may be later) and its conditions copied in."""
    hpa_status: Mapping[str, Any] = hpa.get("status") or {}
    out = dict(status)
    out["expectReplicas"] = int(hpa_status.get("desiredReplicas") or 0)
    out["currentReplicas"] = int(hpa_status.get("currentReplicas") or 0)
    last = hpa_status.get("lastScaleTime")
    if last and (not out.get("lastScaleTime") or last > out["lastScaleTime"]):
        out["lastScaleTime"] = last
    return out, mirrored_conditions(conditions, hpa_status.get("conditions") or (), now)
