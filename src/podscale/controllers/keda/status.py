"""What KEDA's ScaledObject reconcile (not its scale loop) writes into ``.status``.

``initial_conditions`` gives a status whose conditions lack one of the four types KEDA's four
Unknown conditions (``Ready``, ``Active``, ``Fallback``, ``Paused``), as its reconcile does on
first sight. ``ready`` records what the reconcile learnt about the target (``scaleTargetKind``
``group/version.Kind``, ``scaleTargetGVKR``, ``originalReplicaCount`` once, ``hpaName``,
``externalMetricNames``) and sets ``Ready`` True ``ScaledObjectReady``; ``ready_event`` is the
``ScaledObjectReady`` event KEDA records when the object was not Ready before. ``not_ready``
sets ``Ready`` False with the caller's reason (``check_failed`` builds KEDA's
``ScaledObjectCheckFailed`` one, ``<message>: <error>``, which also turns ``Active`` Unknown).
``finalize_replicas`` is the count ``restoreToOriginalReplicaCount`` restores on deletion.
``with_trigger_types`` records ``triggersTypes`` and ``authenticationsTypes``, the strings
the CRD's ``Triggers`` and ``Authentications`` printer columns read.
Every function returns a new dict and keeps the fields it does not own. The scale loop's own
status fields live in ``decisions``; pause and fallback conditions in ``pause``/``fallback``.
Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.controllers.keda.events import CHECK_FAILED, NORMAL, READY, WARNING, Event
from podscale.controllers.keda.fallback import (
    FALLBACK_INACTIVE_MESSAGE,
    FALLBACK_INACTIVE_REASON,
    fallback_valid,
)
from podscale.controllers.keda.pause import condition, set_condition
from podscale.controllers.keda.types import ScaledObject, ScaleTarget

__all__ = [
    "CHECK_FAILED_REASON",
    "CONDITION_TYPES",
    "HPA_FAILED_MESSAGE",
    "READY_MESSAGE",
    "READY_REASON",
    "REPLICA_COUNTS_MESSAGE",
    "SCALER_READY_MESSAGE",
    "SCALE_TARGET_ERROR_MESSAGE",
    "SCALE_TARGET_NOT_FOUND_MESSAGE",
    "SCALE_TARGET_NO_SUBRESOURCE_MESSAGE",
    "TRIGGERS_MESSAGE",
    "check_failed",
    "check_failed_event",
    "finalize_replicas",
    "initial_conditions",
    "not_ready",
    "ready",
    "ready_event",
    "trigger_types",
    "with_trigger_types",
]

CONDITION_TYPES: Final = ("Ready", "Active", "Fallback", "Paused")

READY_REASON: Final = "ScaledObjectReady"
READY_MESSAGE: Final = "ScaledObject is defined correctly and is ready for scaling"
CHECK_FAILED_REASON: Final = "ScaledObjectCheckFailed"
# The Active condition KEDA writes next to a failed check.
_UNKNOWN_STATE: Final = ("Unknown", "UnknownState", "ScaledObject check failed")

# The messages KEDA's reconcile prefixes to the error of the check that failed.
SCALE_TARGET_ERROR_MESSAGE: Final = "ScaledObject doesn't have correct scaleTargetRef specification"
SCALE_TARGET_NOT_FOUND_MESSAGE: Final = "Target resource doesn't exist"
SCALE_TARGET_NO_SUBRESOURCE_MESSAGE: Final = "Target resource doesn't expose /scale subresource"
REPLICA_COUNTS_MESSAGE: Final = (
    "ScaledObject doesn't have correct Idle/Min/Max Replica Counts specification"
)
TRIGGERS_MESSAGE: Final = "ScaledObject doesn't have correct triggers specification"
HPA_FAILED_MESSAGE: Final = "failed to ensure HPA is correctly created for ScaledObject"
# The ScaledObjectReady event's text (KEDA's message.ScalerReadyMsg).
SCALER_READY_MESSAGE: Final = "ScaledObject is ready for scaling"


def initial_conditions(status: Mapping[str, Any]) -> dict[str, Any]:
    """``status`` with KEDA's four Unknown conditions unless all four types are already there."""
    out = dict(status)
    present = {c.get("type") for c in status.get("conditions") or () if isinstance(c, Mapping)}
    if not all(kind in present for kind in CONDITION_TYPES):
        out["conditions"] = [{"type": kind, "status": "Unknown"} for kind in CONDITION_TYPES]
    return out


def ready(
    status: Mapping[str, Any],
    *,
    hpa_name: str,
    metric_names: Sequence[str],
    original_replicas: int | None,
    target: ScaleTarget,
    gvkr: Mapping[str, str],
    resource_metric_names: Sequence[str] = (),
    so: ScaledObject | None = None,
) -> dict[str, Any]:
    """The status after a reconcile that passed every check.

    ``metric_names`` are the generated HPA's External metric names, ``resource_metric_names``
    its Resource ones; ``original_replicas`` is the target's ``/scale`` replicas, kept only the
    first time (KEDA never overwrites ``originalReplicaCount``). With ``so`` the ``Fallback``
    condition turns False ``NoFallbackFound`` when the object has no valid fallback, as KEDA's
    reconcile writes it.
    """
    out = dict(status)
    out["scaleTargetKind"] = target.gvk_string
    out["scaleTargetGVKR"] = dict(gvkr)
    if out.get("originalReplicaCount") is None and original_replicas is not None:
        out["originalReplicaCount"] = original_replicas
    # KEDA's status fields are omitempty: an empty list leaves no key.
    for key, names in (
        ("externalMetricNames", metric_names),
        ("resourceMetricNames", resource_metric_names),
    ):
        if names:
            out[key] = list(names)
        else:
            out.pop(key, None)
    out["hpaName"] = hpa_name
    out = set_condition(out, "Ready", "True", READY_REASON, READY_MESSAGE)
    if so is not None and not fallback_valid(so):
        out = set_condition(
            out, "Fallback", "False", FALLBACK_INACTIVE_REASON, FALLBACK_INACTIVE_MESSAGE
        )
    return out


def ready_event(status: Mapping[str, Any]) -> Event | None:
    """The ``ScaledObjectReady`` event for a reconcile that succeeded on ``status`` (the one
    before ``ready``): recorded only when ``Ready`` was not True."""
    if condition(status, "Ready").get("status") == "True":
        return None
    return Event(NORMAL, READY, SCALER_READY_MESSAGE)


def not_ready(status: Mapping[str, Any], reason: str, message: str) -> dict[str, Any]:
    """``Ready`` False with KEDA's ``reason`` and ``message``; a failed check
    (``ScaledObjectCheckFailed``) also makes ``Active`` Unknown, as KEDA's reconcile does."""
    out = set_condition(status, "Ready", "False", reason, message)
    if reason == CHECK_FAILED_REASON:
        out = set_condition(out, "Active", *_UNKNOWN_STATE)
    return out


def check_failed(status: Mapping[str, Any], message: str, error: str) -> dict[str, Any]:
    """A failed reconcile check: ``Ready`` False ``ScaledObjectCheckFailed``, ``<msg>: <err>``."""
    return not_ready(status, CHECK_FAILED_REASON, f"{message}: {error}")


def check_failed_event(message: str, error: str) -> Event:
    """The Warning event KEDA records with a failed check."""
    return Event(WARNING, CHECK_FAILED, f"{message}: {error}")


def finalize_replicas(so: ScaledObject, status: Mapping[str, Any]) -> int | None:
    """``restoreToOriginalReplicaCount`` on deletion: ``originalReplicaCount``, or None (leave
    the target as it is) when the option is off or no count was recorded."""
    if not so.advanced.restore_to_original_replica_count:
        return None
    original = status.get("originalReplicaCount")
    if isinstance(original, int) and not isinstance(original, bool):
        return original
    return None


def trigger_types(so: ScaledObject) -> tuple[str, str]:
    """The triggers' types and their authentication references, each comma-joined in
    spec order without repeats, as KEDA's reconcile summarizes them for its printer columns.
    A reference names its ``kind/name`` when the kind is given, else its name."""
    types: list[str] = []
    auths: list[str] = []
    for trigger in so.triggers:
        if trigger.type not in types:
            types.append(trigger.type)
        if not trigger.authentication_ref:
            continue
        auth = trigger.authentication_ref
        if trigger.authentication_kind:
            auth = f"{trigger.authentication_kind}/{auth}"
        if auth not in auths:
            auths.append(auth)
    return ",".join(types), ",".join(auths)


def with_trigger_types(status: Mapping[str, Any], so: ScaledObject) -> dict[str, Any]:
    """``status`` with ``triggersTypes`` and ``authenticationsTypes``; KEDA writes both once
    the target and the triggers passed their checks, even as empty strings (its fields are
    pointers, so an empty value is still written)."""
    triggers, auths = trigger_types(so)
    return {**status, "triggersTypes": triggers, "authenticationsTypes": auths}
