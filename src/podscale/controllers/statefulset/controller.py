"""The StatefulSet controller shell: informers and the API around the pure plan.

Upstream's ``StatefulSetController`` (pkg/controller/statefulset/stateful_set.go). Handlers
turn set and pod events into ``namespace/name`` keys: a pod with a controller reference
wakes that set (and the previous controller when the reference changed), an orphan wakes
every set whose selector matches it, a pod turning ready wakes its set again after
``minReadySeconds`` + 1 s. There are no expectations: the plan reads the informer cache, and
a create that races the cache fails with AlreadyExists and is retried with backoff, as
upstream. ``reconcile`` is ``sync``: read the set, claim its member pods
(``pod_control.claim_stateful_pods``), ``plan.plan_sync``, run the steps until one fails,
then write the status through the ``status`` subresource when it changed (also after a
failure), requeue after ``minReadySeconds`` while not every replica is available, and raise
the step's error to be retried. Run by ``podscale.controllers.manager.ControllerManager``.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.api.selectors import selector_from_label_selector
from podscale.client.cache import Lister, object_key
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.replicaset.podstate import is_pod_ready
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import (
    cached_owner,
    controller_ref_of,
    meta,
    namespace_of,
    selecting_owners,
)
from podscale.controllers.statefulset.plan import plan_sync
from podscale.controllers.statefulset.pod_control import StatefulPodControl, claim_stateful_pods
from podscale.controllers.statefulset.status import status_needs_update
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "StatefulSetController"]

_LOG = logging.getLogger(__name__)
STATEFUL_SET: Final = kind_for("apps/v1", "StatefulSet")
POD: Final = kind_for("v1", "Pod")
COMPONENT: Final = "statefulset-controller"
_STATUS_ATTEMPTS: Final = 4  # RetryOnConflict with client-go's DefaultBackoff

JSON = dict[str, Any]


def _min_ready(sts: Mapping[str, Any]) -> int:
    return int((sts.get("spec") or {}).get("minReadySeconds") or 0)


class StatefulSetController:
    """Keeps each StatefulSet's ordinal pods in place; see the module docstring."""

    name: Final = "statefulset"
    workers_flag: Final = "concurrent_statefulset_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = (STATEFUL_SET, POD)

    def __init__(self, api: ControllerApi, clock: Clock) -> None:
        self._api = api
        self._clock = clock
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._pods = StatefulPodControl(api, self._recorder)
        self._queue: WorkQueue[str] | None = None
        self._set_lister: Lister | None = None
        self._pod_lister: Lister | None = None

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        set_informer = informers.informer_for(STATEFUL_SET)
        pod_informer = informers.informer_for(POD)
        self._queue = queue
        self._set_lister = set_informer.lister
        self._pod_lister = pod_informer.lister
        set_informer.add_handler(EventHandler(self._enqueue, self._update_set, self._enqueue))
        pod_informer.add_handler(EventHandler(self._add_pod, self._update_pod, self._delete_pod))

    def _bound(self) -> tuple[WorkQueue[str], Lister, Lister]:
        if self._queue is None or self._set_lister is None or self._pod_lister is None:
            raise RuntimeError("StatefulSetController used before bind()")
        return self._queue, self._set_lister, self._pod_lister

    def _enqueue(self, sts: JSON) -> None:
        self._bound()[0].add(object_key(sts))

    def _update_set(self, _old: JSON, new: JSON) -> None:
        self._enqueue(new)

    # -- pod events -------------------------------------------------------------------

    def _resolve(self, namespace: str, ref: Mapping[str, Any]) -> JSON | None:
        """The set ``ref`` names, if it is in the cache with that uid."""
        return cached_owner(self._bound()[1], "StatefulSet", namespace, ref)

    def _enqueue_matching(self, pod: Mapping[str, Any]) -> None:
        """Orphans: wake every set whose (non-empty) selector matches the pod's labels."""
        for sts in selecting_owners(self._bound()[1], pod):
            self._enqueue(sts)

    def _add_pod(self, pod: JSON) -> None:
        if meta(pod).get("deletionTimestamp"):
            self._delete_pod(pod)
            return
        ref = controller_ref_of(pod)
        if ref is None:
            self._enqueue_matching(pod)
            return
        sts = self._resolve(namespace_of(pod), ref)
        if sts is not None:
            self._enqueue(sts)

    def _update_pod(self, old: JSON, cur: JSON) -> None:
        if meta(old).get("resourceVersion") == meta(cur).get("resourceVersion"):
            return  # a resync: nothing changed
        labels_changed = meta(old).get("labels") != meta(cur).get("labels")
        cur_ref, old_ref = controller_ref_of(cur), controller_ref_of(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            previous = self._resolve(namespace_of(old), old_ref)
            if previous is not None:
                self._enqueue(previous)
        if cur_ref is not None:
            sts = self._resolve(namespace_of(cur), cur_ref)
            if sts is None:
                return
            self._enqueue(sts)
            if _min_ready(sts) > 0 and not is_pod_ready(old) and is_pod_ready(cur):
                # One second more, against skew with the second-precision transition time.
                delay = timedelta(seconds=_min_ready(sts) + 1)
                self._bound()[0].add_after(object_key(sts), delay)
            return
        if labels_changed or ref_changed:
            self._enqueue_matching(cur)

    def _delete_pod(self, pod: JSON) -> None:
        ref = controller_ref_of(pod)
        sts = self._resolve(namespace_of(pod), ref) if ref is not None else None
        if sts is not None:
            self._enqueue(sts)

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        """Upstream's ``sync`` for ``namespace/name``; raises to be retried."""
        queue, set_lister, pod_lister = self._bound()
        namespace, _, name = key.rpartition("/")
        cached = set_lister.get(namespace, name)
        if cached is None:
            return
        sts = copy.deepcopy(cached)
        try:
            selector_from_label_selector((sts.get("spec") or {}).get("selector"))
        except ValueError as err:
            _LOG.error("invalid selector of StatefulSet %s: %s", key, err)
            return  # retrying cannot fix the spec; the next update re-enqueues it
        pods = await claim_stateful_pods(self._api, sts, pod_lister.list(namespace))
        plan = plan_sync(sts, pods, now=self._clock.now())
        step_error: Exception | None = None
        for step in plan.steps:
            step_error = await self._pods.run_step(sts, step)
            if step_error is not None:
                break
        await self._write_status(sts, plan.status)
        if step_error is not None:
            raise step_error
        wanted = int((sts.get("spec") or {}).get("replicas", 1))
        if _min_ready(sts) > 0 and int(plan.status.get("availableReplicas") or 0) != wanted:
            queue.add_after(key, timedelta(seconds=_min_ready(sts)))

    async def _write_status(self, sts: JSON, status: JSON) -> None:
        """Replace the status through the subresource when it differs, retrying conflicts
        on a fresh copy."""
        current = sts
        for attempt in range(_STATUS_ATTEMPTS):
            if not status_needs_update(current.get("status") or {}, status):
                return
            body = copy.deepcopy(current)
            body["status"] = copy.deepcopy(status)
            try:
                await self._api.update(STATEFUL_SET, namespace_of(sts), body, "status")
                return
            except ApiError as err:
                if err.status != 409 or attempt + 1 >= _STATUS_ATTEMPTS:
                    raise
            current = await self._api.get(
                STATEFUL_SET, namespace_of(sts), str(meta(sts).get("name"))
            )
