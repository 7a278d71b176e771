"""KEDA's metrics server apart from its operator: every ScaledObject's scalers, in every replica.

``podscale controller-manager`` runs KEDA's operator (``controller``) only in the replica
that holds the Lease, but the cluster's APIService sends the generated HPAs' external
metric reads to any ready replica behind its Service. KEDA's own metrics server up to 2.8
(``keda-operator-metrics-apiserver``, a Deployment of its own) answered them without the
operator: it listed the ScaledObject named by the read's selector and built its scalers
itself. From 2.9 it forwards each read over gRPC to the operator's ``metricsservice``, a
runnable that only the leading operator starts, so there a read waits for the leader.
podscale replicas cannot reach one another (the Lease names an identity, not an address),
so they follow the first design: ``KedaMetricsServer`` is a controller the controller
manager runs outside leader election, over its own ScaledObject informer, keeping a
``handler.ScaleHandler`` with an entry per ScaledObject (built with ``put`` from the
object's triggers, rebuilt when its generation moves, dropped on deletion), with no scale
loop and no writes: the operator's loop stays the only writer of the ScaledObject's
status. Its reads still count towards each metric's fallback health in memory, and the
health the leader's loop records in ``status.health`` is adopted whenever it changes, so a
follower falls back exactly when the leader's loop has seen the failures.

``trigger_specs`` turns a ScaledObject's triggers (and scaling modifiers) into what
``ScaleHandler.put`` takes; the operator's reconcile uses it too. ``FirstSource`` serves
a read from the first handler that knows its ScaledObject: in the leading replica, the
operator's (with its loop's cached readings for ``useCachedMetrics``), elsewhere this one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import httpx

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.metricsapis.providers import ExternalMetricsProvider
from podscale.client.cache import object_key
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.keda.formula import Formula, FormulaError, compile_formula
from podscale.controllers.keda.handler import ScaleHandler
from podscale.controllers.keda.kind import CRD_NAME, SCALED_OBJECT
from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.scalers.base import PodMetricsReader, ScalerEnv
from podscale.controllers.keda.target import ScaleTargetClient
from podscale.controllers.keda.triggers.registry import parse_trigger
from podscale.controllers.keda.triggers.spec import TriggerError, TriggerSpec
from podscale.controllers.keda.types import ScaledObject, ScaledObjectError
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_owners import meta
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.store.interface import Clock

__all__ = ["FirstSource", "KedaMetricsServer", "trigger_specs"]

JSON = dict[str, Any]
CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")


def trigger_specs(so: ScaledObject) -> tuple[tuple[TriggerSpec, ...], Formula | None]:
    """The ScaledObject's parsed triggers and, with scaling modifiers, its formula.
    Raises ``TriggerError`` (bad trigger metadata) or ``FormulaError`` (a formula KEDA's
    webhook refuses)."""
    specs: list[TriggerSpec] = []
    for index, trigger in enumerate(so.triggers):
        raw: JSON = {
            "type": trigger.type,
            "name": trigger.name,
            "metricType": trigger.metric_type,
            "useCachedMetrics": trigger.use_cached_metrics,
            "metadata": dict(trigger.metadata),
        }
        specs.append(parse_trigger(index, raw, namespace=so.namespace))
    mods = so.advanced.scaling_modifiers
    if not mods.in_use:
        return tuple(specs), None
    return tuple(specs), compile_formula(mods.formula, [s.name for s in specs if s.name])


class FirstSource:
    """An ``adapter.MetricsSource`` over handlers in order: a read goes to the first one
    with an entry for its ScaledObject (the last one answers when none has)."""

    def __init__(self, handlers: Sequence[ScaleHandler]) -> None:
        if not handlers:
            raise ValueError("FirstSource needs at least one handler")
        self._handlers = tuple(handlers)

    async def metric_value(self, namespace: str, scaled_object: str, metric_name: str) -> float:
        key = f"{namespace}/{scaled_object}"
        chosen = next((h for h in self._handlers if h.entry(key) is not None), None)
        handler = chosen if chosen is not None else self._handlers[-1]
        return await handler.metric_value(namespace, scaled_object, metric_name)


class KedaMetricsServer:
    """Scalers for every ScaledObject, fed by an informer; see the module docstring."""

    name: Final = "keda-metrics-apiserver"
    workers_flag: Final = "concurrent_keda_metrics_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = (CRD,)

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        *,
        external: ExternalMetricsProvider | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        pod_metrics: PodMetricsReader | None = None,
    ) -> None:
        self._api = api
        self._external = external
        self._transport = transport
        self._pod_metrics = pod_metrics
        self._source = GatedListWatcher(api, SCALED_OBJECT)
        self._targets = ScaleTargetClient(api)
        self.handler = ScaleHandler(clock, self._env, self._current_replicas)
        self._informers: SharedInformers | None = None
        self._queue: WorkQueue[str] | None = None
        # The status.health last adopted per key: adopted again only when the leader's
        # loop writes a different one, so this replica's own counts are not reset by
        # unrelated updates.
        self._adopted: dict[str, JSON] = {}

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._informers = informers
        self._queue = queue
        informers.informer_for(CRD).add_handler(
            EventHandler(self._crd_seen, lambda _old, new: self._crd_seen(new))
        )
        # Every change counts, status ones included: the leader's health lands there.
        informers.informer_for(SCALED_OBJECT, self._source).add_handler(
            EventHandler(self._enqueue, lambda _old, new: self._enqueue(new), self._enqueue)
        )

    def _crd_seen(self, crd: JSON) -> None:
        if meta(crd).get("name") == CRD_NAME and established(crd):
            self._source.open()

    def _enqueue(self, obj: JSON) -> None:
        if self._queue is None:
            raise RuntimeError("KedaMetricsServer used before bind()")
        self._queue.add(object_key(obj))

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

    async def reconcile(self, key: str) -> None:
        """Bring ``key``'s entry in line with the cached ScaledObject; no API calls."""
        if self._informers is None:
            raise RuntimeError("KedaMetricsServer used before bind()")
        namespace, _, name = key.rpartition("/")
        informer = self._informers.informer_for(SCALED_OBJECT, self._source)
        obj = informer.lister.get(namespace, name)
        servable = None if obj is None or meta(obj).get("deletionTimestamp") else _servable(obj)
        if obj is None or servable is None:
            # Gone, going, or one the operator would not run either: nothing to serve.
            self._adopted.pop(key, None)
            await self.handler.forget(key)
            return
        so, specs, formula = servable
        generation = int(meta(obj).get("generation") or 0)
        # Resource (cpu/memory) triggers are served by the metrics server proper, never
        # here, so their scalers need no pod selector.
        entry = await self.handler.put(key, so, generation, specs, formula, None)
        health = dict((obj.get("status") or {}).get("health") or {})
        if health != self._adopted.get(key):
            self._adopted[key] = health
            entry.health = health

    async def close(self) -> None:
        await self.handler.close()


def _servable(
    obj: Mapping[str, Any],
) -> tuple[ScaledObject, tuple[TriggerSpec, ...], Formula | None] | None:
    try:
        so = parse_scaled_object(obj)
        specs, formula = trigger_specs(so)
    except (ScaledObjectError, TriggerError, FormulaError):
        return None
    return so, specs, formula
