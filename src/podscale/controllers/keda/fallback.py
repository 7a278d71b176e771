"""KEDA's fallback: per-metric health in the ScaledObject's status, and the value served instead.

``update_health`` counts a metric's consecutive failures in ``status.health`` as KEDA's
fallback package does (``{"numberOfFailures": n, "status": "Happy" | "Failing"}``, reset to 0
on the first success). ``fallback_enabled`` is KEDA's ``isFallbackEnabled`` plus
``HasValidFallback``: a ``spec.fallback``, an ``AverageValue`` target (the trigger's, or with
scalingModifiers the modifiers' ``metricType``), non-negative threshold and replicas, and with
modifiers a ``target`` that parses as a positive integer. ``fallback_active`` says a metric has
failed more than ``failureThreshold`` times; ``fallback_condition`` is the ``Fallback``
condition KEDA writes from the health map. ``fallback_replicas`` picks the replica count by
``fallback.behavior`` and ``fallback_value`` is the metric KEDA's metrics server returns
instead of the failed one (target x replicas, so the HPA's AverageValue arithmetic lands on
those replicas). ``decisions.poll`` updates health each poll; the metrics adapter serves
``fallback_value``. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.controllers.keda.triggers.spec import TriggerSpec
from podscale.controllers.keda.types import AVERAGE_VALUE, ScaledObject

__all__ = [
    "FALLBACK_ACTIVE_MESSAGE",
    "FALLBACK_ACTIVE_REASON",
    "FALLBACK_INACTIVE_MESSAGE",
    "FALLBACK_INACTIVE_REASON",
    "HEALTH_FAILING",
    "HEALTH_HAPPY",
    "fallback_active",
    "fallback_condition",
    "fallback_enabled",
    "fallback_replicas",
    "fallback_valid",
    "fallback_value",
    "update_health",
]

HEALTH_HAPPY: Final = "Happy"
HEALTH_FAILING: Final = "Failing"
FALLBACK_ACTIVE_REASON: Final = "FallbackExists"
FALLBACK_ACTIVE_MESSAGE: Final = "At least one trigger is falling back on this scaled object"
FALLBACK_INACTIVE_REASON: Final = "NoFallbackFound"
FALLBACK_INACTIVE_MESSAGE: Final = "No fallbacks are active on this scaled object"

# Go's strconv.ParseInt(s, 10, 64), which KEDA applies to scalingModifiers.target.
_GO_INT: Final = re.compile(r"[+-]?[0-9]+")
_INT64_MAX: Final = 2**63 - 1


def _modifiers_target(so: ScaledObject) -> int | None:
    text = so.advanced.scaling_modifiers.target
    if not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    return value if -_INT64_MAX - 1 <= value <= _INT64_MAX else None


def _failures(entry: Any) -> int:
    if isinstance(entry, Mapping):
        count = entry.get("numberOfFailures")
        if isinstance(count, int) and not isinstance(count, bool):
            return count
    return 0


def update_health(health: Mapping[str, Any], metric_name: str, ok: bool) -> dict[str, Any]:
    """``health`` after one read of ``metric_name``: Happy with 0 failures, or one more failure."""
    out = dict(health)
    if ok:
        out[metric_name] = {"numberOfFailures": 0, "status": HEALTH_HAPPY}
    else:
        failures = _failures(health.get(metric_name)) + 1
        out[metric_name] = {"numberOfFailures": failures, "status": HEALTH_FAILING}
    return out


def fallback_valid(so: ScaledObject) -> bool:
    """KEDA's ``HasValidFallback`` (False without a ``spec.fallback``)."""
    spec = so.fallback
    if spec is None:
        return False
    if so.advanced.scaling_modifiers.in_use:
        target = _modifiers_target(so)
        if target is None or target <= 0:
            return False
    return spec.failure_threshold >= 0 and spec.replicas >= 0


def fallback_enabled(so: ScaledObject, metric_type: str = AVERAGE_VALUE) -> bool:
    """Fallback applies to a metric with this HPA target type, and the spec is valid.

    With scalingModifiers only the modifiers' ``metricType`` counts; otherwise the trigger's
    target type.
    """
    if so.fallback is None:
        return False
    mods = so.advanced.scaling_modifiers
    # An empty modifiers metricType is the composite metric's AverageValue, as the admission
    # rules (validation.check_fallback) and the generated HPA read it.
    kind = (mods.metric_type or AVERAGE_VALUE) if mods.in_use else metric_type
    return kind == AVERAGE_VALUE and fallback_valid(so)


def fallback_active(
    so: ScaledObject,
    health: Mapping[str, Any],
    metric_name: str,
    *,
    metric_type: str = AVERAGE_VALUE,
) -> bool:
    """``metric_name`` is served its fallback: enabled, Failing, over ``failureThreshold``.

    ``metric_type`` is the metric's HPA target type (the admission webhook lets a fallback
    through only with ``AverageValue`` triggers, hence the default).
    """
    if so.fallback is None or not fallback_enabled(so, metric_type):
        return False
    entry = health.get(metric_name)
    if not isinstance(entry, Mapping) or entry.get("status") != HEALTH_FAILING:
        return False
    return _failures(entry) > so.fallback.failure_threshold


def fallback_condition(
    so: ScaledObject, health: Mapping[str, Any], metric_names: Sequence[str] = ()
) -> tuple[str, str, str]:
    """The ``Fallback`` condition's (status, reason, message) for this health map.

    KEDA looks at every entry of ``status.health``; ``metric_names`` adds nothing to that and
    exists so callers can restrict the check to the current triggers' metrics when given.
    """
    names = list(metric_names) or list(health)
    if any(fallback_active(so, health, name) for name in names):
        return "True", FALLBACK_ACTIVE_REASON, FALLBACK_ACTIVE_MESSAGE
    return "False", FALLBACK_INACTIVE_REASON, FALLBACK_INACTIVE_MESSAGE


def fallback_replicas(so: ScaledObject, current_replicas: int) -> int:
    """The replica count fallback aims at, by ``fallback.behavior`` (0 without a fallback).

    ``static`` (and any behavior KEDA does not know): ``fallback.replicas``;
    ``currentReplicas``: the target's current count; ``currentReplicasIfHigher`` /
    ``currentReplicasIfLower``: the larger / smaller of the two.
    """
    spec = so.fallback
    if spec is None:
        return 0
    if spec.behavior == "currentReplicas":
        return current_replicas
    if spec.behavior == "currentReplicasIfHigher":
        return max(current_replicas, spec.replicas)
    if spec.behavior == "currentReplicasIfLower":
        return min(current_replicas, spec.replicas)
    return spec.replicas


def fallback_value(so: ScaledObject, spec: TriggerSpec, current_replicas: int) -> float:
    """The metric value served for a failing metric under fallback: target x replicas.

    The target is truncated to an integer as KEDA's ``int64(AverageValue)`` does (a 0.5 target
    gives 0); with scalingModifiers it is the modifiers' integer ``target``.
    """
    if so.advanced.scaling_modifiers.in_use:
        normalisation = _modifiers_target(so) or 0
    else:
        normalisation = int(spec.target_value)
    return float(normalisation * fallback_replicas(so, current_replicas))
