"""KEDA's operator for ScaledObjects: the reconciler and the scale loop, as one controller.

Two kinds of work items share one queue, keyed by the ScaledObject's ``namespace/name``:

- the reconcile (KEDA's ``ScaledObjectReconciler``), on every ScaledObject event and every
  change of its generated HPA: the ``finalizer.keda.sh`` finalizer (on deletion: stop the
  loop, restore ``originalReplicaCount`` when asked, drop the finalizer), KEDA's initial
  ``Unknown`` conditions, the pause annotations (``autoscaling.keda.sh/paused`` and
  ``paused-replicas`` stop the loop, delete the HPA and pin the replicas; ``paused-scale-in``
  and ``-out`` only mark ``Paused``), the ``scaledobject.keda.sh/name`` label the metrics
  server selects by, KEDA's admission checks (the plane registers KEDA's webhook with the API
  server, ``webhook``; objects stored without it surface here as ``Ready=False``), the
  target's ``/scale`` (``scaleTargetKind``, ``originalReplicaCount``), the triggers
  (``triggers.registry``: bad metadata is ``Ready=False`` with KEDA's text, never a
  crash), the generated HPA
  (``generated``), and a (re)started scale loop when the generation moved;
- the scale loop (KEDA's ``ScaleHandler``), under ``poll:<namespace/name>``, every
  ``pollingInterval`` on the injected clock: every trigger read (``handler.ScaleHandler``),
  KEDA's decision (``decisions.poll``: activation 0 <-> 1, idle, cooldowns, fallback), the
  target's ``/scale`` written, the status and events recorded.

The metrics server's part (the generated HPA reading ``s<i>-...`` external metrics) is
``adapter.KedaMetricsAdapter`` over the same ``ScaleHandler``, routed by the
``scaledobject.keda.sh/name`` selector through the plane's
``ExternalMetricsRouter`` (``ControllerContext.external_metrics_routes``). Events are
recorded as ``keda-operator``. Registered in ``controllers.registry``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

import httpx

from podscale.api.kinds import KindInfo, kind_for
from podscale.api.timestamps import parse_time
from podscale.apiserver.metricsapis.providers import ExternalMetricsProvider
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.client.cache import object_key
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.keda import decisions, pause
from podscale.controllers.keda import events as ev
from podscale.controllers.keda import status as so_status
from podscale.controllers.keda.adapter import KedaMetricsAdapter
from podscale.controllers.keda.formula import Formula, FormulaError
from podscale.controllers.keda.generated import GeneratedHpaError, generated_hpa, hpa_update
from podscale.controllers.keda.handler import ScaleHandler
from podscale.controllers.keda.kind import COMPONENT, CRD_NAME, SCALED_OBJECT
from podscale.controllers.keda.metrics_server import trigger_specs
from podscale.controllers.keda.scalers.base import PodMetricsReader, ScalerEnv
from podscale.controllers.keda.target import ScaleTargetClient, TargetError
from podscale.controllers.keda.triggers.spec import TriggerError, TriggerSpec
from podscale.controllers.keda.types import ScaledObject, ScaledObjectError, parse_scaled_object
from podscale.controllers.keda.validation import admission_error, denial
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import meta
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.store.interface import Clock

__all__ = ["FINALIZER", "SCALED_OBJECT_LABEL", "ScaledObjectController"]

JSON = dict[str, Any]
CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
FINALIZER: Final = "finalizer.keda.sh"
SCALED_OBJECT_LABEL: Final = "scaledobject.keda.sh/name"
_POLL: Final = "poll:"
_MERGE_PATCH: Final = "application/merge-patch+json"
# podscale's wording for what KEDA's admission webhook would have refused.
_NOT_ADMITTED: Final = "ScaledObject would not be admitted by KEDA's webhook"
_RESOURCE_TYPES: Final = frozenset({"cpu", "memory"})


class _CheckFailed(Exception):
    """A reconcile step failed: KEDA's message and the cause, for ``Ready=False``."""

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(f"{message}: {cause}")
        self.message = message
        self.cause = cause
        # What the reconcile had recorded before the step failed (KEDA writes each part of
        # the status as it goes), when more than the caller's own status.
        self.status: JSON | None = None


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
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._source = GatedListWatcher(api, SCALED_OBJECT)
        self._targets = ScaleTargetClient(api)
        self.handler = ScaleHandler(clock, self._env, self._current_replicas)
        if routes is not None:
            routes.route(SCALED_OBJECT_LABEL, KedaMetricsAdapter(self.handler, clock))
        self._queue: WorkQueue[str] | None = None
        self._informers: SharedInformers | None = None
        # The generation each running scale loop was started for, by object key.
        self._loops: dict[str, int] = {}

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
        if key.startswith(_POLL):
            await self._poll(key[len(_POLL) :])
        else:
            await self._reconcile(key)

    async def _reconcile(self, key: str) -> None:
        namespace, _, name = key.rpartition("/")
        try:
            obj = await self._api.get(SCALED_OBJECT, namespace, name)
        except ApiError as err:
            if err.status == 404:
                await self._stop(key)
                return
            raise
        if meta(obj).get("deletionTimestamp"):
            await self._finalize(key, obj)
            return
        obj = await self._ensure_finalizer_and_label(obj)
        old_status: JSON = dict(obj.get("status") or {})
        status = so_status.initial_conditions(old_status)
        events: list[ev.Event] = []
        try:
            try:
                so = parse_scaled_object(obj)
            except ScaledObjectError as err:
                raise _CheckFailed(_NOT_ADMITTED, str(err)) from None
            status = await self._reconcile_object(key, obj, so, status, events)
        except _CheckFailed as err:
            await self._stop(key)
            failed_on = status if err.status is None else err.status
            status = so_status.check_failed(failed_on, err.message, err.cause)
            events.append(so_status.check_failed_event(err.message, err.cause))
        await self._finish(obj, old_status, status, events)

    async def _reconcile_object(
        self, key: str, obj: JSON, so: ScaledObject, status: JSON, events: list[ev.Event]
    ) -> JSON:
        paused = pause.read_pause(so.annotations)
        if pause.needs_pause(paused, status):
            return await self._pause(key, so, status, paused)
        status = pause.reconcile_paused(status, paused)
        refused = admission_error(
            so,
            others=self._other_scaled_objects(so),
            hpas=self._hpas(so.namespace),
            containers=await self._targets.containers(so.namespace, so.scale_target),
        )
        if refused is not None:
            raise _CheckFailed(_NOT_ADMITTED, denial(refused))
        try:
            target = await self._targets.read(so.namespace, so.scale_target)
        except TargetError as err:
            raise _CheckFailed(so_status.SCALE_TARGET_ERROR_MESSAGE, str(err)) from None
        # KEDA records the trigger and authentication types before it builds the HPA, so a
        # trigger whose metadata fails there still shows in ``kubectl get so``.
        status = so_status.with_trigger_types(status, so)
        try:
            specs, formula = self._triggers(so)
            hpa_name = await self._ensure_hpa(obj, so, specs)
        except _CheckFailed as err:
            err.status = status
            raise
        status = so_status.ready(
            status,
            hpa_name=hpa_name,
            metric_names=[s.metric_name for s in specs if s.type not in _RESOURCE_TYPES],
            resource_metric_names=[s.metric_name for s in specs if s.type in _RESOURCE_TYPES],
            original_replicas=target.replicas,
            target=so.scale_target,
            gvkr=_gvkr(target.info, so),
            so=so,
        )
        generation = int(meta(obj).get("generation") or 0)
        await self.handler.put(key, so, generation, specs, formula, target.selector)
        if self._loops.get(key) != generation:
            self._loops[key] = generation
            self._bound().add(_POLL + key)
        ready = so_status.ready_event(obj.get("status") or {})
        if ready is not None:
            events.append(ready)
        return status

    def _triggers(self, so: ScaledObject) -> tuple[tuple[TriggerSpec, ...], Formula | None]:
        try:
            return trigger_specs(so)
        except TriggerError as err:
            raise _CheckFailed(so_status.HPA_FAILED_MESSAGE, str(err)) from None
        except FormulaError as err:
            raise _CheckFailed(_NOT_ADMITTED, str(err)) from None

    async def _ensure_hpa(self, obj: JSON, so: ScaledObject, specs: Sequence[TriggerSpec]) -> str:
        try:
            wanted = generated_hpa(obj, so, specs)
        except GeneratedHpaError as err:
            raise _CheckFailed(so_status.HPA_FAILED_MESSAGE, str(err)) from None
        name = str(wanted["metadata"]["name"])
        try:
            try:
                existing = await self._api.get(HPA, so.namespace, name)
            except ApiError as err:
                if err.status != 404:
                    raise
                await self._api.create(HPA, so.namespace, wanted)
                return name
            update = hpa_update(existing, wanted)
            if update is not None:
                await self._api.update(HPA, so.namespace, update)
        except ApiError as err:
            raise _CheckFailed(so_status.HPA_FAILED_MESSAGE, str(err)) from None
        return name

    async def _pause(self, key: str, so: ScaledObject, status: JSON, paused: pause.Pause) -> JSON:
        """KEDA's pause: the loop (which already pinned ``paused-replicas``) stops and the
        generated HPA goes, so nothing scales the target until the annotations do."""
        await self._stop(key)
        name = str(status.get("hpaName") or so.hpa_name)
        try:
            await self._api.delete(HPA, so.namespace, name)
        except ApiError as err:
            if err.status != 404:
                message = "failed to delete HPA for paused ScaledObject"
                raise _CheckFailed(message, str(err)) from None
        status = pause.reconcile_paused(status, paused)
        return pause.set_condition(
            status, "Ready", "True", so_status.READY_REASON, so_status.READY_MESSAGE
        )

    async def _finalize(self, key: str, obj: JSON) -> None:
        await self._stop(key)
        finalizers = list(meta(obj).get("finalizers") or ())
        if FINALIZER not in finalizers:
            return
        try:
            so = parse_scaled_object(obj)
        except ScaledObjectError:
            so = None
        restore = None if so is None else so_status.finalize_replicas(so, obj.get("status") or {})
        if so is not None and restore is not None:
            try:
                target = await self._targets.read(so.namespace, so.scale_target)
                await self._targets.write(so.namespace, target, restore)
            except TargetError:
                pass  # KEDA logs and goes on: a missing target must not block deletion
        finalizers.remove(FINALIZER)
        await self._patch_meta(obj, {"finalizers": finalizers})

    async def _stop(self, key: str) -> None:
        self._loops.pop(key, None)
        await self.handler.forget(key)

    async def _ensure_finalizer_and_label(self, obj: JSON) -> JSON:
        patch: JSON = {}
        finalizers = list(meta(obj).get("finalizers") or ())
        if FINALIZER not in finalizers:
            patch["finalizers"] = [*finalizers, FINALIZER]
        name = str(meta(obj).get("name"))
        if (meta(obj).get("labels") or {}).get(SCALED_OBJECT_LABEL) != name:
            patch["labels"] = {SCALED_OBJECT_LABEL: name}
        if not patch:
            return obj
        return await self._patch_meta(obj, patch)

    async def _patch_meta(self, obj: JSON, patch: JSON) -> JSON:
        return await self._api.patch(
            SCALED_OBJECT,
            meta(obj).get("namespace"),
            str(meta(obj).get("name")),
            {"metadata": patch},
            content_type=_MERGE_PATCH,
        )

    # -- the scale loop -----------------------------------------------------------------

    async def _poll(self, key: str) -> None:
        if key not in self._loops:
            return
        entry = self.handler.entry(key)
        namespace, _, name = key.rpartition("/")
        try:
            obj = await self._api.get(SCALED_OBJECT, namespace, name)
        except ApiError as err:
            if err.status == 404:
                await self._stop(key)
                return
            raise
        if entry is None or meta(obj).get("deletionTimestamp"):
            return
        so = entry.so
        interval = timedelta(seconds=max(so.polling_interval, 1))
        try:
            target = await self._targets.read(so.namespace, so.scale_target)
        except TargetError as err:
            await self._record(obj, ev.Event(ev.WARNING, ev.SCALER_FAILED, str(err)))
            self._bound().add_after(_POLL + key, interval)
            return
        outcomes = await self.handler.read_all(key)
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
        await self._finish(obj, old_status, status, events)
        if (
            old_status.get("pausedReplicaCount") is None
            and status.get("pausedReplicaCount") is not None
        ):
            # The paused count is pinned: the reconcile now stops this loop (KEDA requeues
            # its reconcile until the count is recorded).
            self._bound().add(key)
        if key in self._loops:
            self._bound().add_after(_POLL + key, interval)

    # -- writing ----------------------------------------------------------------------

    async def _finish(self, obj: JSON, old: JSON, new: JSON, events: Sequence[ev.Event]) -> None:
        if new != old:
            patch: JSON = {**new, **{k: None for k in old if k not in new}}
            try:
                await self._api.patch(
                    SCALED_OBJECT,
                    meta(obj).get("namespace"),
                    str(meta(obj).get("name")),
                    {"status": patch},
                    content_type=_MERGE_PATCH,
                    subresource="status",
                )
            except ApiError as err:
                if err.status == 404:
                    return
                raise
        for event in events:
            await self._record(obj, event)

    async def _record(self, obj: JSON, event: ev.Event) -> None:
        await self._recorder.record(obj, event.type, event.reason, event.message)

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


def _created(obj: Mapping[str, Any], default: datetime) -> datetime:
    text = meta(obj).get("creationTimestamp")
    return parse_time(str(text)) if text else default


def _gvkr(info: KindInfo, so: ScaledObject) -> dict[str, str]:
    """KEDA's ``GroupVersionKindResource`` of the target, as its status records it."""
    return {
        "group": info.group,
        "version": info.version,
        "kind": info.kind,
        "resource": info.plural,
    }
