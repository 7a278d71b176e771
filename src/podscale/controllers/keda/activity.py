"""Whether a ScaledObject is active at one poll: KEDA's ``getScaledObjectState``, pure.

``trigger_state`` reads the poll's ``TriggerOutcome``s (one per trigger, in
``spec.triggers`` order, as ``handler.ScaleHandler.read_all`` reads them) into a
``TriggerState``: active when any trigger is; with scalingModifiers the composite formula's
value (``formula``) above ``activationTarget`` instead (``MODIFIERS_TRIGGER`` is then the
active trigger's name); only cpu/memory triggers: always active unless one failed. Every
failed trigger is a ``KEDAScalerFailed`` (``KEDAMetricSourceFailed`` with modifiers) event
with the scaler's error (``events``). ``decisions.poll`` decides the step from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from podscale.controllers.keda import events as ev
from podscale.controllers.keda.events import Event
from podscale.controllers.keda.formula import FormulaError, compile_formula
from podscale.controllers.keda.types import ScaledObject

__all__ = ["MODIFIERS_TRIGGER", "TriggerOutcome", "TriggerState", "trigger_state"]

# The name KEDA reports as the active trigger when the scalingModifiers formula activates.
MODIFIERS_TRIGGER: Final = "ModifiersTrigger"


@dataclass(frozen=True)
class TriggerOutcome:
    """One trigger at one poll, in ``spec.triggers`` order."""

    name: str  # spec.triggers[i].name ("" if unset)
    metric_name: str  # TriggerSpec.metric_name (s0-prometheus-..., cpu)
    value: float | None  # the metric value read (None on error)
    active: bool
    error: str | None  # ScalerError text, None when ok


@dataclass(frozen=True)
class TriggerState:
    """``getScaledObjectState``'s answer: active, any error, the active triggers' names."""

    active: bool
    error: bool
    active_triggers: tuple[str, ...]
    events: tuple[Event, ...]


def _modifiers_activity(so: ScaledObject, outcomes: Sequence[TriggerOutcome]) -> bool | None:
    """The composite value above ``activationTarget`` (0 when unset); None when the target
    does not parse, which KEDA reports as an error of the whole object."""
    mods = so.advanced.scaling_modifiers
    try:
        threshold = float(mods.activation_target) if mods.activation_target else 0.0
    except ValueError:
        return None
    names = [t.name for t in so.triggers if t.name]
    values = {o.name: o.value for o in outcomes if o.name and o.value is not None}
    try:
        composite = compile_formula(mods.formula, names).evaluate(values)
    except FormulaError:
        # The webhook admitted the formula; a run-time failure leaves the object inactive.
        return False
    return composite > threshold


def trigger_state(so: ScaledObject, outcomes: Sequence[TriggerOutcome]) -> TriggerState:
    """Whether the object is active and errored this poll, and the scaler-failure events."""
    modifiers = so.advanced.scaling_modifiers.in_use
    reason = ev.METRIC_SOURCE_FAILED if modifiers else ev.SCALER_FAILED
    events = tuple(Event(ev.WARNING, reason, o.error) for o in outcomes if o.error is not None)
    error = bool(events)
    names = tuple(o.metric_name for o in outcomes if o.error is None and o.active)
    active = bool(names)
    if modifiers:
        # The formula decides instead of the triggers, and not at all after an error.
        active, names = False, ()
        if not error:
            verdict = _modifiers_activity(so, outcomes)
            if verdict is None:
                error = True
            elif verdict:
                active, names = True, (MODIFIERS_TRIGGER,)
    # cpu/memory alone could never wake a target from zero, so KEDA keeps such objects active.
    if sum(t.is_resource for t in so.triggers) >= len(so.triggers) and not error:
        active = True
    return TriggerState(active, error, names, events)
