"""The working state of one sync: the conditions being set and the events emitted.

Upstream mutates a deep copy of the HPA while it reconciles; ``SyncRecorder`` is that
copy's status conditions plus the event recorder, shared by the steps of ``decide``
(``combine`` and ``normalize_step``) so each records exactly what upstream records.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from podscale.hpa.conditions import set_condition
from podscale.hpa.types import Event

__all__ = ["SyncRecorder"]


@dataclass(slots=True)
class SyncRecorder:
    """Working state of one decision; mirrors the mutable HPA copy upstream works on."""

    now: datetime
    conditions: list[dict[str, Any]]
    events: list[Event]

    def condition(self, kind: str, status: str, reason: str, message: str) -> None:
        set_condition(self.conditions, kind, status, reason, message, now=self.now)

    def event(self, kind: str, reason: str, message: str) -> None:
        self.events.append(Event(kind, reason, message))
