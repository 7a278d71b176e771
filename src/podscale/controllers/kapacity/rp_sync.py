"""One ReplicaProfile sync's status and events: the writes ``rp_controller`` reports with.

``ProfileSync`` holds the conditions and counts a reconcile has computed so far and writes
the status through the ``status`` subresource only when it differs from what was last
written (Kapacity's ``updateStatusIfNeeded``). ``fail`` is Kapacity's ``errorOut``: a
Warning event, the condition False with the same reason and message, the status written
(a failure to write is only logged), and a ``SyncFailed`` for the caller to raise so the
work queue retries with backoff. Conditions and the status body come from ``rp_status``.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from podscale.client.http import ApiError
from podscale.controllers.kapacity.kind import REPLICA_PROFILE
from podscale.controllers.kapacity.pod_states import Classified
from podscale.controllers.kapacity.reading import Condition
from podscale.controllers.kapacity.replicaprofile import ReplicaProfile
from podscale.controllers.kapacity.rp_status import set_condition, status_json
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_events import EventRecorder
from podscale.store.interface import Clock

__all__ = ["ProfileSync", "SyncFailed"]

JSON = dict[str, Any]
_MERGE_PATCH: Final = "application/merge-patch+json"
_LOG = logging.getLogger(__name__)


class SyncFailed(Exception):
    """A step failed and was reported; raised so the work queue retries with backoff."""


class ProfileSync:
    """One reconcile's view of a profile: its conditions and counts, written on demand."""

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        recorder: EventRecorder,
        obj: JSON,
        rp: ReplicaProfile,
    ) -> None:
        self.api, self.clock, self.recorder = api, clock, recorder
        self.obj, self.rp = obj, rp
        self.conditions: tuple[Condition, ...] = rp.status.conditions
        self.counts: Classified | None = None
        self.written: JSON = dict(obj.get("status") or {})

    def set(self, condition_type: str, status: str, reason: str, message: str) -> None:
        self.conditions = set_condition(
            self.conditions,
            condition_type,
            status,
            reason,
            message,
            generation=self.rp.generation,
            now=self.clock.now(),
        )

    async def write(self) -> None:
        status = status_json(self.counts, self.conditions, self.written)
        if status == self.written:
            return
        await self.api.patch(
            REPLICA_PROFILE,
            self.rp.namespace,
            self.rp.name,
            {"status": status},
            content_type=_MERGE_PATCH,
            subresource="status",
        )
        self.written = status

    async def event(self, event_type: str, reason: str, message: str) -> None:
        await self.recorder.record(self.obj, event_type, reason, message)

    async def fail(self, condition_type: str, reason: str, message: str) -> SyncFailed:
        """Kapacity's ``errorOut``: Warning event, condition False, status written."""
        await self.event("Warning", reason, message)
        self.set(condition_type, "False", reason, message)
        try:
            await self.write()
        except ApiError as err:
            _LOG.warning("failed to update ReplicaProfile status: %s", err)
        return SyncFailed(message)
