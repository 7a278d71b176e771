"""KEDA's scale loop (its ``ScaleHandler`` loop): one poll of a ScaledObject, every
``pollingInterval`` on the injected clock.

``ScaleLoop`` keeps the generation each running loop was started for; the reconcile of
``controller`` starts (``start``) and stops (``stop``) loops, and the controller's shared
work queue carries each loop's next poll as ``poll:<namespace/name>`` (``POLL``). A poll
reads every trigger (``handler.ScaleHandler``), takes KEDA's decision (``decisions.poll``:
activation 0 <-> 1, idle, cooldowns, fallback), writes the target's ``/scale``
(``target.ScaleTargetClient``) and records the status and events
(``writes.ScaledObjectWrites``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.timestamps import parse_time
from podscale.client.http import ApiError
from podscale.client.workqueue import WorkQueue
from podscale.controllers.keda import decisions
from podscale.controllers.keda import events as ev
from podscale.controllers.keda.handler import ScaleHandler
from podscale.controllers.keda.kind import SCALED_OBJECT
from podscale.controllers.keda.target import ScaleTargetClient, TargetError
from podscale.controllers.keda.writes import ScaledObjectWrites
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_owners import meta
from podscale.store.interface import Clock

__all__ = ["POLL", "ScaleLoop"]

JSON = dict[str, Any]
POLL: Final = "poll:"


class ScaleLoop:
    """The running scale loops and their polls; see the module docstring."""

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        handler: ScaleHandler,
        targets: ScaleTargetClient,
        writes: ScaledObjectWrites,
        queue: Callable[[], WorkQueue[str]],
    ) -> None:
        self._api = api
        self._clock = clock
        self._handler = handler
        self._targets = targets
        self._writes = writes
        # The controller's queue, once bound (it raises before).
        self._queue = queue
        # The generation each running scale loop was started for, by object key.
        self._loops: dict[str, int] = {}

    def start(self, key: str, generation: int) -> None:
        """(Re)start the loop of ``key`` unless it already runs for ``generation``."""
        if self._loops.get(key) != generation:
            self._loops[key] = generation
            self._queue().add(POLL + key)

    async def stop(self, key: str) -> None:
        self._loops.pop(key, None)
        await self._handler.forget(key)

    async def poll(self, key: str) -> None:
        if key not in self._loops:
            return
        entry = self._handler.entry(key)
        namespace, _, name = key.rpartition("/")
        try:
            obj = await self._api.get(SCALED_OBJECT, namespace, name)
        except ApiError as err:
            if err.status == 404:
                await self.stop(key)
                return
            raise
        if entry is None or meta(obj).get("deletionTimestamp"):
            return
        so = entry.so
        interval = timedelta(seconds=max(so.polling_interval, 1))
        try:
            target = await self._targets.read(so.namespace, so.scale_target)
        except TargetError as err:
            await self._writes.record(obj, ev.Event(ev.WARNING, ev.SCALER_FAILED, str(err)))
            self._queue().add_after(POLL + key, interval)
            return
        outcomes = await self._handler.read_all(key)
        old_status: JSON = dict(obj.get("status") or {})
        # The handler's health is the freshest (the metrics server's reads count too); after
        # a restart the status' own is all there is.
        health = entry.health or dict(old_status.get("health") or {})
        now = self._clock.now()
        decision = decisions.poll(
            decisions.PollInputs(
                so=so,
                current_replicas=target.replicas,
                outcomes=outcomes,
                status={**old_status, **({"health": health} if health else {})},
                created_at=_created(obj, now),
                now=now,
            )
        )
        status = dict(decision.status)
        events = list(decision.events)
        wanted = decision.scale_to
        if wanted is not None and wanted != target.replicas:
            try:
                await self._targets.write(so.namespace, target, wanted)
            except TargetError:
                # The decision assumed the write; keep the status it was made from.
                where = (
                    str(old_status.get("scaleTargetKind") or ""),
                    so.namespace,
                    so.scale_target.name,
                )
                failed = (
                    ev.activation_failed if wanted > target.replicas else ev.deactivation_failed
                )
                events, status = [failed(*where, target.replicas, wanted)], old_status
        entry.health = dict(status.get("health") or {})
        await self._writes.finish(obj, old_status, status, events)
        if (
            old_status.get("pausedReplicaCount") is None
            and status.get("pausedReplicaCount") is not None
        ):
            # The paused count is pinned: the reconcile now stops this loop (KEDA requeues
            # its reconcile until the count is recorded).
            self._queue().add(key)
        if key in self._loops:
            self._queue().add_after(POLL + key, interval)


def _created(obj: Mapping[str, Any], default: datetime) -> datetime:
    text = meta(obj).get("creationTimestamp")
    return parse_time(str(text)) if text else default
