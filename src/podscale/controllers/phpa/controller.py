"""The PredictiveHorizontalPodAutoscaler controller: the HPA controller plus a forecast.

It is ``controllers.hpa.controller.HorizontalPodAutoscalerController`` (queueing every sync
period, reading ``/scale`` and the target's pods, prefetching metrics, writing ``/scale``)
on the PHPA kind, with three parts of its own:

- ``_decide``: before the HPA engine decides, the prediction of this sync
  (``predict.predict``): the active schedule window (``schedules.active_bounds``), the lead
  time (measured from the target's pods, ``decisions.lead_time``, unless ``leadTime`` is
  set), and for each forecastable metric (``decisions.forecast_metrics``) the model fitted
  on its workload series in the history store (refit on ``refreshInterval`` only,
  ``models.SeriesModels``) read over ``[now, now + lead]`` and corrected by the last 30
  minutes (``forecasting.peak_demand``). The HPA engine then takes the larger of its own
  proposal and the forecast's, inside the window's bounds (``podscale.hpa.predictive``). In
  ``Preview`` mode the decision is kept but never applied: ``/scale`` is not written.
- ``_publish``: events under the component ``predictive-horizontal-pod-autoscaler``, and
  the HPA status plus ``prediction`` and the ``PredictionReady`` condition, written through
  the PHPA's status subresource when changed.
- The PHPA kind is a CRD: its informer waits for it (``webapp.definition_gate``).

The prediction's values and the pure reshaping of the engine's decision around them (the
status block, an invalid spec, Preview mode, the stored model document) are in
``phpa.prediction``.

Given a history store (``ControllerContext.history``, both the series and the state
store), the engine's memory (recommendations, scale events) and the last decision trace
are the HPA controller's documents under the PHPA's uid (``hpa/history``,
``hpa/last-decision``), so a restart keeps the stabilization windows and rate limits; the
summary of each series' last fit (``MODEL_STATE``: model, fit time, backtest error,
``PredictionReady`` reason and message) is stored beside them when a refit changes it. The
forecasts themselves are not: a restarted controller refits at its first sync, so
``status.prediction.fittedAt`` always names the fit the forecast in use came from.
Registered in ``controllers.registry``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.cache import object_key
from podscale.client.informer import EventHandler, Informer
from podscale.controllers.hpa.controller import (
    DEFAULT_SYNC_PERIOD,
    HorizontalPodAutoscalerController,
)
from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.hpa.prefetch import QueryRecorder, RecordedMetrics
from podscale.controllers.hpa.writes import write_status
from podscale.controllers.phpa.decisions import CONDITION, prediction_condition
from podscale.controllers.phpa.forecasting import (
    Correct,
    Fit,
    corrected_value,
    fit_series,
)
from podscale.controllers.phpa.kind import COMPONENT, CRD_NAME, PHPA
from podscale.controllers.phpa.models import SeriesModels
from podscale.controllers.phpa.predict import predict
from podscale.controllers.phpa.prediction import (
    Prediction,
    invalid_decision,
    model_document,
    previewed_decision,
    status_block,
)
from podscale.controllers.phpa.types import PhpaSpec, PhpaSpecError, parse_phpa
from podscale.controllers.phpa.validation import message, validate_phpa
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.history import HistoryStore
from podscale.hpa import Config, Decision, History, decide
from podscale.hpa.predictive import Predictive
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "MODEL_STATE", "PHPA", "PredictiveHorizontalPodAutoscalerController"]

JSON = dict[str, Any]
_LOG = logging.getLogger(__name__)
CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
POD: Final = kind_for("v1", "Pod")
# metrics-server's default --metric-resolution: how late a rise shows in the metrics.
DEFAULT_METRIC_RESOLUTION: Final = timedelta(seconds=60)
# The state document holding each forecast series' last fit, beside the HPA controller's.
MODEL_STATE: Final = "phpa/model"


class PredictiveHorizontalPodAutoscalerController(HorizontalPodAutoscalerController):
    """Scales each PHPA's target every sync period; see the module docstring."""

    name = "predictivehorizontalpodautoscaler"
    workers_flag = "concurrent_predictive_horizontal_pod_autoscaler_syncs"
    # The PHPA informer is made in ``bind`` with its CRD-gated source.
    informer_kinds: Sequence[KindInfo] = (CRD, POD)
    autoscaler_kind: KindInfo = PHPA

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        metrics: MetricsClient,
        *,
        history: HistoryStore | None,
        config: Config | None = None,
        sync_period: timedelta = DEFAULT_SYNC_PERIOD,
        metric_resolution: timedelta = DEFAULT_METRIC_RESOLUTION,
        fit: Fit = fit_series,
        correct: Correct = corrected_value,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(
            api,
            clock,
            metrics,
            config=config,
            sync_period=sync_period,
            history=history,
            timer=timer,
        )
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._source = GatedListWatcher(api, PHPA)
        self._resolution = metric_resolution
        self._fits = None if history is None else SeriesModels(history, fit, correct)
        # Per PHPA key: pods' measured starts by pod name, and the prediction of the sync
        # under way (``_decide`` runs twice a sync: once to record the metric queries, once
        # to decide).
        self._startups: dict[str, dict[str, tuple[datetime, timedelta]]] = {}
        self._predictions: dict[str, Prediction] = {}
        # Per PHPA key: the uid and the ``MODEL_STATE`` document last stored for it.
        self._stored_models: dict[str, tuple[str, JSON]] = {}

    # -- wiring -----------------------------------------------------------------------

    def _autoscaler_informer(self, informers: SharedInformers) -> Informer:
        informer = informers.informer_for(PHPA, self._source)
        informers.informer_for(CRD).add_handler(
            EventHandler(self._crd_seen, lambda _old, new: self._crd_seen(new))
        )
        return informer

    def _crd_seen(self, crd: JSON) -> None:
        if (crd.get("metadata") or {}).get("name") == CRD_NAME and established(crd):
            self._source.open()

    async def reconcile(self, key: str) -> None:
        namespace, _, name = key.rpartition("/")
        if self._bound()[1].get(namespace, name) is None:
            if self._fits is not None:
                self._fits.forget(key)
            self._startups.pop(key, None)
            self._predictions.pop(key, None)
            self._stored_models.pop(key, None)
        await super().reconcile(key)

    # -- deciding ---------------------------------------------------------------------

    def _decide(
        self,
        hpa: JSON,
        scale: JSON,
        pods: list[JSON],
        metrics: QueryRecorder | RecordedMetrics,
        history: History | None,
        now: datetime,
        controlling: list[str],
    ) -> Decision:
        key = object_key(hpa)
        current = int((scale.get("spec") or {}).get("replicas") or 0)
        errors = validate_phpa(hpa, feature_gates=self._config.feature_gates)
        spec: PhpaSpec | None = None
        refused = message(errors) if errors else ""
        if not errors:
            try:
                spec = parse_phpa(hpa)
            except PhpaSpecError as err:  # validation admits what parsing reads: a safety net
                refused = str(err)
        if spec is None:
            # What the CRD's schema and rules cannot say (the HPA's metric and behavior
            # rules, durations, cron windows): reported, and nothing is scaled.
            self._predictions.pop(key, None)
            plain = super()._decide(hpa, scale, pods, metrics, history, now, controlling)
            return invalid_decision(plain, hpa, refused, now)
        prediction = self._predictions.get(key)
        if prediction is None or prediction.at != now:
            prediction = predict(
                self._fits,
                self._startups.setdefault(key, {}),
                key,
                hpa,
                spec,
                pods,
                current,
                now,
                sync_period=self._sync_period,
                resolution=self._resolution,
            )
            self._predictions[key] = prediction
        window = prediction.window
        decision = decide(
            hpa,
            scale=scale,
            pods=pods,
            metrics=metrics,
            history=history,
            now=now,
            config=self._config,
            controlling_hpas=controlling,
            predictive=Predictive(
                prediction.proactive,
                None if window is None else window[1],
                None if window is None else window[2],
                None if window is None else window[0],
            ),
        )
        if prediction.spec.preview and decision.rescale:
            decision = previewed_decision(decision, hpa)
        return decision

    # -- writing ----------------------------------------------------------------------

    async def _publish(
        self, hpa: JSON, decision: Decision, history: History | None, now: datetime
    ) -> bool:
        for event in decision.events:
            await self._recorder.record(hpa, event.type, event.reason, event.message)
        key = object_key(hpa)
        prediction = self._predictions.get(key)
        old = hpa.get("status") or {}
        status = dict(decision.status)
        # A sync that never got to predict (the target's scale unreadable) keeps the last
        # prediction and its condition as they were.
        if prediction is not None and prediction.at == now:
            conditions = [c for c in status.get("conditions") or () if c.get("type") != CONDITION]
            status["prediction"] = status_block(prediction, decision)
            if prediction.reason is not None:
                previous = next(
                    (c for c in old.get("conditions") or () if c.get("type") == CONDITION), None
                )
                conditions.append(
                    prediction_condition(prediction.reason, prediction.message, previous, now)
                )
            status["conditions"] = conditions
        elif "prediction" in old:
            status["prediction"] = old["prediction"]
        self._kept.store(hpa, decision, history, now)
        self._store_models(hpa)
        if status == old:
            return True
        return await write_status(self._api, self._recorder, self.autoscaler_kind, hpa, status)

    def _store_models(self, obj: JSON) -> None:
        """``MODEL_STATE`` when a refit changed it (nothing for a PHPA between refits)."""
        uid = str((obj.get("metadata") or {}).get("uid") or "")
        key = object_key(obj)
        models = None if self._fits is None else self._fits.of(key)
        if self._state is None or not uid or not models:
            return
        document = model_document(models)
        if self._stored_models.get(key) == (uid, document):
            return
        try:
            self._state.put_state(uid, MODEL_STATE, document)
        except Exception:  # a store failure must not stop scaling; tried again next sync
            _LOG.exception("could not store the fitted models of %s", key)
            return
        self._stored_models[key] = (uid, document)
