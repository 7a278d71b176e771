"""The Kubernetes events KEDA's operator records on a ScaledObject: type, reason, message.

``Event`` is the value ``decisions.poll`` and ``status`` hand to the controller shell, which
records it with the ScaledObject as the involved object. The reason names are KEDA's
``eventreason`` constants; the builders below produce KEDA's message texts for the scale
target's activation and deactivation (``kind`` is ``status.scaleTargetKind``, e.g.
``apps/v1.Deployment``, empty before the reconcile recorded it, as KEDA prints it). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "ACTIVATED",
    "ACTIVATION_FAILED",
    "CHECK_FAILED",
    "DEACTIVATED",
    "DEACTIVATION_FAILED",
    "METRIC_SOURCE_FAILED",
    "NORMAL",
    "READY",
    "SCALER_FAILED",
    "WARNING",
    "Event",
    "activated",
    "activation_failed",
    "deactivated",
    "deactivation_failed",
]

NORMAL: Final = "Normal"
WARNING: Final = "Warning"

ACTIVATED: Final = "KEDAScaleTargetActivated"
DEACTIVATED: Final = "KEDAScaleTargetDeactivated"
ACTIVATION_FAILED: Final = "KEDAScaleTargetActivationFailed"
DEACTIVATION_FAILED: Final = "KEDAScaleTargetDeactivationFailed"
SCALER_FAILED: Final = "KEDAScalerFailed"
METRIC_SOURCE_FAILED: Final = "KEDAMetricSourceFailed"
READY: Final = "ScaledObjectReady"
CHECK_FAILED: Final = "ScaledObjectCheckFailed"


@dataclass(frozen=True)
class Event:
    """One event to record on the ScaledObject."""

    type: str  # Normal | Warning
    reason: str  # KEDA's eventreason names
    message: str


def _target(kind: str, namespace: str, name: str) -> str:
    return f"{kind} {namespace}/{name}"


def activated(
    kind: str,
    namespace: str,
    name: str,
    from_replicas: int,
    to_replicas: int,
    triggers: Sequence[str],
    *,
    forced: bool = False,
) -> Event:
    """The scale target left zero (or idle): which triggers did it, or the force annotation."""
    where = _target(kind, namespace, name)
    if forced:
        cause = "caused by forced activation annotation"
    else:
        cause = "triggered by " + ";".join(triggers)
    return Event(
        NORMAL, ACTIVATED, f"Scaled {where} from {from_replicas} to {to_replicas}, {cause}"
    )


def activation_failed(
    kind: str, namespace: str, name: str, from_replicas: int, to_replicas: int
) -> Event:
    """The activation's /scale write failed (KEDA's own wording, "Failed to scaled")."""
    where = _target(kind, namespace, name)
    return Event(
        WARNING,
        ACTIVATION_FAILED,
        f"Failed to scaled {where} from {from_replicas} to {to_replicas}",
    )


def deactivated(
    kind: str, namespace: str, name: str, from_replicas: int, to_replicas: int
) -> Event:
    """The scale target went to zero (or idle) after the cooldown."""
    where = _target(kind, namespace, name)
    return Event(NORMAL, DEACTIVATED, f"Deactivated {where} from {from_replicas} to {to_replicas}")


def deactivation_failed(
    kind: str, namespace: str, name: str, from_replicas: int, to_replicas: int
) -> Event:
    """The deactivation's /scale write failed."""
    where = _target(kind, namespace, name)
    return Event(
        WARNING,
        DEACTIVATION_FAILED,
        f"Failed to deactivate {where} from {from_replicas} to {to_replicas}",
    )
