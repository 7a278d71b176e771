"""Loads declared on workloads: the load annotation read into the simulated usage.

A control loop of the simulated cluster (registered with the ``ControllerManager`` next to
``usage.SimulatedUsage``, so the embedded plane and ``podscale up`` both run it). It watches
Deployments, ReplicaSets and StatefulSets through the shared informers and, for each one
carrying ``load.podscale.dev/v1alpha1`` (``podscale.runtime.load.annotation``), sets that
load with ``SimulatedUsage.set_load``, the path a scenario's loads take; the metrics server
then scrapes the pods' usage and the HPA controller reads it as it would in a scenario.

* Time: rate sources read ``t`` as the time since the annotation's value was first seen (or
  last changed), so a step at ``5m`` comes five minutes after ``podscale load`` set it; a
  plane restart starts it over.
* Removing the annotation (or the workload) clears the load: the pods idle again. Loads set
  by others (a scenario) are left alone unless the workload also carries an annotation,
  which then wins.
* A bad value never stops the plane: the load is cleared and a ``Warning`` Event with
  reason ``InvalidLoad`` tells why, on the workload (``podscale describe`` shows it). A
  good one gets a ``Normal`` ``LoadSet`` Event; removal ``LoadRemoved``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.client.cache import Lister
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.runtime.load.annotation import (
    LOAD_ANNOTATION,
    LoadSpecError,
    check_containers,
    load_summary,
    parse_load_annotation,
)
from podscale.runtime.load.rates import RateSource, rates_at, rates_at_seconds
from podscale.runtime.simulated.usage import SimulatedUsage
from podscale.runtime.simulated.usage_loads import WORKLOAD_KINDS
from podscale.store.interface import Clock

__all__ = [
    "COMPONENT",
    "REASON_INVALID",
    "REASON_REMOVED",
    "REASON_SET",
    "AnnotatedLoads",
    "DelayedRate",
]

JSON = dict[str, Any]
COMPONENT: Final = "podscale-load"
REASON_SET: Final = "LoadSet"
REASON_REMOVED: Final = "LoadRemoved"
REASON_INVALID: Final = "InvalidLoad"


@dataclass(frozen=True, slots=True)
class DelayedRate:
    """``source`` starting ``delay`` after the usage's origin: before that, its rate at 0."""

    source: RateSource
    delay: timedelta

    def rate_at(self, t: timedelta) -> float:
        return self.source.rate_at(t - self.delay)

    def rates_at(self, ts: Sequence[timedelta]) -> list[float]:
        """``rate_at`` of each (``BatchRates``): the source's, delayed, in one call."""
        delay = self.delay
        return rates_at(self.source, [t - delay for t in ts])

    def rates_at_seconds(self, seconds: Sequence[float]) -> list[float]:
        """``rates_at`` of whole seconds (``SecondsRates``). A delay of whole seconds keeps
        them whole: ``s - delay`` in floats is exact, as ``t - delay`` is in timedeltas."""
        delay = self.delay
        if delay.microseconds:
            return self.rates_at([timedelta(seconds=s) for s in seconds])
        by = delay.total_seconds()
        return rates_at_seconds(self.source, [s - by for s in seconds])


def _owned_by_deployment(metadata: JSON) -> bool:
    return any(
        isinstance(ref, dict) and ref.get("controller") and ref.get("kind") == "Deployment"
        for ref in metadata.get("ownerReferences") or []
    )


def _annotation(kind: str, obj: JSON | None) -> str | None:
    """The load a workload declares. A Deployment's ReplicaSets carry copies of its
    annotations (the Deployment controller copies them, as upstream's does, and never
    removes one), so theirs are ignored: the Deployment's own annotation is the load."""
    if obj is None:
        return None
    metadata = obj.get("metadata") or {}
    if kind == "ReplicaSet" and _owned_by_deployment(metadata):
        return None
    value = (metadata.get("annotations") or {}).get(LOAD_ANNOTATION)
    return value if isinstance(value, str) else None


def _uid(obj: JSON) -> str:
    return str((obj.get("metadata") or {}).get("uid") or "")


class AnnotatedLoads:
    """Keeps ``usage``'s loads in step with the workloads' load annotations."""

    name: Final = "load-annotations"
    workers_flag: Final = "concurrent_load_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = tuple(WORKLOAD_KINDS.values())

    def __init__(self, api: ControllerApi, clock: Clock, usage: SimulatedUsage) -> None:
        self._clock = clock
        self._usage = usage
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._listers: dict[str, Lister] = {}
        # What each workload's annotation was when last acted on: (uid, value, set since).
        # A value that failed validation is remembered too, so it is reported once.
        self._seen: dict[tuple[str, str, str], tuple[str, str, datetime | None]] = {}

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        for kind, info in WORKLOAD_KINDS.items():
            informer = informers.informer_for(info)
            self._listers[kind] = informer.lister
            informer.add_handler(self._handler(kind, queue))

    def _handler(self, kind: str, queue: WorkQueue[str]) -> EventHandler:
        def enqueue(obj: JSON) -> None:
            metadata = obj.get("metadata") or {}
            key = (kind, str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
            # Only annotated workloads and those that were: the rest never touch the queue.
            if _annotation(kind, obj) is not None or key in self._seen:
                queue.add("/".join(key))

        def on_update(old: JSON, new: JSON) -> None:
            if _annotation(kind, old) != _annotation(kind, new) or _uid(old) != _uid(new):
                enqueue(new)

        return EventHandler(enqueue, on_update, enqueue)

    async def reconcile(self, key: str) -> None:
        kind, namespace, name = key.split("/", 2)
        lister = self._listers.get(kind)
        obj = lister.get(namespace, name) if lister is not None else None
        value = _annotation(kind, obj)
        seen = self._seen.get((kind, namespace, name))
        if obj is None or value is None:
            if seen is not None:
                del self._seen[(kind, namespace, name)]
                self._usage.clear_load(kind, namespace, name)
                if obj is not None and seen[2] is not None:
                    await self._recorder.record(
                        obj, "Normal", REASON_REMOVED, "Load removed: the pods idle"
                    )
            return
        if seen is not None and seen[:2] == (_uid(obj), value):
            return  # nothing this loop reads changed
        await self._apply(kind, namespace, name, obj, value)

    async def _apply(self, kind: str, namespace: str, name: str, obj: JSON, value: str) -> None:
        now = self._clock.now()
        try:
            declared = parse_load_annotation(value)
            check_containers(declared, obj)
        except LoadSpecError as err:
            self._seen[(kind, namespace, name)] = (_uid(obj), value, None)
            self._usage.clear_load(kind, namespace, name)
            await self._recorder.record(
                obj, "Warning", REASON_INVALID, f"{err}; the load is ignored and the pods idle"
            )
            return
        self._seen[(kind, namespace, name)] = (_uid(obj), value, now)
        rate = DelayedRate(declared.rate, now - self._usage.origin)
        self._usage.set_load(kind, namespace, name, rate, declared.profile)
        message = f"Load set: {load_summary(declared.spec)}"
        await self._recorder.record(obj, "Normal", REASON_SET, message)
