"""KEDA's pause annotations on a ScaledObject, read the way its operator reads them.

``read_pause`` parses the five annotations into a ``Pause``: ``autoscaling.keda.sh/paused``
(Go's ``strconv.ParseBool``; a value that is no boolean still pauses, as KEDA assumes the user
meant to), ``paused-replicas`` (``strconv.ParseInt(v, 10, 32)``: a bad value is kept as its Go
error text, which stops the scale loop's step), and the three one-way switches
``paused-scale-in``, ``paused-scale-out`` and ``force-activation`` (true only when the value
parses as a true boolean). ``needs_pause`` is KEDA's ``NeedToBePausedByAnnotation``: with
``paused-replicas`` the object counts as paused only once ``status.pausedReplicaCount`` records
that the loop scaled to it. ``reconcile_paused`` is the reconcile's part: the ``Paused``
condition and dropping a stale ``pausedReplicaCount``. ``decisions.poll`` uses all of it; the
generated HPA's ``selectPolicy: Disabled`` for the one-way pauses belongs to ``generated``. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from podscale.controllers.keda.types import PAUSED_ANNOTATION, PAUSED_REPLICAS_ANNOTATION

__all__ = [
    "FORCE_ACTIVATION_ANNOTATION",
    "PAUSED_MESSAGE",
    "PAUSED_REASON",
    "PAUSED_SCALE_IN_ANNOTATION",
    "PAUSED_SCALE_OUT_ANNOTATION",
    "UNPAUSED_MESSAGE",
    "UNPAUSED_REASON",
    "Pause",
    "condition",
    "go_parse_bool",
    "needs_pause",
    "read_pause",
    "reconcile_paused",
    "set_condition",
]

PAUSED_SCALE_IN_ANNOTATION: Final = "autoscaling.keda.sh/paused-scale-in"
PAUSED_SCALE_OUT_ANNOTATION: Final = "autoscaling.keda.sh/paused-scale-out"
FORCE_ACTIVATION_ANNOTATION: Final = "autoscaling.keda.sh/force-activation"

PAUSED_REASON: Final = "ScaledObjectPaused"
PAUSED_MESSAGE: Final = "ScaledObject is paused"
UNPAUSED_REASON: Final = "ScaledObjectUnpaused"
UNPAUSED_MESSAGE: Final = "pause annotation removed for ScaledObject"

_TRUE: Final = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE: Final = frozenset({"0", "f", "F", "FALSE", "false", "False"})
# Go's ParseInt in base 10: an optional sign and ASCII digits, nothing else (Python's int()
# would also take spaces, underscores and other scripts' digits).
_GO_INT: Final = re.compile(r"[+-]?[0-9]+")
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def go_parse_bool(text: str) -> bool | None:
    """Go's ``strconv.ParseBool``: the boolean, or None where Go returns an error."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return None


def _parse_int32(text: str) -> tuple[int | None, str | None]:
    if not _GO_INT.fullmatch(text):
        return None, f'strconv.ParseInt: parsing "{text}": invalid syntax'
    value = int(text)
    if not _INT32_MIN <= value <= _INT32_MAX:
        return None, f'strconv.ParseInt: parsing "{text}": value out of range'
    return value, None


@dataclass(frozen=True)
class Pause:
    """What the pause annotations ask for.

    ``paused`` is the ``paused`` annotation alone; ``paused_replicas`` is the parsed
    ``paused-replicas`` count and ``paused_replicas_error`` Go's error for a value that is no
    int32 (``has_paused_replicas`` tells that the annotation is there at all).
    """

    paused: bool = False
    has_paused_replicas: bool = False
    paused_replicas: int | None = None
    paused_replicas_error: str | None = None
    scale_in: bool = False
    scale_out: bool = False
    force_activation: bool = False

    @property
    def any_annotation(self) -> bool:
        """KEDA's ``HasPausedAnnotation``: ``paused`` or ``paused-replicas`` written."""
        return self.paused or self.has_paused_replicas


def read_pause(annotations: Mapping[str, str]) -> Pause:
    """The pause annotations of a ScaledObject, parsed as KEDA parses them."""
    paused = False
    if PAUSED_ANNOTATION in annotations:
        # "true", or anything that is not a Go boolean, pauses; only a false boolean does not.
        paused = go_parse_bool(annotations[PAUSED_ANNOTATION]) is not False
    replicas: int | None = None
    error: str | None = None
    has_replicas = PAUSED_REPLICAS_ANNOTATION in annotations
    if has_replicas:
        replicas, error = _parse_int32(annotations[PAUSED_REPLICAS_ANNOTATION])

    def switch(name: str) -> bool:
        return go_parse_bool(annotations.get(name, "")) is True

    return Pause(
        paused=paused,
        has_paused_replicas=has_replicas,
        paused_replicas=replicas,
        paused_replicas_error=error,
        scale_in=switch(PAUSED_SCALE_IN_ANNOTATION),
        scale_out=switch(PAUSED_SCALE_OUT_ANNOTATION),
        force_activation=switch(FORCE_ACTIVATION_ANNOTATION),
    )


def needs_pause(pause: Pause, status: Mapping[str, Any]) -> bool:
    """KEDA's ``NeedToBePausedByAnnotation``: the scale loop stops for this object.

    With ``paused-replicas`` the answer is whether the loop already recorded the paused count
    in ``status.pausedReplicaCount`` (the ``paused`` annotation is then irrelevant); without it,
    the ``paused`` annotation decides.
    """
    if pause.has_paused_replicas:
        return status.get("pausedReplicaCount") is not None
    return pause.paused


def set_condition(
    status: Mapping[str, Any], kind: str, state: str, reason: str, message: str
) -> dict[str, Any]:
    """``status`` with condition ``kind`` set; a missing one is appended (KEDA's setCondition
    only edits conditions that exist, after ``GetInitializedConditions`` made all four)."""
    out = dict(status)
    conditions = [dict(c) for c in status.get("conditions") or () if isinstance(c, Mapping)]
    wanted = {"type": kind, "status": state, "reason": reason, "message": message}
    for index, condition in enumerate(conditions):
        if condition.get("type") == kind:
            conditions[index] = wanted
            break
    else:
        conditions.append(wanted)
    out["conditions"] = conditions
    return out


def condition(status: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    """Condition ``kind`` of ``status``, an empty mapping (KEDA's Unknown) when absent."""
    for item in status.get("conditions") or ():
        if isinstance(item, Mapping) and item.get("type") == kind:
            return item
    return {}


def reconcile_paused(status: Mapping[str, Any], pause: Pause) -> dict[str, Any]:
    """The ``Paused`` condition and ``pausedReplicaCount`` as KEDA's reconcile leaves them.

    Paused (loop stopped), or only one direction paused: ``Paused`` True ``ScaledObjectPaused``.
    Otherwise a ``Paused`` True turns False ``ScaledObjectUnpaused``. A recorded
    ``pausedReplicaCount`` is dropped once neither ``paused`` nor ``paused-replicas`` is there.
    """
    out = dict(status)
    if out.get("pausedReplicaCount") is not None and not pause.any_annotation:
        del out["pausedReplicaCount"]
    if needs_pause(pause, out) or pause.scale_in or pause.scale_out:
        return set_condition(out, "Paused", "True", PAUSED_REASON, PAUSED_MESSAGE)
    if condition(out, "Paused").get("status") == "True":
        return set_condition(out, "Paused", "False", UNPAUSED_REASON, UNPAUSED_MESSAGE)
    return out
