"""KEDA's operator for ScaledObjects: the controller that wires its two halves to one queue.

``ScaledObjectController`` watches the ScaledObject CRD (the ScaledObject informer opens once
it is established, ``webapp.definition_gate``), ScaledObjects and the HPAs they own, and
queues two kinds of work items keyed by the ScaledObject's ``namespace/name``:

- the reconcile (KEDA's ``ScaledObjectReconciler``, ``reconciler``), on every ScaledObject
  event that changes its generation, labels, annotations, finalizers or deletion, and every
  change of its generated HPA's spec, labels or annotations;
- the scale loop (KEDA's ``ScaleHandler`` loop, ``scale_loop.ScaleLoop``), under
  ``poll:<namespace/name>``, every ``pollingInterval`` on the injected clock.

Both write the ScaledObject's status, events (as ``keda-operator``) and metadata through
``writes``; the admission checks of the reconcile read the other ScaledObjects and HPAs from
this controller's informers. The metrics server's part (the generated HPA reading
``s<i>-...`` external metrics) is ``adapter.KedaMetricsAdapter`` over the same
``handler.ScaleHandler``, routed by the ``scaledobject.keda.sh/name`` selector through the
plane's ``ExternalMetricsRouter`` (``ControllerContext.external_metrics_routes``).
Registered in ``controllers.registry``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import httpx

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.metricsapis.providers import ExternalMetricsProvider
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.client.cache import object_key
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.keda.adapter import KedaMetricsAdapter
from podscale.controllers.keda.generated import SCALED_OBJECT_LABEL
from podscale.controllers.keda.handler import ScaleHandler
from podscale.controllers.keda.kind import COMPONENT, CRD_NAME, SCALED_OBJECT
from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.reconciler import HPA, ScaledObjectReconciler
from podscale.controllers.keda.scale_loop import POLL, ScaleLoop
from podscale.controllers.keda.scalers.base import PodMetricsReader, ScalerEnv
from podscale.controllers.keda.target import ScaleTargetClient
from podscale.controllers.keda.types import ScaledObject, ScaledObjectError
from podscale.controllers.keda.writes import FINALIZER, ScaledObjectWrites
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import meta
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.store.interface import Clock

__all__ = ["FINALIZER", "SCALED_OBJECT_LABEL", "ScaledObjectController"]

JSON = dict[str, Any]
CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")


class ScaledObjectController:
    """Runs KEDA ScaledObjects; see the module docstring."""

    name: Final = "keda"
    workers_flag: Final = "concurrent_keda_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = (CRD, HPA)

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        *,
        routes: ExternalMetricsRouter | None = None,
        external: ExternalMetricsProvider | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        pod_metrics: PodMetricsReader | None = None,
    ) -> None:
        self._api = api
        self._pod_metrics = pod_metrics
        self._clock = clock
        self._external = external if external is not None else _fallback_of(routes)
        self._transport = transport
        self._source = GatedListWatcher(api, SCALED_OBJECT)
        self._targets = ScaleTargetClient(api)
        self.handler = ScaleHandler(clock, self._env, self._current_replicas)
        self._writes = ScaledObjectWrites(api, EventRecorder(api, clock, COMPONENT))
        self._loop = ScaleLoop(api, clock, self.handler, self._targets, self._writes, self._bound)
        self._reconciler = ScaledObjectReconciler(
            api,
            targets=self._targets,
            handler=self.handler,
            loop=self._loop,
            writes=self._writes,
            others=self._other_scaled_objects,
            hpas=self._hpas,
        )
        if routes is not None:
            routes.route(SCALED_OBJECT_LABEL, KedaMetricsAdapter(self.handler, clock))
        self._queue: WorkQueue[str] | None = None
        self._informers: SharedInformers | None = None

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        self._informers = informers
        informers.informer_for(CRD).add_handler(
            EventHandler(self._crd_seen, lambda _old, new: self._crd_seen(new))
        )
        informers.informer_for(SCALED_OBJECT, self._source).add_handler(
            EventHandler(self._enqueue, self._updated, self._enqueue)
        )
        informers.informer_for(HPA).add_handler(
            EventHandler(self._owner, self._hpa_updated, self._owner)
        )

    def _bound(self) -> WorkQueue[str]:
        if self._queue is None:
            raise RuntimeError("ScaledObjectController used before bind()")
        return self._queue

    def _crd_seen(self, crd: JSON) -> None:
        if meta(crd).get("name") == CRD_NAME and established(crd):
            self._source.open()

    def _enqueue(self, obj: JSON) -> None:
        self._bound().add(object_key(obj))

    def _updated(self, old: JSON, new: JSON) -> None:
        # KEDA reconciles on generation, label, annotation and finalizer changes, not on
        # its own status writes (which would otherwise loop).
        if _watched(old) != _watched(new):
            self._enqueue(new)

    def _hpa_updated(self, old: JSON, new: JSON) -> None:
        if old.get("spec") != new.get("spec") or _labels_annotations(old) != _labels_annotations(
            new
        ):
            self._owner(new)

    def _owner(self, obj: JSON) -> None:
        for ref in meta(obj).get("ownerReferences") or ():
            if ref.get("kind") == SCALED_OBJECT.kind and ref.get("controller"):
                self._bound().add(f"{meta(obj).get('namespace')}/{ref.get('name')}")

    def _env(self, namespace: str, pod_selector: str | None) -> ScalerEnv:
        return ScalerEnv(
            api=self._api,
            namespace=namespace,
            pod_selector=pod_selector,
            external=self._external,
            transport=self._transport,
            pod_metrics=self._pod_metrics,
        )

    async def _current_replicas(self, so: ScaledObject) -> int:
        return await self._targets.replicas(so.namespace, so.scale_target)

    # -- work -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        if key.startswith(POLL):
            await self._loop.poll(key[len(POLL) :])
        else:
            await self._reconciler.reconcile(key)

    # -- what the admission checks read --------------------------------------------------

    def _other_scaled_objects(self, so: ScaledObject) -> list[ScaledObject]:
        if self._informers is None:
            return []
        informer = self._informers.informer_for(SCALED_OBJECT, self._source)
        others: list[ScaledObject] = []
        for item in informer.lister.list(so.namespace):
            if meta(item).get("deletionTimestamp"):
                continue
            try:
                others.append(parse_scaled_object(item))
            except ScaledObjectError:
                continue
        return others

    def _hpas(self, namespace: str) -> list[JSON]:
        if self._informers is None:
            return []
        return self._informers.informer_for(HPA).lister.list(namespace)


def _fallback_of(routes: ExternalMetricsRouter | None) -> ExternalMetricsProvider | None:
    return None if routes is None else routes.fallback


def _watched(obj: Mapping[str, Any]) -> tuple[Any, ...]:
    m = meta(obj)
    return (
        m.get("generation"),
        m.get("labels"),
        m.get("annotations"),
        m.get("finalizers"),
        m.get("deletionTimestamp"),
    )


def _labels_annotations(obj: Mapping[str, Any]) -> tuple[Any, Any]:
    return (meta(obj).get("labels"), meta(obj).get("annotations"))
