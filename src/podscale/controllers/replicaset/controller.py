"""The ReplicaSet controller shell: informers and the API around the pure decisions.

Upstream's ``ReplicaSetController`` (pkg/controller/replicaset/replica_set.go, v1.35).
Handlers turn RS and pod events into ``namespace/name`` keys and keep ``Expectations``
current (a pod add observes a creation, a pod delete or terminating update observes a
deletion; orphans wake the ReplicaSets ``ownership.replica_sets_for_pod`` finds).
``reconcile`` is ``syncReplicaSet``: read the RS and its namespace's pods from the
listers, claim the active pods (``ownership``), create or delete toward ``spec.replicas``
(``decisions``) only when expectations are satisfied and the RS is not being deleted,
then write the status (``status``, with ``terminatingReplicas`` under the
``DeploymentReplicaSetTerminatingReplicas`` gate) through the ``status`` subresource only
when it changed, with one retry on a fresh copy. The pods the claim considers, the related
pods of the deletion ranking and that status write are ``sync_io``'s. A failed
create/delete is raised after the status write (the manager requeues with backoff);
otherwise, while ready pods wait out ``minReadySeconds``, the key is re-queued for when
the next one becomes available. Pod I/O (slow-start creation, parallel deletion, adoption
patches) lives in ``controllers.runtime_pods``. Run by
``podscale.controllers.manager.ControllerManager``.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Final

from podscale.api.json_copy import copy_json
from podscale.api.kinds import KindInfo, kind_for
from podscale.api.selectors import selector_from_label_selector
from podscale.client.cache import Lister, object_key
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.replicaset.decisions import (
    BURST_REPLICAS,
    filter_active_pods,
    plan_replicas,
)
from podscale.controllers.replicaset.expectations import Expectations
from podscale.controllers.replicaset.ordering import (
    CONTROLLER_DEFAULT_FEATURE_GATES,
    DEPLOYMENT_REPLICASET_TERMINATING_REPLICAS,
)
from podscale.controllers.replicaset.ownership import classify_ownership, replica_sets_for_pod
from podscale.controllers.replicaset.podstate import (
    is_pod_ready,
    is_pod_terminating,
    next_availability_check,
)
from podscale.controllers.replicaset.status import replica_set_status
from podscale.controllers.replicaset.sync_io import (
    claim_candidates,
    related_pods,
    update_replica_set_status,
)
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import cached_owner, controller_ref_of, meta, namespace_of
from podscale.controllers.runtime_pods import PodControl, claim_pods
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "ReplicaSetController"]

_LOG = logging.getLogger(__name__)
REPLICA_SET: Final = kind_for("apps/v1", "ReplicaSet")
POD: Final = kind_for("v1", "Pod")
COMPONENT: Final = "replicaset-controller"

JSON = dict[str, Any]


class ReplicaSetController:
    """Keeps each ReplicaSet's pods at ``spec.replicas``; see the module docstring."""

    name: Final = "replicaset"
    workers_flag: Final = "concurrent_replicaset_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = (REPLICA_SET, POD)

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        *,
        rng: random.Random | None = None,
        burst: int = BURST_REPLICAS,
        feature_gates: frozenset[str] = CONTROLLER_DEFAULT_FEATURE_GATES,
    ) -> None:
        self._api = api
        self._clock = clock
        self._burst = burst
        self._gates = feature_gates
        self.expectations = Expectations()
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._pods = PodControl(api, self._recorder, rng or random.Random())
        self._queue: WorkQueue[str] | None = None
        self._rs_lister: Lister | None = None
        self._pod_lister: Lister | None = None

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        rs_informer = informers.informer_for(REPLICA_SET)
        pod_informer = informers.informer_for(POD)
        self._queue = queue
        self._rs_lister = rs_informer.lister
        self._pod_lister = pod_informer.lister
        rs_informer.add_handler(EventHandler(self._add_rs, self._update_rs, self._delete_rs))
        pod_informer.add_handler(EventHandler(self._add_pod, self._update_pod, self._delete_pod))

    def _bound(self) -> tuple[WorkQueue[str], Lister, Lister]:
        if self._queue is None or self._rs_lister is None or self._pod_lister is None:
            raise RuntimeError("ReplicaSetController used before bind()")
        return self._queue, self._rs_lister, self._pod_lister

    # -- ReplicaSet events ------------------------------------------------------------

    def _add_rs(self, rs: JSON) -> None:
        self._bound()[0].add(object_key(rs))

    def _update_rs(self, old: JSON, new: JSON) -> None:
        if meta(old).get("uid") != meta(new).get("uid"):
            self._delete_rs(old)  # recreated under the same name: forget the old one
        self._bound()[0].add(object_key(new))

    def _delete_rs(self, rs: JSON) -> None:
        key = object_key(rs)
        self.expectations.delete(key)
        self._bound()[0].add(key)

    # -- pod events -------------------------------------------------------------------

    def _resolve_owner(self, pod: Mapping[str, Any], ref: Mapping[str, Any]) -> JSON | None:
        """The ReplicaSet ``ref`` names, if it is in the cache with that uid."""
        return cached_owner(self._bound()[1], "ReplicaSet", namespace_of(pod), ref)

    def _enqueue_matching(self, pod: Mapping[str, Any]) -> None:
        """Orphans: wake every ReplicaSet that might adopt the pod (``GetPodReplicaSets``)."""
        queue, rs_lister, _ = self._bound()
        for rs in replica_sets_for_pod(pod, rs_lister.list(namespace_of(pod))):
            queue.add(object_key(rs))

    def _add_pod(self, pod: JSON) -> None:
        if meta(pod).get("deletionTimestamp"):
            self._delete_pod(pod)  # seen first while terminating (e.g. after a restart)
            return
        ref = controller_ref_of(pod)
        if ref is None:
            self._enqueue_matching(pod)
            return
        rs = self._resolve_owner(pod, ref)
        if rs is not None:
            key = object_key(rs)
            self.expectations.creation_observed(key)
            self._bound()[0].add(key)

    def _update_pod(self, old: JSON, cur: JSON) -> None:
        if meta(old).get("resourceVersion") == meta(cur).get("resourceVersion"):
            return  # a resync: nothing changed
        labels_changed = meta(old).get("labels") != meta(cur).get("labels")
        if meta(cur).get("deletionTimestamp"):
            self._delete_pod(cur)
            if labels_changed:
                self._delete_pod(old)
            return
        queue = self._bound()[0]
        cur_ref, old_ref = controller_ref_of(cur), controller_ref_of(old)
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            previous = self._resolve_owner(old, old_ref)
            if previous is not None:
                queue.add(object_key(previous))
        if cur_ref is not None:
            rs = self._resolve_owner(cur, cur_ref)
            if rs is None:
                return
            key = object_key(rs)
            queue.add(key)
            min_ready = int((rs.get("spec") or {}).get("minReadySeconds") or 0)
            if min_ready > 0 and not is_pod_ready(old) and is_pod_ready(cur):
                # Re-check once the pod counts as available; current upstream waits exactly
                # minReadySeconds (availability includes the boundary; no extra second).
                queue.add_after(key, timedelta(seconds=min_ready))
            return
        if labels_changed or ref_changed:
            self._enqueue_matching(cur)

    def _delete_pod(self, pod: JSON) -> None:
        ref = controller_ref_of(pod)
        rs = self._resolve_owner(pod, ref) if ref is not None else None
        if rs is not None:
            key = object_key(rs)
            self.expectations.deletion_observed(key, object_key(pod))
            self._bound()[0].add(key)

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        """Upstream's ``syncReplicaSet`` for ``namespace/name``; raises to be retried."""
        queue, rs_lister, pod_lister = self._bound()
        namespace, _, name = key.rpartition("/")
        cached = rs_lister.get(namespace, name)
        if cached is None:
            self.expectations.delete(key)
            return
        rs = copy_json(cached)
        needs_sync = self.expectations.satisfied(key, now=self._clock.now())
        try:
            selector = selector_from_label_selector((rs.get("spec") or {}).get("selector"))
        except ValueError as err:
            _LOG.error("invalid selector of ReplicaSet %s: %s", key, err)
            return  # retrying cannot fix the spec; the next update re-enqueues it
        pods = claim_candidates(pod_lister, namespace, selector, str(meta(rs).get("uid") or ""))
        claimed = await claim_pods(self._api, rs, filter_active_pods(pods))
        count_terminating = DEPLOYMENT_REPLICASET_TERMINATING_REPLICAS in self._gates
        # Upstream's FilterClaimedPods: terminating pods are counted, never claimed.
        terminating = (
            [p for p in pods if is_pod_terminating(p) and classify_ownership(rs, p) == "owned"]
            if count_terminating
            else []
        )
        manage_error: Exception | None = None
        if needs_sync and not meta(rs).get("deletionTimestamp"):
            manage_error = await self._manage_replicas(key, rs, claimed)
        evaluated_at = self._clock.now()
        status = replica_set_status(
            rs,
            [*claimed, *terminating],
            now=evaluated_at,
            manage_error=None if manage_error is None else str(manage_error),
            count_terminating=count_terminating,
        )
        updated = await update_replica_set_status(self._api, rs, status)
        if manage_error is not None:
            raise manage_error
        min_ready = int((updated.get("spec") or {}).get("minReadySeconds") or 0)
        new_status = updated.get("status") or {}
        ready = int(new_status.get("readyReplicas") or 0)
        if min_ready > 0 and ready != int(new_status.get("availableReplicas") or 0):
            # Last line of defence against a missed pod event: re-check when the next pod
            # becomes available (FindMinNextPodAvailabilityCheck), else after minReadySeconds.
            delay = next_availability_check(claimed, min_ready, evaluated_at, self._clock.now())
            queue.add_after(key, timedelta(seconds=min_ready) if delay is None else delay)

    async def _manage_replicas(self, key: str, rs: JSON, claimed: list[JSON]) -> Exception | None:
        """Create or delete pods toward ``spec.replicas``; the first error, if any."""
        now = self._clock.now()
        _, rs_lister, pod_lister = self._bound()
        plan = plan_replicas(
            rs,
            claimed,
            now=now,
            burst=self._burst,
            related_pods=related_pods(rs, rs_lister, pod_lister),
            feature_gates=self._gates,
        )
        if plan.to_create > 0:
            self.expectations.expect_creations(key, plan.to_create, now=now)
            created, error = await self._pods.create_pods(rs, plan.to_create)
            for _ in range(plan.to_create - created):
                self.expectations.creation_observed(key)  # never attempted or failed
            return error
        if plan.to_delete:
            pod_keys = [object_key(pod) for pod in plan.to_delete]
            self.expectations.expect_deletions(key, pod_keys, now=now)
            failed, error = await self._pods.delete_pods(rs, plan.to_delete)
            for pod_key in failed:
                self.expectations.deletion_observed(key, pod_key)
            return error
        return None
