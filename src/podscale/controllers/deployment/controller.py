"""The Deployment controller shell: informers, event handlers and the per-key sync.

Upstream's ``DeploymentController`` (pkg/controller/deployment/deployment_controller.go).
Handlers turn Deployment, ReplicaSet and pod events into the owning Deployment's
``namespace/name`` key: a ReplicaSet by its controller ownerReference (an orphan wakes
every Deployment whose selector matches it, so it can be adopted); a deleted pod only
matters to a Recreate Deployment, which waits for its old pods to be gone.

``reconcile`` is ``syncDeployment``: read the Deployment from the lister, list the
ReplicaSets it could claim, then ``strategies.sync_claimed`` claims them (``claim``) and, in
upstream's order: a Deployment being deleted only reports status; pause/resume records its
condition; paused or a scaling event -> ``strategies.sync_scaling``; otherwise
``rollout_rolling`` or ``rollout_recreate``. The steps and writes live in ``strategies``
and ``sync``; the decisions in the pure modules of this package. A stalled rollout
requeues itself for its progress deadline with ``add_after`` so the deadline fires on the
injected (possibly virtual) clock; a sync that only asked for a rate-limited look again is
repeated without the work while its objects stay the same (``quiet``). Run by
``podscale.controllers.manager.ControllerManager``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Final, cast

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
from podscale.api.kinds import KindInfo, kind_for
from podscale.api.selector_model import Selector
from podscale.api.selectors import selector_from_label_selector
from podscale.client.cache import Lister, object_key
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.deployment.fenceposts import RECREATE
from podscale.controllers.deployment.quiet import CallCounter, QuietSyncs, quiet_outcome
from podscale.controllers.deployment.strategies import sync_claimed
from podscale.controllers.deployment.sync import SyncMemo, wire_status
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import (
    cached_owner,
    controller_ref_of,
    meta,
    namespace_of,
    selecting_owners,
)
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "DeploymentController"]

_LOG = logging.getLogger(__name__)
DEPLOYMENT: Final = kind_for("apps/v1", "Deployment")
REPLICA_SET: Final = kind_for("apps/v1", "ReplicaSet")
POD: Final = kind_for("v1", "Pod")
COMPONENT: Final = "deployment-controller"
# Upstream adds a second to the deadline requeue against clock skew in AddAfter.
_DEADLINE_SLACK: Final = timedelta(seconds=1)

JSON = dict[str, Any]


def _claimable(rs: Mapping[str, Any], uid: object, selector: Selector) -> bool:
    ref = controller_ref_of(rs)
    if ref is not None:
        return bool(ref.get("uid") == uid)
    return selector.matches(meta(rs).get("labels") or {})


class DeploymentController:
    """Rolls Deployments out through ReplicaSets; see the module docstring."""

    name: Final = "deployment"
    workers_flag: Final = "concurrent_deployment_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = (DEPLOYMENT, REPLICA_SET, POD)

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        *,
        feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES,
    ) -> None:
        self._api = api
        self._clock = clock
        # No Deployment behaviour depends on a gate yet; kept for the manager's uniform wiring.
        self._gates = feature_gates
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._queue: WorkQueue[str] | None = None
        self._listers: tuple[Lister, Lister, Lister] | None = None
        # What ReplicaSet versions read as and which one is new, shared by all syncs
        # (``sync.SyncMemo``; each memo is exact); deleted objects are forgotten.
        self._memo = SyncMemo()
        self._quiet = QuietSyncs()

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        deployments = informers.informer_for(DEPLOYMENT)
        replica_sets = informers.informer_for(REPLICA_SET)
        pods = informers.informer_for(POD)
        self._queue = queue
        self._listers = (deployments.lister, replica_sets.lister, pods.lister)
        deployments.add_handler(
            EventHandler(self._enqueue, self._update_deployment, self._delete_deployment)
        )
        replica_sets.add_handler(EventHandler(self._add_rs, self._update_rs, self._delete_rs))
        pods.add_handler(EventHandler(on_delete=self._delete_pod))

    def _bound(self) -> tuple[WorkQueue[str], Lister, Lister, Lister]:
        if self._queue is None or self._listers is None:
            raise RuntimeError("DeploymentController used before bind()")
        return (self._queue, *self._listers)

    def _enqueue(self, deployment: JSON) -> None:
        self._bound()[0].add(object_key(deployment))

    def _update_deployment(self, old: JSON, cur: JSON) -> None:
        self._enqueue(cur)

    def _delete_deployment(self, deployment: JSON) -> None:
        self._memo.forget_deployment(meta(deployment).get("uid"))
        self._enqueue(deployment)

    # -- ReplicaSet events ------------------------------------------------------------

    def _resolve(self, namespace: str, ref: Mapping[str, Any]) -> JSON | None:
        """The Deployment a controller ref names, if cached with that uid."""
        return cached_owner(self._bound()[1], "Deployment", namespace, ref)

    def _matching_deployments(self, rs: Mapping[str, Any]) -> list[JSON]:
        """Deployments whose (non-empty) selector matches an orphan ReplicaSet's labels."""
        return selecting_owners(self._bound()[1], rs)

    def _add_rs(self, rs: JSON) -> None:
        if meta(rs).get("deletionTimestamp"):
            self._delete_rs(rs)  # seen first while being deleted (e.g. after a restart)
            return
        ref = controller_ref_of(rs)
        if ref is not None:
            deployment = self._resolve(namespace_of(rs), ref)
            if deployment is not None:
                self._enqueue(deployment)
            return
        for deployment in self._matching_deployments(rs):
            self._enqueue(deployment)

    def _update_rs(self, old: JSON, cur: JSON) -> None:
        if meta(old).get("resourceVersion") == meta(cur).get("resourceVersion"):
            return  # a resync: nothing changed
        cur_ref, old_ref = controller_ref_of(cur), controller_ref_of(old)
        if cur_ref != old_ref and old_ref is not None:
            previous = self._resolve(namespace_of(old), old_ref)
            if previous is not None:
                self._enqueue(previous)
        if cur_ref is not None:
            deployment = self._resolve(namespace_of(cur), cur_ref)
            if deployment is not None:
                self._enqueue(deployment)
            return
        if cur_ref != old_ref or meta(old).get("labels") != meta(cur).get("labels"):
            for deployment in self._matching_deployments(cur):
                self._enqueue(deployment)

    def _delete_rs(self, rs: JSON) -> None:
        self._memo.forget_replica_set(meta(rs).get("uid"))
        ref = controller_ref_of(rs)
        deployment = None if ref is None else self._resolve(namespace_of(rs), ref)
        if deployment is not None:
            self._enqueue(deployment)

    # -- pod events -------------------------------------------------------------------

    def _delete_pod(self, pod: JSON) -> None:
        """A Recreate Deployment waits for its old pods: wake it once none is left."""
        _, _, rs_lister, pod_lister = self._bound()
        ref = controller_ref_of(pod)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        rs = rs_lister.get(namespace_of(pod), str(ref.get("name")))
        if rs is None or meta(rs).get("uid") != ref.get("uid"):
            return
        rs_ref = controller_ref_of(rs)
        deployment = None if rs_ref is None else self._resolve(namespace_of(pod), rs_ref)
        if deployment is None:
            return
        strategy = ((deployment.get("spec") or {}).get("strategy") or {}).get("type")
        if strategy != RECREATE:
            return
        owned = {
            meta(other).get("uid")
            for other in rs_lister.list(namespace_of(pod))
            if (controller_ref_of(other) or {}).get("uid") == meta(deployment).get("uid")
        }
        left = [
            p
            for p in pod_lister.list(namespace_of(pod))
            if (controller_ref_of(p) or {}).get("uid") in owned
        ]
        if not left:
            self._enqueue(deployment)

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        """Upstream's ``syncDeployment`` for ``namespace/name``; raises to be retried."""
        queue, deployment_lister, rs_lister, pod_lister = self._bound()
        namespace, _, name = key.rpartition("/")
        cached = deployment_lister.get(namespace, name)
        if cached is None:
            self._quiet.forget(key)
            return  # deleted: the garbage collector removes its ReplicaSets
        changes = rs_lister.changes
        if self._quiet.unchanged(key, cached, changes):
            # The same Deployment and not one ReplicaSet changed since a sync that only
            # asked to look again: the same claimable ReplicaSets, the same outcome (``quiet``).
            queue.add_rate_limited(key)
            return
        # A shallow copy: the sync only reads the cached object's nested dicts and
        # replaces (copy-on-write, ``sync.DeploymentSync``) whatever it changes.
        deployment = dict(cached)
        deployment.setdefault("apiVersion", "apps/v1")
        deployment.setdefault("kind", "Deployment")
        spec = deployment.get("spec") or {}
        if not spec.get("selector"):
            await self._refuse_selecting_all(deployment)
            return
        try:
            selector = selector_from_label_selector(spec.get("selector"))
        except ValueError as err:
            raise ValueError(f"deployment {key} has invalid label selector: {err}") from None
        # Only ReplicaSets this Deployment controls or could adopt (orphans its selector
        # matches) matter to the claim: copying every ReplicaSet of the namespace made each
        # sync O(namespace), quadratic over a namespace of many Deployments. They are not
        # copied: the sync never changes a ReplicaSet dict, it sends changed copies.
        uid = meta(deployment).get("uid")
        candidates = [rs for rs in rs_lister.list(namespace) if _claimable(rs, uid, selector)]
        if self._quiet.repeats(key, cached, candidates):
            # The same objects as a sync that only asked to look again (``quiet``); the
            # next repeat can skip the listing while the ReplicaSet cache stays as now.
            self._quiet.remember(key, cached, candidates, changes)
            queue.add_rate_limited(key)
            return
        api, recorder = CallCounter(self._api), CallCounter(self._recorder)
        sync, rolling = await sync_claimed(
            cast(ControllerApi, api),
            cast(EventRecorder, recorder),
            deployment,
            candidates,
            pod_lister=pod_lister,
            clock=self._clock,
            memo=self._memo,
        )
        quiet = rolling and sync.requeue == 0.0 and api.calls == 0 and recorder.calls == 0
        if quiet and quiet_outcome(cached):
            self._quiet.remember(key, cached, candidates, changes)
        else:
            self._quiet.forget(key)
        if sync.requeue is not None:
            if sync.requeue == 0.0:
                queue.add_rate_limited(key)
            else:
                queue.add_after(key, timedelta(seconds=sync.requeue) + _DEADLINE_SLACK)

    async def _refuse_selecting_all(self, deployment: JSON) -> None:
        """An empty selector would select every pod: warn, record the generation, stop."""
        await self._recorder.record(
            deployment,
            "Warning",
            "SelectingAll",
            "This deployment is selecting all pods. A non-empty selector is required.",
        )
        status = dict(deployment.get("status") or {})
        generation = int(meta(deployment).get("generation") or 0)
        if int(status.get("observedGeneration") or 0) < generation:
            status["observedGeneration"] = generation
            deployment["status"] = wire_status(status)
            await self._api.update(DEPLOYMENT, namespace_of(deployment), deployment, "status")
