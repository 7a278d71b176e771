"""The WebApp controller shell: informers, event handlers and the per-key sync.

The example operator's control loop, shaped like the workload controllers
(``deployment.controller``): WebApp events enqueue the WebApp's ``namespace/name``; a
ReplicaSet event enqueues the WebApp its controller ownerReference names (or, for a
ReplicaSet nobody controls, the WebApp of the same name, which then reports the conflict).
``reconcile`` reads the WebApp from the lister and asks ``decisions`` what to write: create
its ReplicaSet, patch it to the WebApp's replicas and template, and write the status it
reports (through the ``status`` subresource, only when it changed). A WebApp being deleted
is left to the garbage collector, which removes its ReplicaSet by the ownerReference.

The WebApp informer's source is a ``definition_gate.GatedListWatcher``: the controller runs
whether or not the CRD is installed (on by default in ``podscale up`` and every embedded
plane) and starts seeing WebApps once a CRD informer event says
``webapps.examples.podscale.dev`` is Established. Run by
``podscale.controllers.manager.ControllerManager``; registered in ``controllers.registry``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from podscale.api.json_copy import copy_json
from podscale.api.kinds import KindInfo, kind_for
from podscale.client.cache import Lister, object_key
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import controller_ref_of, meta, namespace_of
from podscale.controllers.webapp.decisions import (
    REASON_CREATED,
    REASON_NOT_OWNED,
    desired_replica_set,
    desired_status,
    is_controlled_by,
    not_owned_message,
    replica_set_patch,
)
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.controllers.webapp.kind import CRD_NAME, GROUP, KIND, WEBAPP
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "WebAppController"]

CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
REPLICA_SET: Final = kind_for("apps/v1", "ReplicaSet")
COMPONENT: Final = "webapp-controller"
_MERGE_PATCH: Final = "application/merge-patch+json"

JSON = dict[str, Any]


class WebAppController:
    """Runs each WebApp as one owned ReplicaSet; see the module docstring."""

    name: Final = "webapp"
    workers_flag: Final = "concurrent_webapp_syncs"
    # The WebApp informer is made in ``bind`` with its CRD-gated source.
    informer_kinds: Final[Sequence[KindInfo]] = (CRD, REPLICA_SET)

    def __init__(self, api: ControllerApi, clock: Clock) -> None:
        self._api = api
        self._clock = clock
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._source = GatedListWatcher(api, WEBAPP)
        self._queue: WorkQueue[str] | None = None
        self._listers: tuple[Lister, Lister] | None = None

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        webapps = informers.informer_for(WEBAPP, self._source)
        replica_sets = informers.informer_for(REPLICA_SET)
        self._queue = queue
        self._listers = (webapps.lister, replica_sets.lister)
        informers.informer_for(CRD).add_handler(
            EventHandler(self._crd_seen, lambda _old, new: self._crd_seen(new))
        )
        webapps.add_handler(
            EventHandler(self._enqueue, lambda _old, new: self._enqueue(new), self._enqueue)
        )
        replica_sets.add_handler(
            EventHandler(self._rs_event, lambda _old, new: self._rs_event(new), self._rs_event)
        )

    def _bound(self) -> tuple[WorkQueue[str], Lister, Lister]:
        if self._queue is None or self._listers is None:
            raise RuntimeError("WebAppController used before bind()")
        return (self._queue, *self._listers)

    def _crd_seen(self, crd: JSON) -> None:
        if meta(crd).get("name") == CRD_NAME and established(crd):
            self._source.open()

    def _enqueue(self, webapp: JSON) -> None:
        self._bound()[0].add(object_key(webapp))

    def _rs_event(self, rs: JSON) -> None:
        ref = controller_ref_of(rs)
        if ref is None:
            name = str(meta(rs).get("name") or "")
        elif ref.get("kind") == KIND and str(ref.get("apiVersion", "")).startswith(f"{GROUP}/"):
            name = str(ref.get("name") or "")
        else:
            return
        if self._bound()[1].get(namespace_of(rs), name) is not None:
            self._bound()[0].add(f"{namespace_of(rs)}/{name}")

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        """Bring the WebApp's ReplicaSet and status to what its spec says; raises to retry."""
        _, webapps, replica_sets = self._bound()
        namespace, _, name = key.rpartition("/")
        cached = webapps.get(namespace, name)
        if cached is None or meta(cached).get("deletionTimestamp"):
            return  # gone or going: the garbage collector removes its ReplicaSet
        webapp = copy_json(cached)
        replica_set = replica_sets.get(namespace, name)
        if replica_set is None:
            replica_set = await self._create(webapp)
        elif not is_controlled_by(replica_set, webapp):
            await self._recorder.record(
                webapp, "Warning", REASON_NOT_OWNED, not_owned_message(webapp)
            )
            replica_set = None
        else:
            patch = replica_set_patch(webapp, replica_set)
            if patch is not None:
                replica_set = await self._api.patch(
                    REPLICA_SET, namespace, name, patch, content_type=_MERGE_PATCH
                )
        await self._write_status(webapp, replica_set)

    async def _create(self, webapp: JSON) -> JSON | None:
        try:
            created = await self._api.create(
                REPLICA_SET, namespace_of(webapp), desired_replica_set(webapp)
            )
        except ApiError as err:
            if err.status == 409:
                return None  # the cache was behind: the ReplicaSet's event comes next
            raise
        await self._recorder.record(
            webapp,
            "Normal",
            REASON_CREATED,
            f"Created ReplicaSet {meta(created).get('name')} with "
            f"{(created.get('spec') or {}).get('replicas')} replicas",
        )
        return created

    async def _write_status(self, webapp: JSON, replica_set: Mapping[str, Any] | None) -> None:
        status = desired_status(webapp, replica_set)
        current = webapp.get("status") or {}
        if all(current.get(field) == value for field, value in status.items()):
            return
        await self._api.patch(
            WEBAPP,
            namespace_of(webapp),
            str(meta(webapp).get("name")),
            {"status": status},
            content_type=_MERGE_PATCH,
            subresource="status",
        )
