"""An event recorder: controllers report what they did as core/v1 Event objects.

client-go's ``record.EventRecorder`` without aggregation: each call creates one Event in
the involved object's namespace, named ``<object>.<nanoseconds in hex>`` as upstream names
them, with ``source.component``/``reportingComponent`` set to the controller's component
name (``replicaset-controller``). On virtual time many events share one instant, so the
nanosecond part is bumped past the last one used for that object, and past any name the
server already has. Recording is best effort, as upstream: a failure is logged, never
raised into the reconcile that reported it. Used by ``replicaset.controller``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.controllers.runtime_api import ControllerApi
from podscale.hpa.conditions import format_time
from podscale.store.interface import Clock

__all__ = ["EventRecorder"]

_LOG = logging.getLogger(__name__)
_EVENT = kind_for("v1", "Event")
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_NAME_ATTEMPTS: Final = 5


def _nanoseconds(moment: datetime) -> int:
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def _involved_object(obj: Mapping[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    return {
        "kind": obj.get("kind", ""),
        "namespace": meta.get("namespace", ""),
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "apiVersion": obj.get("apiVersion", ""),
        "resourceVersion": meta.get("resourceVersion", ""),
    }


class EventRecorder:
    """Records events about objects on behalf of ``component``."""

    def __init__(self, api: ControllerApi, clock: Clock, component: str) -> None:
        self._api = api
        self._clock = clock
        self._component = component
        self._last_nanos: dict[str, int] = {}

    async def record(
        self, obj: Mapping[str, Any], event_type: str, reason: str, message: str
    ) -> None:
        """Create an Event (``event_type`` ``Normal`` or ``Warning``) about ``obj``."""
        now = self._clock.now()
        involved = _involved_object(obj)
        namespace = str(involved["namespace"] or "default")
        timestamp = format_time(now)
        name_key = f"{namespace}/{involved['name']}"
        for _ in range(_NAME_ATTEMPTS):
            nanos = max(_nanoseconds(now), self._last_nanos.get(name_key, 0) + 1)
            self._last_nanos[name_key] = nanos
            event = {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": f"{involved['name']}.{nanos:x}", "namespace": namespace},
                "involvedObject": involved,
                "reason": reason,
                "message": message,
                "source": {"component": self._component},
                "firstTimestamp": timestamp,
                "lastTimestamp": timestamp,
                "count": 1,
                "type": event_type,
                "reportingComponent": self._component,
                "reportingInstance": "",
            }
            try:
                await self._api.create(_EVENT, namespace, event)
                return
            except ApiError as err:
                if err.status != 409:
                    _LOG.warning("could not record event %s %s: %s", reason, name_key, err)
                    return
        _LOG.warning("could not record event %s %s: name taken", reason, name_key)
