"""The simulated kube-scheduler: binds pending pods to nodes through ``pods/binding``.

A ``Controller`` (``podscale.controllers.manager``) over the pod and node informers. Pending
pods (no ``spec.nodeName``, not terminating, ``schedulerName`` unset or default-scheduler)
are queued; ``reconcile`` asks the pure ``podscale.runtime.simulated.scheduling`` for a node against
the ``AssignedPods`` cache (``scheduler_cache``), assumes the pod there and POSTs a Binding,
then records ``Scheduled``. A pod that fits nowhere gets PodScheduled=False/Unschedulable
with upstream's ``0/N nodes are available: ... preemption: ...`` message (``fit_error``)
through the ``status`` subresource and a ``FailedScheduling`` event, and waits in the
unschedulable set: it is retried when a node is added or changes in a way that matters
(readiness, capacity, labels, taints; not a heartbeat), when a bound pod goes away, and at
the latest after 5 minutes (upstream's podMaxInUnschedulablePodsDuration). One worker by
default, like upstream's one-at-a-time scheduling cycle; assumption keeps more workers from
double-booking a node.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo
from podscale.client.cache import Lister, object_key
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.runtime.simulated.cluster_api import (
    NODE,
    POD,
    binding_for,
    meta,
    node_name_of,
    pod_namespace,
)
from podscale.runtime.simulated.fit_error import fit_error_message
from podscale.runtime.simulated.scheduler_cache import AssignedPods
from podscale.runtime.simulated.scheduling import choose_node, is_node_ready, mark_unschedulable
from podscale.store.interface import Clock

__all__ = ["DEFAULT_SCHEDULER_NAME", "UNSCHEDULABLE_FLUSH", "SimulatedScheduler"]

JSON = dict[str, Any]
DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"
UNSCHEDULABLE_FLUSH: Final = timedelta(minutes=5)


def _is_schedulable_candidate(pod: Mapping[str, Any]) -> bool:
    spec = pod.get("spec") or {}
    return (
        not spec.get("nodeName")
        and not meta(pod).get("deletionTimestamp")
        and (spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME) == DEFAULT_SCHEDULER_NAME
        and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    )


def _node_fingerprint(node: Mapping[str, Any]) -> tuple[Any, ...]:
    """What scheduling reads from a node; a heartbeat leaves it unchanged."""
    status = node.get("status") or {}
    return (
        node.get("spec"),
        meta(node).get("labels"),
        status.get("allocatable") or status.get("capacity"),
        is_node_ready(dict(node)),
    )


class SimulatedScheduler:
    """Schedules pending pods onto the nodes the node informer knows."""

    name: Final = "scheduler"
    workers_flag: Final = "concurrent_scheduler_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = (POD, NODE)

    def __init__(
        self, api: ControllerApi, clock: Clock, *, rng: random.Random | None = None
    ) -> None:
        """``rng`` breaks ties between equally scored nodes (None: the smallest name)."""
        self._api = api
        self._clock = clock
        self._rng = rng
        self._recorder = EventRecorder(api, clock, DEFAULT_SCHEDULER_NAME)
        self._assigned = AssignedPods()
        self._unschedulable: set[str] = set()
        self._flush_due: dict[str, datetime] = {}  # one pending 5-minute retry per pod
        self._queue: WorkQueue[str] | None = None
        self._pods: Lister | None = None
        self._nodes: Lister | None = None

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        pod_informer = informers.informer_for(POD)
        node_informer = informers.informer_for(NODE)
        self._pods = pod_informer.lister
        self._nodes = node_informer.lister
        pod_informer.add_handler(EventHandler(self._add_pod, self._update_pod, self._delete_pod))
        node_informer.add_handler(EventHandler(self._add_node, self._update_node))

    def _bound(self) -> tuple[WorkQueue[str], Lister, Lister]:
        if self._queue is None or self._pods is None or self._nodes is None:
            raise RuntimeError("SimulatedScheduler used before bind()")
        return self._queue, self._pods, self._nodes

    def _add_pod(self, pod: JSON) -> None:
        if node_name_of(pod):
            self._assigned.observe(pod)
        elif _is_schedulable_candidate(pod):
            self._bound()[0].add(object_key(pod))

    def _update_pod(self, old: JSON, new: JSON) -> None:
        if meta(old).get("resourceVersion") == meta(new).get("resourceVersion"):
            return  # a resync; unschedulable pods are retried on their own schedule
        if node_name_of(new):
            self._assigned.observe(new)
            self._unschedulable.discard(object_key(new))
        elif _is_schedulable_candidate(new) and (new.get("spec") != old.get("spec")):
            self._bound()[0].add(object_key(new))

    def _delete_pod(self, pod: JSON) -> None:
        self._unschedulable.discard(object_key(pod))
        self._flush_due.pop(object_key(pod), None)
        if self._assigned.remove(pod):
            self._retry_unschedulable()

    def _add_node(self, node: JSON) -> None:
        self._retry_unschedulable()

    def _update_node(self, old: JSON, new: JSON) -> None:
        if _node_fingerprint(old) != _node_fingerprint(new):
            self._retry_unschedulable()

    def _retry_unschedulable(self) -> None:
        queue = self._bound()[0]
        for key in sorted(self._unschedulable):
            queue.add(key)
        self._unschedulable.clear()

    # -- scheduling cycle -------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        _, pods, nodes = self._bound()
        namespace, _, name = key.rpartition("/")
        due = self._flush_due.get(key)
        if due is not None and self._clock.now() >= due:
            del self._flush_due[key]
        pod = pods.get(namespace, name)
        if pod is None or not _is_schedulable_candidate(pod) or self._assigned.is_assumed(key):
            self._unschedulable.discard(key)
            return
        candidates = nodes.list()
        placed = self._assigned.by_node()
        chosen = choose_node(pod, candidates, placed, self._rng)
        if chosen is None:
            await self._record_unschedulable(key, pod, fit_error_message(pod, candidates, placed))
            return
        self._assigned.assume(pod, chosen)
        try:
            await self._api.create(POD, namespace, binding_for(pod, chosen), subresource="binding")
        except ApiError as err:
            self._assigned.forget(key)
            if err.status in (404, 409):
                return  # the pod is gone or already bound: nothing left to do for it
            raise
        message = f"Successfully assigned {namespace}/{name} to {chosen}"
        await self._recorder.record(pod, "Normal", "Scheduled", message)

    async def _record_unschedulable(self, key: str, pod: JSON, message: str) -> None:
        queue = self._bound()[0]
        self._unschedulable.add(key)
        if key not in self._flush_due:
            self._flush_due[key] = self._clock.now() + UNSCHEDULABLE_FLUSH
            queue.add_after(key, UNSCHEDULABLE_FLUSH)
        status = mark_unschedulable(pod, message, self._clock.now())
        if status != (pod.get("status") or {}):
            body = {**pod, "status": status}  # shallow: the API copies its input
            try:
                await self._api.update(POD, pod_namespace(pod), body, "status")
            except ApiError as err:
                if err.status not in (404, 409):
                    raise
                # Gone, or changed meanwhile: the informer's next event says what to do.
        await self._recorder.record(pod, "Warning", "FailedScheduling", message)
