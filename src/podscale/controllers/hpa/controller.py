"""The HorizontalPodAutoscaler controller: a thin shell around the pure ``podscale.hpa``.

Upstream's ``HorizontalController`` (pkg/controller/podautoscaler/horizontal.go), run by
``podscale.controllers.manager.ControllerManager`` on the injected clock (so on virtual
time in tests and simulations):

- Queueing: an HPA add or update schedules its key one sync period later, and every sync
  schedules the next one, as upstream's fixed-interval rate limiter does; a key already
  waiting is not scheduled again (the earlier time wins). A sync that fails is logged and
  retried at the next period, never with backoff. Deleted HPAs are forgotten.
- A sync (``reconcileAutoscaler``): resolve ``scaleTargetRef`` and read ``/scale``
  (``scale_target``; failure is the engine's ``scale_unavailable``), list the target's
  pods from the pod informer by ``status.selector``, find every HPA controlling them
  (``selector_index``), ask the ``MetricsClient`` what the engine will ask
  (``prefetch``), ``decide``, write ``/scale`` only to rescale (``FailedRescale`` via
  ``apply_rescale_failure`` when that fails), record the decision's events (component
  ``horizontal-pod-autoscaler``), write the status through ``status`` only when it
  changed, and keep history and the last trace in the state store (``history_store``).
- Observability: upstream's reconciliation and metric computation metrics (``monitor``).
- Beyond upstream, replicas fights: when the replicas read through ``/scale`` moved away
  from what was accounted for, the target object's ``managedFields`` name the manager that
  wrote them (``contest_target``, ``podscale.hpa.contest``); the verdict goes into the
  decision as podscale's ``ReplicasContested`` condition, a Warning event and the trace's
  ``contest`` (``podscale.hpa.contest_verdict``). ``field_manager`` is the manager this
  controller's own ``/scale`` writes carry.

Beyond upstream, given a ``StateStore`` (``ControllerContext.history``) the engine's history
survives a controller restart: it is stored under the HPA's uid, read at the first sync
of an HPA and rewritten only when it meaningfully changed (``history_store``); an HPA's
documents are deleted with it. An HPA still carrying the annotations older versions kept
them in is read once and the annotations removed. Without a store (None), the controller
keeps everything in memory, as upstream does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

import orjson

from podscale.api.json_copy import copy_json
from podscale.api.kinds import KindInfo, kind_for
from podscale.api.selectors import SelectorError, parse_selector
from podscale.client.cache import Lister, object_key
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler, Informer
from podscale.client.workqueue import WorkQueue
from podscale.controllers.hpa.contest_target import UNREADABLE, ContestMemory, read_owners
from podscale.controllers.hpa.history_store import (
    HISTORY_STATE,
    LAST_DECISION_STATE,
    LEGACY_ANNOTATIONS,
    legacy_state,
    load_history,
    state_changes,
    trace_signature,
)
from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.hpa.monitor import (
    ACTION_NONE,
    ACTION_SCALE_DOWN,
    ACTION_SCALE_UP,
    ERROR_INTERNAL,
    ERROR_NONE,
    ERROR_SPEC,
    ControllerMetrics,
)
from podscale.controllers.hpa.pod_memo import PodMemo
from podscale.controllers.hpa.prefetch import (
    MetricQuery,
    QueryRecorder,
    RecordedMetrics,
    fetch_answers,
)
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.hpa.selector_index import SelectorIndex
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.history import StateStore
from podscale.hpa import Config, Decision, History, decide
from podscale.hpa.contest import (
    AUTOSCALER_MANAGER,
    REPLICAS_WRITES_STATE,
    ContestState,
    ReplicasWrite,
    needs_owners,
    observe,
    record_own_write,
    settle,
)
from podscale.hpa.contest_verdict import apply_contest, disagrees
from podscale.hpa.scale_failures import apply_rescale_failure, scale_unavailable
from podscale.hpa.trace import DecisionTrace
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "DEFAULT_SYNC_PERIOD", "HorizontalPodAutoscalerController"]

_LOG = logging.getLogger(__name__)
HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
POD: Final = kind_for("v1", "Pod")
COMPONENT: Final = "horizontal-pod-autoscaler"
# kube-controller-manager's --horizontal-pod-autoscaler-sync-period default.
DEFAULT_SYNC_PERIOD: Final = timedelta(seconds=15)
MERGE_PATCH: Final = "application/merge-patch+json"
# Upstream marks this metric failure as a fault of the spec (errSpec).
_SPEC_METRIC_ERROR: Final = "unknown metric source type"

JSON = dict[str, Any]


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


class HorizontalPodAutoscalerController:
    """Scales each HPA's target every sync period; see the module docstring."""

    # Not Final: the predictive autoscaler's controller (``controllers.phpa``) reuses this
    # one under its own names and kind, overriding ``_autoscaler_informer`` too.
    name: str = "horizontalpodautoscaler"
    workers_flag: str = "concurrent_horizontal_pod_autoscaler_syncs"
    informer_kinds: Sequence[KindInfo] = (HPA, POD)
    # The kind of the synced objects: their status and annotation writes go there.
    autoscaler_kind: KindInfo = HPA
    # The manager this controller's /scale writes are recorded under (kube-controller-
    # manager's user-agent prefix, as the embedded plane's controllers write).
    field_manager: str = AUTOSCALER_MANAGER

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        metrics: MetricsClient,
        *,
        config: Config | None = None,
        sync_period: timedelta = DEFAULT_SYNC_PERIOD,
        history: StateStore | None = None,
        monitor: ControllerMetrics | None = None,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._api = api
        self._clock = clock
        self._metrics = metrics
        self._config = config or Config()
        self._sync_period = sync_period
        self._state = history
        self.monitor = monitor or ControllerMetrics()
        self._timer = timer
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._selectors = SelectorIndex()
        # Upstream's recommendations/scaleUpEvents/scaleDownEvents maps, one History per key.
        self._histories: dict[str, History] = {}
        # Per key: the uid of the HPA whose stored state was loaded (a new uid under the
        # same name is a re-created HPA: loaded afresh), and its documents as stored.
        self._loaded: dict[str, str] = {}
        self._stored: dict[str, dict[str, JSON]] = {}
        self._due: dict[str, datetime] = {}
        # Per key: the signature of the trace last stored, so an unchanged trace is not
        # encoded again on every sync.
        self._stored_traces: dict[str, DecisionTrace] = {}
        # Per HPA: the inputs its metric queries were last recorded from, and those queries.
        self._queries: dict[str, tuple[bytes, list[MetricQuery]]] = {}
        # Per key: who else wrote the target's replicas (podscale.hpa.contest).
        self._contests = ContestMemory(history)
        # The engine's per-pod values (readiness facts, requests) by pod object.
        self._pod_memo = PodMemo()
        self._queue: WorkQueue[str] | None = None
        self._hpa_lister: Lister | None = None
        self._pod_lister: Lister | None = None

    # -- wiring -----------------------------------------------------------------------

    def _autoscaler_informer(self, informers: SharedInformers) -> Informer:
        """The informer of the autoscaler objects this controller syncs."""
        return informers.informer_for(HPA)

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        hpa_informer = self._autoscaler_informer(informers)
        self._queue = queue
        self._hpa_lister = hpa_informer.lister
        self._pod_lister = informers.informer_for(POD).lister
        hpa_informer.add_handler(
            EventHandler(self._enqueue, lambda _old, new: self._enqueue(new), self._forget)
        )

    def _bound(self) -> tuple[WorkQueue[str], Lister, Lister]:
        if self._queue is None or self._hpa_lister is None or self._pod_lister is None:
            raise RuntimeError("HorizontalPodAutoscalerController used before bind()")
        return self._queue, self._hpa_lister, self._pod_lister

    def _enqueue(self, hpa: JSON) -> None:
        key = object_key(hpa)
        self._selectors.register(str(_meta(hpa).get("namespace") or ""), key)
        self._schedule(key)

    def _forget(self, hpa: JSON) -> None:
        key = object_key(hpa)
        self._bound()[0].forget(key)
        self._selectors.remove(str(_meta(hpa).get("namespace") or ""), key)
        uid = str(_meta(hpa).get("uid") or "")
        if self._state is not None and uid:
            try:
                self._state.delete_state(uid)
            except Exception:  # a store failure must not stop the informer's handlers
                _LOG.exception("could not delete the stored state of %s", key)

    def _schedule(self, key: str) -> None:
        """Sync ``key`` one period from now, unless a sync is already waiting."""
        now = self._clock.now()
        pending = self._due.get(key)
        if pending is not None and pending > now:
            return
        self._due[key] = now + self._sync_period
        self._bound()[0].add_after(key, self._sync_period)

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        """Upstream's ``reconcileKey`` plus the requeue of ``processNextWorkItem``."""
        _, hpa_lister, _ = self._bound()
        namespace, _, name = key.rpartition("/")
        cached = hpa_lister.get(namespace, name)
        if cached is None:
            self._histories.pop(key, None)
            self._loaded.pop(key, None)
            self._stored.pop(key, None)
            self._due.pop(key, None)
            self._stored_traces.pop(key, None)
            self._queries.pop(key, None)
            self._contests.forget(key)
            self._selectors.remove(namespace, key)
            return
        started = self._timer()
        action, error = ACTION_NONE, ERROR_INTERNAL
        try:
            # A shallow copy: ``_sync`` only sets the copy's top-level apiVersion and kind;
            # everything else (the engine, events, the status write, which copies its body)
            # only reads the HPA, so the informer's cached object is never changed (checked
            # by tests/integration/controllers/test_hpa_cache_untouched.py). A deep copy of
            # the whole object (managedFields, status) was a twentieth of each sync.
            action, error = await self._sync(key, dict(cached))
        except asyncio.CancelledError:
            raise
        except Exception:
            _LOG.exception("error syncing HorizontalPodAutoscaler %r", key)
        finally:
            if error != ERROR_NONE:
                action = ACTION_NONE
            self.monitor.observe_reconciliation(action, error, self._timer() - started)
        self._schedule(key)

    async def _load(self, key: str, hpa: JSON, now: datetime) -> JSON:
        """At the first sync of an HPA (of this uid): its stored documents, the history
        restored from them, and the migration of older versions' annotations. Returns the
        HPA to sync (the patched object when annotations were removed)."""
        uid = str(_meta(hpa).get("uid") or "")
        loaded = self._loaded.get(key)
        if loaded == uid:
            return hpa
        if loaded is not None:  # re-created under the same name: nothing carries over
            self._histories.pop(key, None)
            self._stored_traces.pop(key, None)
        self._loaded[key] = uid
        self._stored[key] = {}
        self._contests.load(key, None)
        if self._state is None or not uid:
            return hpa
        stored = {
            name: document
            for name in (HISTORY_STATE, LAST_DECISION_STATE)
            if (document := self._state.get_state(uid, name)) is not None
        }
        self._contests.load(key, self._state.get_state(uid, REPLICAS_WRITES_STATE))
        legacy, present = legacy_state(hpa)
        for name, document in legacy.items():
            if name not in stored:
                self._state.put_state(uid, name, document)
                stored[name] = document
        self._stored[key] = stored
        if key not in self._histories:
            restored = load_history(stored.get(HISTORY_STATE), now=now)
            if restored is not None:
                self._histories[key] = restored
        if present:
            return await self._remove_annotations(key, hpa)
        return hpa

    async def _remove_annotations(self, key: str, hpa: JSON) -> JSON:
        """Older versions' annotations off the HPA (their content is in the store now)."""
        meta = _meta(hpa)
        patch = {"metadata": {"annotations": dict.fromkeys(LEGACY_ANNOTATIONS)}}
        try:
            patched = await self._api.patch(
                self.autoscaler_kind,
                str(meta.get("namespace") or ""),
                str(meta.get("name") or ""),
                patch,
                content_type=MERGE_PATCH,
            )
        except ApiError as err:
            _LOG.warning("could not remove the history annotations of %s: %s", key, err)
            self._loaded.pop(key, None)  # try again at the next sync
            return hpa
        return patched

    async def _sync(self, key: str, hpa: JSON) -> tuple[str, str]:
        """One ``reconcileAutoscaler``; returns the (action, error) metric labels."""
        now = self._clock.now()
        hpa = await self._load(key, hpa, now)
        hpa.setdefault("apiVersion", self.autoscaler_kind.api_version)
        hpa.setdefault("kind", self.autoscaler_kind.kind)
        namespace = str(_meta(hpa).get("namespace") or "")
        history = self._histories.get(key)
        ref = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
        try:
            mappings = await resolve_target(self._api, ref)
            scale, target_kind = await read_scale(
                self._api, mappings, namespace, str(ref.get("name") or "")
            )
        except ScaleTargetError as err:
            # Upstream records nothing for an HPA whose scale it never read.
            decision = scale_unavailable(hpa, error=err.message, history=history, now=now)
            await self._publish(hpa, decision, history, now)
            return ACTION_NONE, ERROR_SPEC if err.spec else ERROR_INTERNAL
        contest, observed = await self._observe_replicas(
            key, scale, target_kind, namespace, ref, now
        )
        pods, controlling = self._target_pods(key, namespace, scale)
        inputs = orjson.dumps(
            [hpa.get("spec"), scale.get("spec"), scale.get("status"), controlling],
            option=orjson.OPT_SORT_KEYS,
        )
        remembered = self._queries.get(key)
        queries = remembered[1] if remembered is not None and remembered[0] == inputs else None
        while True:
            if queries is None:
                recorder = QueryRecorder()
                self._decide(hpa, scale, pods, recorder, history, now, controlling)
                queries = recorder.queries
                self._queries[key] = (inputs, queries)
                fresh = True
            else:
                fresh = False
            recorded = await fetch_answers(self._metrics, queries, timer=self._timer)
            decision = self._decide(hpa, scale, pods, recorded, history, now, controlling)
            if fresh or not recorded.missed:
                break
            queries = None  # the remembered questions were not all of them: record again
        if observed is not None:
            contest, observed = settle(contest, observed, contested=disagrees(decision))
        target = f"{ref.get('kind') or ''}/{ref.get('name') or ''}"
        decision = apply_contest(decision, contest, target=target, now=now, observed=observed)
        action = ACTION_NONE
        if decision.rescale:
            body = copy_json(scale)
            body.setdefault("spec", {})["replicas"] = decision.desired_replicas
            try:
                await self._api.update(target_kind, namespace, body, "scale")
            except ApiError as err:
                decision = apply_rescale_failure(decision, hpa, error=str(err), now=now)
            else:
                up = decision.desired_replicas > decision.current_replicas
                action = ACTION_SCALE_UP if up else ACTION_SCALE_DOWN
                contest = record_own_write(contest, decision.desired_replicas, now)
        self._contests.put(key, str(_meta(hpa).get("uid") or ""), contest)
        self._histories[key] = decision.history
        self._observe_metrics(hpa, decision, recorded)
        status_written = await self._publish(hpa, decision, decision.history, now)
        if decision.error is not None:
            _LOG.info("HorizontalPodAutoscaler %s: %s", key, decision.error)
            spec_error = any(
                (m.error or "").startswith(_SPEC_METRIC_ERROR) for m in decision.trace.metrics
            )
            return action, ERROR_SPEC if spec_error else ERROR_INTERNAL
        return action, ERROR_NONE if status_written else ERROR_INTERNAL

    async def _observe_replicas(
        self,
        key: str,
        scale: JSON,
        info: KindInfo,
        namespace: str,
        ref: Mapping[str, Any],
        now: datetime,
    ) -> tuple[ContestState, ReplicasWrite | None]:
        """The contest state after reading ``scale``, and the foreign write seen, if any."""
        state = self._contests.get(key)
        replicas = int((scale.get("spec") or {}).get("replicas") or 0)
        managed: list[Any] | None = None
        if needs_owners(state, replicas):
            owners = await read_owners(self._api, info, namespace, str(ref.get("name") or ""))
            if owners is UNREADABLE:
                return state, None  # look again at the next sync
            managed = owners if isinstance(owners, list) else None
        return observe(
            state,
            replicas=replicas,
            managed_fields=managed,
            now=now,
            own_manager=self.field_manager,
        )

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
        return decide(
            hpa,
            scale=scale,
            pods=pods,
            metrics=metrics,
            history=history,
            now=now,
            config=self._config,
            controlling_hpas=controlling,
            pod_reader=self._pod_memo,
        )

    def _target_pods(self, key: str, namespace: str, scale: JSON) -> tuple[list[JSON], list[str]]:
        """The pods the scale's selector matches and the HPAs controlling any of them."""
        text = str((scale.get("status") or {}).get("selector") or "")
        if not text:
            return [], []
        try:
            selector = parse_selector(text)
        except SelectorError:
            return [], []  # the engine reports InvalidSelector
        self._selectors.update(namespace, key, selector)
        pods = self._bound()[2].list(namespace, selector)
        return pods, self._selectors.controlling(namespace, pods)

    # -- writing ----------------------------------------------------------------------

    async def _publish(
        self, hpa: JSON, decision: Decision, history: History | None, now: datetime
    ) -> bool:
        """Events, the stored documents, then the status. Returns False when the status
        write failed."""
        for event in decision.events:
            await self._recorder.record(hpa, event.type, event.reason, event.message)
        self._store_state(hpa, decision, history, now)
        if decision.status != (hpa.get("status") or {}):
            return await self._write_status(hpa, decision.status)
        return True

    async def _write_status(self, hpa: JSON, status: JSON) -> bool:
        meta = _meta(hpa)
        try:
            await self._api.update(
                self.autoscaler_kind,
                str(meta.get("namespace") or ""),
                {**hpa, "status": status},
                "status",
            )
        except ApiError as err:
            await self._recorder.record(hpa, "Warning", "FailedUpdateStatus", str(err))
            _LOG.warning("failed to update status for %s: %s", meta.get("name"), err)
            return False
        return True

    def _store_state(
        self, hpa: JSON, decision: Decision, history: History | None, now: datetime
    ) -> None:
        """Store what meaningfully changed since the last write (nothing for a quiet HPA)."""
        uid = str(_meta(hpa).get("uid") or "")
        if self._state is None or not uid:
            return
        key = object_key(hpa)
        signature = trace_signature(decision.trace)
        stored = self._stored.setdefault(key, {})
        changes = state_changes(
            stored,
            decision,
            history,
            spec=hpa.get("spec") or {},
            now=now,
            config=self._config,
            trace_unchanged=self._stored_traces.get(key) == signature,
        )
        try:
            for name, document in changes.items():
                self._state.put_state(uid, name, document)
                stored[name] = document
        except Exception:  # a store failure must not stop scaling; compared afresh next time
            _LOG.exception("could not store the history of %s", key)
            self._stored_traces.pop(key, None)
            return
        self._stored_traces[key] = signature

    def _observe_metrics(self, hpa: JSON, decision: Decision, recorded: RecordedMetrics) -> None:
        """``metric_computation_*`` per metric, against the status' old currentReplicas."""
        metrics = decision.trace.metrics
        old_current = int((hpa.get("status") or {}).get("currentReplicas") or 0)
        durations = list(recorded.seconds.values())
        if len(durations) != len(metrics):
            durations = [0.0] * len(metrics)
        for metric, seconds in zip(metrics, durations, strict=True):
            action, error = ACTION_NONE, ERROR_NONE
            if metric.error is not None or metric.replicas is None:
                spec = (metric.error or "").startswith(_SPEC_METRIC_ERROR)
                error = ERROR_SPEC if spec else ERROR_INTERNAL
            elif metric.replicas > old_current:
                action = ACTION_SCALE_UP
            elif metric.replicas < old_current:
                action = ACTION_SCALE_DOWN
            self.monitor.observe_metric_computation(action, error, metric.type, seconds)
