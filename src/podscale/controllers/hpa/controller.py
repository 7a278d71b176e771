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
  pods from the pod informer by ``status.selector`` and find every HPA controlling them
  (``selector_index``), ask the ``MetricsClient`` what the engine will ask and ``decide``
  (``prefetch.QueryMemory``), write ``/scale`` only to rescale (``writes.rescale``;
  ``FailedRescale`` when that fails), record the decision's events (component
  ``horizontal-pod-autoscaler``), write the status only when it changed
  (``writes.write_status``), and keep history and the last trace (``state_keeper``).
- Observability: upstream's reconciliation and metric computation metrics (``monitor``).
- Beyond upstream, replicas fights: when the replicas read through ``/scale`` moved away
  from what was accounted for, the target object's ``managedFields`` name the manager that
  wrote them (``contest_target.observe_replicas``, ``podscale.hpa.contest``); the verdict
  goes into the decision as podscale's ``ReplicasContested`` condition, a Warning event
  and the trace's ``contest`` (``podscale.hpa.contest_verdict``). ``field_manager`` is the
  manager this controller's own ``/scale`` writes carry.

Beyond upstream, given a ``StateStore`` (``ControllerContext.history``) the engine's history
survives a controller restart; what is remembered of each HPA between syncs, and how it is
loaded, stored and migrated from older versions' annotations, is ``state_keeper``'s.
Without a store (None), the controller keeps everything in memory, as upstream does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.cache import Lister, object_key
from podscale.client.informer import EventHandler, Informer
from podscale.client.workqueue import WorkQueue
from podscale.controllers.hpa.contest_target import observe_replicas
from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.hpa.monitor import (
    ACTION_NONE,
    ACTION_SCALE_DOWN,
    ACTION_SCALE_UP,
    ERROR_INTERNAL,
    ERROR_NONE,
    ERROR_SPEC,
    ControllerMetrics,
    decision_error,
)
from podscale.controllers.hpa.pod_memo import PodMemo
from podscale.controllers.hpa.prefetch import QueryMemory, QueryRecorder, RecordedMetrics
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.hpa.selector_index import SelectorIndex
from podscale.controllers.hpa.state_keeper import StateKeeper
from podscale.controllers.hpa.writes import rescale, write_status
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.history import StateStore
from podscale.hpa import Config, Decision, History, decide
from podscale.hpa.contest import AUTOSCALER_MANAGER, record_own_write, settle
from podscale.hpa.contest_verdict import apply_contest, disagrees
from podscale.hpa.scale_failures import scale_unavailable
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "DEFAULT_SYNC_PERIOD", "HorizontalPodAutoscalerController"]

_LOG = logging.getLogger(__name__)
HPA: Final = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
POD: Final = kind_for("v1", "Pod")
COMPONENT: Final = "horizontal-pod-autoscaler"
# kube-controller-manager's --horizontal-pod-autoscaler-sync-period default.
DEFAULT_SYNC_PERIOD: Final = timedelta(seconds=15)

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
        # Per key: the engine's History, the stored documents, the replicas writes seen.
        self._kept = StateKeeper(api, history, self._config, self.autoscaler_kind)
        self._due: dict[str, datetime] = {}
        # Per HPA: the metric queries last recorded, and the inputs they depend on.
        self._queries = QueryMemory()
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
        self._kept.delete(key, hpa)

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
            self._kept.forget(key)
            self._due.pop(key, None)
            self._queries.forget(key)
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

    async def _sync(self, key: str, hpa: JSON) -> tuple[str, str]:
        """One ``reconcileAutoscaler``; returns the (action, error) metric labels."""
        now = self._clock.now()
        hpa = await self._kept.load(key, hpa, now)
        hpa.setdefault("apiVersion", self.autoscaler_kind.api_version)
        hpa.setdefault("kind", self.autoscaler_kind.kind)
        namespace = str(_meta(hpa).get("namespace") or "")
        history = self._kept.histories.get(key)
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
        contest, observed = await observe_replicas(
            self._api,
            self._kept.contests.get(key),
            scale,
            target_kind,
            namespace,
            ref,
            now,
            own_manager=self.field_manager,
        )
        pods, controlling = self._selectors.target_pods(self._bound()[2], key, namespace, scale)
        decision, recorded = await self._queries.decide(
            key,
            hpa,
            scale,
            controlling,
            lambda metrics: self._decide(hpa, scale, pods, metrics, history, now, controlling),
            self._metrics,
            self._timer,
        )
        if observed is not None:
            contest, observed = settle(contest, observed, contested=disagrees(decision))
        target = f"{ref.get('kind') or ''}/{ref.get('name') or ''}"
        decision = apply_contest(decision, contest, target=target, now=now, observed=observed)
        action = ACTION_NONE
        if decision.rescale:
            decision, written = await rescale(
                self._api, target_kind, namespace, scale, hpa, decision, now
            )
            if written:
                up = decision.desired_replicas > decision.current_replicas
                action = ACTION_SCALE_UP if up else ACTION_SCALE_DOWN
                contest = record_own_write(contest, decision.desired_replicas, now)
        self._kept.contests.put(key, str(_meta(hpa).get("uid") or ""), contest)
        self._kept.histories[key] = decision.history
        self.monitor.observe_metrics(hpa, decision, recorded)
        status_written = await self._publish(hpa, decision, decision.history, now)
        if decision.error is not None:
            _LOG.info("HorizontalPodAutoscaler %s: %s", key, decision.error)
            return action, decision_error(decision)
        return action, ERROR_NONE if status_written else ERROR_INTERNAL

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

    # -- writing ----------------------------------------------------------------------

    async def _publish(
        self, hpa: JSON, decision: Decision, history: History | None, now: datetime
    ) -> bool:
        """Events, the stored documents, then the status. Returns False when the status
        write failed."""
        for event in decision.events:
            await self._recorder.record(hpa, event.type, event.reason, event.message)
        self._kept.store(hpa, decision, history, now)
        if decision.status != (hpa.get("status") or {}):
            return await write_status(
                self._api, self._recorder, self.autoscaler_kind, hpa, decision.status
            )
        return True
