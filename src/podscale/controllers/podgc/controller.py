"""The pod GC controller: force-deletes the pods of nodes that no longer exist.

Upstream's PodGCController (pkg/controller/podgc) runs one pass every 20 s over the pod and
node informers; podscale implements its orphaned-pod part (gcOrphaned), the one a deleted
Node needs: a pod bound to a node the informer does not know is quarantined 40 s, then the
node is looked up with a live GET, and if it is really gone every pod bound to it is
written as Failed with the ``DisruptionTarget`` condition (reason ``DeletionByPodGC``) and
deleted with grace period 0, as its kubelet is no longer there to finish it. The owners
(ReplicaSet, StatefulSet) then replace the pods on the remaining nodes. The decisions are
the pure ``orphans`` module; this shell reads the listers, does the GETs and writes. A pass
lists the pods only when one could be an orphan (``orphans.pass_has_work`` over the nodes
``bound_nodes.BoundNodes`` follows from the pod informer's events); otherwise it would find
nothing, and the pass is the same without the list.

As a ``Controller`` of ``podscale.controllers.manager`` it has one key, re-armed every
``GC_CHECK_PERIOD`` on the work queue's clock (after a failed pass too), so it runs on
virtual time unchanged. The passes for terminated pods above a threshold, terminating pods
on out-of-service nodes and unscheduled terminating pods are not implemented.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.cache import Lister
from podscale.client.http import ApiError
from podscale.client.workqueue import WorkQueue
from podscale.controllers.podgc.bound_nodes import BoundNodes
from podscale.controllers.podgc.orphans import (
    failed_status,
    node_name_of,
    orphaned_pods,
    pass_has_work,
    quarantine_missing_nodes,
)
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.store.interface import Clock, Preconditions
from podscale.store.objects import format_timestamp

__all__ = ["GC_CHECK_PERIOD", "QUARANTINE_TIME", "PodGarbageCollectorController"]

_LOG = logging.getLogger(__name__)
JSON = dict[str, Any]
POD: Final = kind_for("v1", "Pod")
NODE: Final = kind_for("v1", "Node")
# Upstream's gcCheckPeriod and quarantineTime.
GC_CHECK_PERIOD: Final = timedelta(seconds=20)
QUARANTINE_TIME: Final = timedelta(seconds=40)
_KEY: Final = "gc"


class PodGarbageCollectorController:
    """Deletes orphaned pods; see the module docstring."""

    name: Final = "podgc"
    workers_flag: Final = "concurrent_podgc_syncs"  # no such flag: one worker, as upstream
    informer_kinds: Final[Sequence[KindInfo]] = (POD, NODE)

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        *,
        period: timedelta = GC_CHECK_PERIOD,
        quarantine: timedelta = QUARANTINE_TIME,
    ) -> None:
        self._api = api
        self._clock = clock
        self._period = period
        self._quarantine = quarantine
        self._quarantined: dict[str, datetime] = {}
        self._queue: WorkQueue[str] | None = None
        self._pods: Lister | None = None
        self._nodes: Lister | None = None
        self._bound = BoundNodes()

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        pods = informers.informer_for(POD)
        self._pods = pods.lister
        pods.add_handler(self._bound.handler())
        self._nodes = informers.informer_for(NODE).lister
        queue.add(_KEY)  # the first pass once the caches have synced

    async def reconcile(self, key: str) -> None:
        if self._queue is None or self._pods is None or self._nodes is None:
            raise RuntimeError("PodGarbageCollectorController used before bind()")
        try:
            await self._collect_orphans(self._pods, self._nodes)
        finally:
            self._queue.add_after(_KEY, self._period)

    async def _collect_orphans(self, pod_lister: Lister, node_lister: Lister) -> None:
        existing = {str(node["metadata"]["name"]) for node in node_lister.list()}
        if not pass_has_work(self._quarantined, self._bound.nodes(), existing):
            self._quarantined = {}
            return
        pods = pod_lister.list()
        self._quarantined, due = quarantine_missing_nodes(
            self._quarantined,
            (node_name_of(pod) for pod in pods),
            existing,
            self._clock.now(),
            self._quarantine,
        )
        gone = {node for node in due if not await self._node_exists(node)}
        for pod in orphaned_pods(pods, gone):
            await self._delete_orphan(pod)

    async def _node_exists(self, name: str) -> bool:
        try:
            await self._api.get(NODE, None, name)
        except ApiError as err:
            if err.status == 404:
                return False
            # Upstream logs and leaves the node for a later pass.
            _LOG.warning("error while getting node %s: %s", name, err)
        return True

    async def _delete_orphan(self, pod: JSON) -> None:
        metadata = pod["metadata"]
        namespace, name = str(metadata.get("namespace", "")), str(metadata["name"])
        uid = metadata.get("uid")
        _LOG.info(
            "found orphaned pod %s/%s assigned to node %s, deleting",
            namespace,
            name,
            node_name_of(pod),
        )
        try:
            status = failed_status(pod, format_timestamp(self._clock.now()))
            if status is not None:
                await self._api.update(POD, namespace, {**pod, "status": status}, "status")
            await self._api.delete(
                POD,
                namespace,
                name,
                preconditions=Preconditions(uid=str(uid)) if uid else None,
                grace_period_seconds=0,
            )
        except ApiError as err:
            # One pod's failure does not stop the others (upstream: HandleError); a pod
            # that is still there is found again on a later pass.
            if err.status != 404:
                _LOG.warning("failed to delete orphaned pod %s/%s: %s", namespace, name, err)
