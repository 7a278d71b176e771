"""The PredictiveHorizontalPodAutoscaler controller: the HPA controller plus a forecast.

It is ``controllers.hpa.controller.HorizontalPodAutoscalerController`` (queueing every sync
period, reading ``/scale`` and the target's pods, prefetching metrics, writing ``/scale``)
on the PHPA kind, with three parts of its own:

- ``_decide``: before the HPA engine decides, the prediction of this sync: the active
  schedule window (``schedules.active_bounds``), the lead time (measured from the target's
  pods, ``decisions.lead_time``, unless ``leadTime`` is set), and for each forecastable
  metric (``decisions.forecast_metrics``) the model fitted on its workload series in the
  history store (refit on ``refreshInterval`` only, ``forecasting.fit_series``) read over
  ``[now, now + lead]`` and corrected by the last 30 minutes (``forecasting.peak_demand``).
  The HPA engine then takes the larger of its own proposal and the forecast's, inside the
  window's bounds (``podscale.hpa.predictive``). In ``Preview`` mode the decision is kept
  but never applied: ``/scale`` is not written.
- ``_publish``: events under the component ``predictive-horizontal-pod-autoscaler``, and
  the HPA status plus ``prediction`` and the ``PredictionReady`` condition, written through
  the PHPA's status subresource when changed.
- The PHPA kind is a CRD: its informer waits for it (``webapp.definition_gate``).

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

import dataclasses
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
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
from podscale.controllers.phpa.decisions import (
    CONDITION,
    REASON_NO_MODEL,
    REASON_NOT_FORECASTABLE,
    REASON_UNAVAILABLE,
    forecast_metrics,
    lead_time,
    limit_scale_down,
    prediction_condition,
    prediction_status,
    proactive_replicas,
    startup_durations,
)
from podscale.controllers.phpa.forecasting import (
    Correct,
    Fit,
    Fitted,
    corrected_value,
    fit_series,
    peak_demand,
)
from podscale.controllers.phpa.kind import COMPONENT, CRD_NAME, PHPA
from podscale.controllers.phpa.schedules import active_bounds
from podscale.controllers.phpa.types import (
    AUTO,
    PhpaSpec,
    PhpaSpecError,
    PredictionSpec,
    parse_phpa,
)
from podscale.controllers.phpa.validation import message, validate_phpa
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.forecast.types import ForecastError, Series
from podscale.history import HistoryStore, SeriesKey
from podscale.hpa import Config, Decision, History, decide
from podscale.hpa.conditions import format_time
from podscale.hpa.predictive import Predictive
from podscale.hpa.types import Event
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "MODEL_STATE", "PHPA", "PredictiveHorizontalPodAutoscalerController"]

JSON = dict[str, Any]
_LOG = logging.getLogger(__name__)
CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
POD: Final = kind_for("v1", "Pod")
# metrics-server's default --metric-resolution: how late a rise shows in the metrics.
DEFAULT_METRIC_RESOLUTION: Final = timedelta(seconds=60)
STEP: Final = timedelta(minutes=1)
# The actual series the forecast's level is corrected against.
RECENT: Final = timedelta(minutes=30)
# Forecast this far past the next refit and lead, so a late refit still finds a forecast.
MARGIN: Final = timedelta(minutes=15)
# A fit that found no model is retried sooner than a refresh: history may just be arriving.
RETRY: Final = timedelta(minutes=15)
_PREVIEW_REASON: Final = "PreviewMode"
_INVALID: Final = "InvalidSpec"
# The state document holding each forecast series' last fit, beside the HPA controller's.
MODEL_STATE: Final = "phpa/model"


@dataclass(frozen=True, slots=True)
class _Model:
    fitted: Fitted
    at: datetime
    signature: tuple[str, str, timedelta]
    next_fit: datetime


# ``schedules.active_bounds``: the active window's name, minReplicas and maxReplicas.
_Window = tuple[str, int | None, int | None]


@dataclass(frozen=True, slots=True)
class _Prediction:
    """One sync's prediction: what ``decide`` gets and what the status reports."""

    at: datetime
    spec: PhpaSpec
    window: _Window | None
    lead: timedelta
    proactive: int | None = None
    forecast: float | None = None
    model: _Model | None = None
    reason: str | None = None
    message: str = ""


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
        self._series = history
        self._resolution = metric_resolution
        self._fit = fit
        self._correct = correct
        # Per PHPA key: fitted models by series, pods' measured starts by pod name, and the
        # prediction of the sync under way (``_decide`` runs twice a sync: once to record
        # the metric queries, once to decide).
        self._models: dict[str, dict[str, _Model]] = {}
        self._startups: dict[str, dict[str, tuple[datetime, timedelta]]] = {}
        self._predictions: dict[str, _Prediction] = {}
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
            self._models.pop(key, None)
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
            return _invalid(plain, hpa, refused, now)
        prediction = self._predictions.get(key)
        if prediction is None or prediction.at != now:
            prediction = self._predict(key, hpa, spec, pods, current, now)
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
            decision = _previewed(decision, hpa)
        return decision

    def _predict(
        self, key: str, obj: JSON, spec: PhpaSpec, pods: list[JSON], current: int, now: datetime
    ) -> _Prediction:
        settings = spec.prediction
        seen = self._startups.setdefault(key, {})
        # Pods come and go: their measured starts are remembered (the latest 40 by creation;
        # ``lead_time`` reads the 20 most recent), so a scale-down does not forget them.
        for pod in pods:
            measured = startup_durations([pod])
            if measured:
                seen[str((pod.get("metadata") or {}).get("name") or "")] = measured[0]
        for stale in sorted(seen, key=lambda name: seen[name][0])[:-40]:
            del seen[stale]
        lead = (
            settings.lead_time
            if settings is not None and settings.lead_time != AUTO
            else lead_time(list(seen.values()), self._sync_period, self._resolution)
        )
        base = _Prediction(now, spec, active_bounds(spec.schedules, now), lead)
        if settings is None:
            return base
        targets = forecast_metrics(spec.metrics, settings.metrics, pods)
        if not targets:
            message = "no metric of spec.metrics can be forecast as a workload total"
            return dataclasses.replace(base, reason=REASON_NOT_FORECASTABLE, message=message)
        if self._series is None:
            message = "the controller has no history store"
            return dataclasses.replace(base, reason=REASON_UNAVAILABLE, message=message)
        namespace = str((obj.get("metadata") or {}).get("namespace") or "")
        replicas: list[int] = []
        first: tuple[_Model, float | None] | None = None
        for target in targets:
            series_key = SeriesKey(namespace, spec.target.kind, spec.target.name, target.series)
            model = self._model(key, series_key, settings, lead, now)
            demand = self._demand(model, series_key, settings, lead, now)
            if demand is not None:
                replicas.append(proactive_replicas(demand, target.per_pod_target))
            if first is None or (first[0].fitted.forecast is None and demand is not None):
                first = (model, demand)
        assert first is not None
        model, demand = first
        proactive = None
        if replicas:
            proactive = limit_scale_down(max(replicas), current, settings.scale_down_limit)
        return dataclasses.replace(
            base,
            proactive=proactive,
            forecast=demand,
            model=model,
            reason=model.fitted.reason,
            message=model.fitted.message,
        )

    def _model(
        self,
        key: str,
        series_key: SeriesKey,
        settings: PredictionSpec,
        lead: timedelta,
        now: datetime,
    ) -> _Model:
        """The series' model, refit when its refresh is due or its inputs changed."""
        models = self._models.setdefault(key, {})
        signature = (series_key.text(), settings.algorithm, settings.history)
        known = models.get(series_key.series)
        if known is not None and known.signature == signature and now < known.next_fit:
            return known
        end = _minute(now)
        start = end - settings.history
        assert self._series is not None
        points = self._series.read(series_key, start, end, STEP)
        if not points:
            message = f"no history of {series_key.text()} in the last {settings.history}"
            fitted = Fitted(None, None, None, REASON_UNAVAILABLE, message)
        else:
            series = Series.from_points(points, start=start, end=end, step=STEP)
            horizon = math.ceil((settings.refresh_interval + lead + MARGIN) / STEP)
            try:
                fitted = self._fit(series, horizon, settings.algorithm)
            except ForecastError as err:
                fitted = Fitted(None, None, None, REASON_NO_MODEL, str(err))
        wait = settings.refresh_interval if fitted.forecast is not None else RETRY
        model = _Model(fitted, now, signature, now + min(wait, settings.refresh_interval))
        models[series_key.series] = model
        return model

    def _demand(
        self,
        model: _Model,
        series_key: SeriesKey,
        settings: PredictionSpec,
        lead: timedelta,
        now: datetime,
    ) -> float | None:
        forecast = model.fitted.forecast
        if forecast is None:
            return None
        assert self._series is not None
        end = _minute(now)
        recent = Series.from_points(
            self._series.read(series_key, end - RECENT, end, STEP),
            start=end - RECENT,
            end=end,
            step=STEP,
        )
        return peak_demand(
            forecast,
            recent,
            now=now,
            lead=lead,
            quantile=settings.quantile,
            correct=self._correct,
        )

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
            status["prediction"] = _status_block(prediction, decision)
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
        self._store_state(hpa, decision, history, now)
        self._store_models(hpa)
        if status == old:
            return True
        return await self._write_status(hpa, status)

    def _store_models(self, obj: JSON) -> None:
        """``MODEL_STATE`` when a refit changed it (nothing for a PHPA between refits)."""
        uid = str((obj.get("metadata") or {}).get("uid") or "")
        key = object_key(obj)
        models = self._models.get(key)
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


def model_document(models: Mapping[str, _Model]) -> JSON:
    """The ``MODEL_STATE`` document: per series, its last fit (without the forecast)."""
    series: JSON = {}
    for name, model in sorted(models.items()):
        fitted = model.fitted
        entry: JSON = {
            "fittedAt": format_time(model.at),
            "reason": fitted.reason,
            "message": fitted.message,
        }
        if fitted.forecast is not None and fitted.model is not None:
            entry["model"] = fitted.model
        if fitted.backtest_error is not None and math.isfinite(fitted.backtest_error):
            entry["backtestError"] = fitted.backtest_error
        series[name] = entry
    return {"series": series}


def _minute(at: datetime) -> datetime:
    return at.replace(second=0, microsecond=0)


def _status_block(prediction: _Prediction, decision: Decision) -> JSON:
    fitted = None if prediction.model is None else prediction.model.fitted
    window = prediction.window
    trace = decision.trace
    return prediction_status(
        model=None if fitted is None or fitted.forecast is None else fitted.model,
        backtest_error=None if fitted is None else fitted.backtest_error,
        fitted_at=None if prediction.model is None else prediction.model.at,
        lead=prediction.lead,
        forecast=prediction.forecast,
        proactive=prediction.proactive,
        passive=decision.passive_replicas,
        window=None if window is None else window[0],
        bounds=(trace.min_replicas, trace.max_replicas),
        final=decision.desired_replicas,
        decided_by=decision.decided_by,
    )


def _invalid(decision: Decision, obj: JSON, text: str, now: datetime) -> Decision:
    """A decision that scales nothing because the spec is invalid: ScalingActive False,
    reason InvalidSpec, as the HPA reports a spec it cannot act on."""
    status = dict(decision.status)
    conditions = [c for c in status.get("conditions") or () if c.get("type") != "ScalingActive"]
    previous = (obj.get("status") or {}).get("conditions") or ()
    old = next((c for c in previous if c.get("type") == "ScalingActive"), None) or {}
    same = old.get("status") == "False" and old.get("reason") == _INVALID
    conditions.append(
        {
            "type": "ScalingActive",
            "status": "False",
            "lastTransitionTime": old.get("lastTransitionTime")
            if same and old
            else format_time(now),
            "reason": _INVALID,
            "message": f"the PredictiveHorizontalPodAutoscaler's spec is invalid: {text}",
        }
    )
    status["conditions"] = conditions
    status["desiredReplicas"] = decision.current_replicas
    return dataclasses.replace(
        decision,
        rescale=False,
        desired_replicas=decision.current_replicas,
        status=status,
        events=(Event("Warning", _INVALID, text),),
        history=decision.history_without_rescale or decision.history,
    )


def _previewed(decision: Decision, obj: JSON) -> Decision:
    """A decision that reports the count it would scale to but never writes ``/scale``:
    no rescale, no rescale event, the last scale time and the engine's memory of scale
    events as if nothing happened (nothing did)."""
    status = dict(decision.status)
    last = (obj.get("status") or {}).get("lastScaleTime")
    if last is None:
        status.pop("lastScaleTime", None)
    else:
        status["lastScaleTime"] = last
    message = (
        f"preview mode: the target would be scaled to {decision.desired_replicas}; "
        "/scale is not written"
    )
    status["conditions"] = [
        {**c, "reason": _PREVIEW_REASON, "message": message}
        if c.get("type") == "AbleToScale" and c.get("reason") == "SucceededRescale"
        else c
        for c in status.get("conditions") or ()
    ]
    return dataclasses.replace(
        decision,
        rescale=False,
        status=status,
        events=tuple(e for e in decision.events if e.reason != "SuccessfulRescale"),
        history=decision.history_without_rescale or decision.history,
    )
