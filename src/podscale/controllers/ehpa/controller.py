"""The EffectiveHorizontalPodAutoscaler controller shell: informers and the sync.

Crane's reconcile, per ``namespace/name`` on the injected clock: read the EHPA and its
target's ``/scale`` (``Ready`` False ``FailedGetScale``; a target at zero replicas is
``ScalingDisabled``); in ``Preview`` keep the Substitute ``ehpa-<name>`` (its spec names
the target; its status carries the target's pod selector and mirrors ``spec.replicas``,
as Crane's substitute controller keeps it); with prediction, refit the forecasts that are
due and set ``PredictionReady`` (``publishing``, ``status``); create or update the HPA
``ehpa-<name>`` (``metrics``, ``decisions.generated_hpa``, ``generated``); copy its
replicas and conditions into the status (``status.from_hpa``); in ``Preview`` with
``specificReplicas`` write that to the target's ``/scale`` (``FailedManualScale``); then
``Ready`` True. A failed step is a ``status.Failed``: ``Ready`` False, maybe an event.

The two external metrics are published into the plane's external metrics (the push
provider: ``ControllerContext.external_metrics_writer``) by ``publishing.Publisher``:
each sync sets this EHPA's series, and the controller wakes again within ``RESYNC`` (the
pushed values expire, and the largest forecast of the coming window moves) and exactly at
the next cron start or end, so a window opens on time. The HPA, Substitute and EHPA
informers enqueue the owning EHPA. Registered in ``controllers.registry``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.metricsapis.providers import ExternalMetricsWriter
from podscale.client.cache import object_key
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.ehpa import decisions, forecasting, metrics
from podscale.controllers.ehpa import status as status_of
from podscale.controllers.ehpa.generated import HPA, reconcile_hpa
from podscale.controllers.ehpa.kind import CRD_NAME, EHPA, SUBSTITUTE, SUBSTITUTE_CRD_NAME
from podscale.controllers.ehpa.publishing import Publisher
from podscale.controllers.ehpa.status import Failed
from podscale.controllers.ehpa.substitute import reconcile_substitute
from podscale.controllers.ehpa.types import EhpaSpec, Strategy, read_spec
from podscale.controllers.ehpa.validation import spec_errors
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import meta
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.history import SeriesReader
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "EffectiveHPAController"]

JSON = dict[str, Any]
CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
POD: Final = kind_for("v1", "Pod")
COMPONENT: Final = "effective-hpa-controller"
RESYNC: Final = timedelta(seconds=30)
_MERGE_PATCH: Final = "application/merge-patch+json"


def _available(pod: Mapping[str, Any]) -> bool:
    if meta(pod).get("deletionTimestamp"):
        return False
    status: Mapping[str, Any] = pod.get("status") or {}
    ready = any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in status.get("conditions") or ()
    )
    return status.get("phase") == "Running" and ready


class EffectiveHPAController:
    """Runs EffectiveHorizontalPodAutoscalers; see the module docstring."""

    name: Final = "ehpa"
    workers_flag: Final = "concurrent_ehpa_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = (CRD, HPA)

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        *,
        history: SeriesReader | None = None,
        writer: ExternalMetricsWriter | None = None,
        zone: ZoneInfo | None = None,
        forecaster: forecasting.ForecasterFactory = forecasting.default_forecaster,
    ) -> None:
        self._api = api
        self._clock = clock
        self._zone = zone if zone is not None else ZoneInfo("UTC")
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._source = GatedListWatcher(api, EHPA)
        self._substitutes = GatedListWatcher(api, SUBSTITUTE)
        self._queue: WorkQueue[str] | None = None
        self.publisher = Publisher(writer, history, self._zone, forecaster)
        self.published = self.publisher.published

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        informers.informer_for(CRD).add_handler(
            EventHandler(self._crd_seen, lambda _old, new: self._crd_seen(new))
        )
        informers.informer_for(EHPA, self._source).add_handler(
            EventHandler(self._enqueue, lambda _old, new: self._enqueue(new), self._enqueue)
        )
        for owned in (
            informers.informer_for(HPA),
            informers.informer_for(SUBSTITUTE, self._substitutes),
        ):
            owned.add_handler(
                EventHandler(self._owner, lambda _old, new: self._owner(new), self._owner)
            )

    def _bound(self) -> WorkQueue[str]:
        if self._queue is None:
            raise RuntimeError("EffectiveHPAController used before bind()")
        return self._queue

    def _crd_seen(self, crd: JSON) -> None:
        if established(crd):
            if meta(crd).get("name") == CRD_NAME:
                self._source.open()
            elif meta(crd).get("name") == SUBSTITUTE_CRD_NAME:
                self._substitutes.open()

    def _enqueue(self, obj: JSON) -> None:
        self._bound().add(object_key(obj))

    def _owner(self, obj: JSON) -> None:
        for ref in meta(obj).get("ownerReferences") or ():
            if ref.get("kind") == EHPA.kind and ref.get("controller"):
                self._bound().add(f"{meta(obj).get('namespace')}/{ref.get('name')}")

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        namespace, _, name = key.rpartition("/")
        try:
            obj = await self._api.get(EHPA, namespace, name)
        except ApiError as err:
            if err.status == 404:
                self.publisher.forget(key)
                return
            raise
        if meta(obj).get("deletionTimestamp"):
            return
        spec = read_spec(obj)
        status: JSON = dict(obj.get("status") or {})
        conditions: list[JSON] = list(status.get("conditions") or ())
        now = self._clock.now()
        try:
            status, conditions = await self._sync(key, obj, spec, status, conditions, now)
            conditions = status_of.ready(conditions, now)
        except Failed as failure:
            if failure.event is not None:
                await self._recorder.record(
                    obj, failure.event[0], failure.event[1], failure.message
                )
            conditions = status_of.not_ready(conditions, failure, now)
        await self._write_status(obj, {**status, "conditions": conditions})
        wake = RESYNC
        try:
            change = decisions.next_cron_change(spec, now, self._zone)
        except ValueError:
            change = None
        if change is not None:
            wake = min(wake, max(change - self._clock.now(), timedelta(0)))
        self._bound().add_after(key, wake)

    async def _sync(
        self,
        key: str,
        obj: JSON,
        spec: EhpaSpec,
        status: JSON,
        conditions: list[JSON],
        now: datetime,
    ) -> tuple[JSON, list[JSON]]:
        namespace = str(meta(obj).get("namespace"))
        errors = spec_errors(spec)
        if errors:
            raise Failed("InvalidSpec", "; ".join(errors), ("Warning", "InvalidSpec"))
        scale, info = await self._scale(namespace, spec)
        replicas = int((scale.get("spec") or {}).get("replicas") or 0)
        if replicas == 0 and spec.min_replicas != 0:
            status["currentReplicas"] = 0
            raise Failed(
                "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero",
            )
        if spec.strategy == Strategy.PREVIEW:
            try:
                created = await reconcile_substitute(self._api, obj, spec, scale)
            except ApiError as err:
                raise Failed(
                    "FailedReconcileSubstitute",
                    "Failed to reconcile substitute",
                    ("Normal", "FailedCreateSubstitute"),
                ) from err
            if created:
                await self._recorder.record(
                    obj, "Normal", "SubstituteCreated", "Create Substitute successfully"
                )
        pods = await self._available_pods(namespace, scale)
        predicted: dict[str, str] = {}
        if spec.prediction_enabled:
            predicted, reasons = self.publisher.predict(key, namespace, spec, pods, now)
            conditions = status_of.prediction_ready(conditions, predicted, reasons, now)
        else:
            self.publisher.no_prediction(key, namespace)
        hpa_metrics = metrics.hpa_metrics(spec, namespace, predicted)
        self.publisher.publish_cron(key, namespace, spec, replicas, len(hpa_metrics), now)
        wanted = decisions.generated_hpa(obj, spec, hpa_metrics)
        hpa = await reconcile_hpa(self._api, self._recorder, obj, wanted)
        status, conditions = status_of.from_hpa(status, conditions, hpa, now)
        specific = spec.specific_replicas
        current = int((scale.get("status") or {}).get("replicas") or 0)
        if spec.strategy == Strategy.PREVIEW and specific is not None and specific != current:
            scale = {**scale, "spec": {**(scale.get("spec") or {}), "replicas": specific}}
            try:
                updated = await self._api.update(info, namespace, scale, "scale")
            except ApiError as err:
                raise Failed(
                    "FailedScale",
                    f"Failed to manual scale target to specific replicas, ehpa {key} "
                    f"replicas {specific}",
                    ("Normal", "FailedManualScale"),
                ) from err
            status["lastScaleTime"] = decisions.format_time(now)
            status["currentReplicas"] = int((updated.get("status") or {}).get("replicas") or 0)
        return status, conditions

    async def _scale(self, namespace: str, spec: EhpaSpec) -> tuple[JSON, KindInfo]:
        try:
            mappings = await resolve_target(self._api, spec.target.to_json())
            return await read_scale(self._api, mappings, namespace, spec.target.name)
        except ScaleTargetError as err:
            raise Failed(
                "FailedGetScale", "Failed to get scale", ("Normal", "FailedGetScale")
            ) from err

    async def _available_pods(self, namespace: str, scale: Mapping[str, Any]) -> list[JSON]:
        selector = str((scale.get("status") or {}).get("selector") or "")
        if not selector:
            return []
        listed = await self._api.list(POD, namespace, label_selector=selector)
        return [pod for pod in listed.get("items") or () if _available(pod)]

    async def _write_status(self, obj: JSON, status: JSON) -> None:
        if (obj.get("status") or {}) == status:
            return
        try:
            await self._api.patch(
                EHPA,
                meta(obj).get("namespace"),
                str(meta(obj).get("name")),
                {"status": status},
                content_type=_MERGE_PATCH,
                subresource="status",
            )
        except ApiError as err:
            if err.status != 404:
                await self._recorder.record(obj, "Normal", "FailedUpdateStatus", str(err))
