"""The working state of one sync: the conditions being set and the events emitted.

Upstream mutates a deep copy of the HPA while it reconciles; ``SyncRecorder`` is that
copy's status conditions plus the event recorder, shared by the steps of ``decide``
(``combine`` and ``normalize_step``) so each records exactly what upstream records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from podscale.hpa.conditions import set_condition
from podscale.hpa.types import Event

__all__ = ["SyncRecorder"]


@dataclass(slots=True)
class SyncRecorder:
    """Conditions and events of one sync.

    Upstream may set one condition several times in a sync (``AbleToScale`` goes
    SucceededGetScale, then a stabilization reason, then SucceededRescale), but always
    with the same status within that sync. So applying only each condition's last value,
    in the order the conditions were first set, yields the same list and the same
    ``lastTransitionTime``s as setting them one by one; it just does the work once.
    """

    now: datetime
    conditions: list[dict[str, Any]]
    events: list[Event]
    _pending: dict[str, tuple[str, str, str]] = field(default_factory=dict)

    def condition(self, kind: str, status: str, reason: str, message: str) -> None:
        self._pending[kind] = (status, reason, message)

    def event(self, kind: str, reason: str, message: str) -> None:
        self.events.append(Event(kind, reason, message))

    def final_conditions(self) -> list[dict[str, Any]]:
        """The conditions with everything set so far applied (upstream's setCondition)."""
        for kind, (status, reason, message) in self._pending.items():
            set_condition(self.conditions, kind, status, reason, message, now=self.now)
        self._pending.clear()
        return self.conditions
