"""The IntelligentHorizontalPodAutoscaler controller shell: informers, I/O, wake-ups.

An IHPA event (created, deleted, or its generation changed, as Kapacity's
``GenerationChangedPredicate``) or a change of the ReplicaProfile it controls enqueues
``namespace/name``. ``reconcile`` reads the IHPA afresh, reads it into ``types.Ihpa`` (a
field of the wrong type sets ``ScalingActive`` False ``FailedParseSpec``, podscale's
reason, and is not retried), asks each portrait provider (``portrait_sources``; a spec
``validation.portrait_problem`` refuses fails first), reads the ReplicaProfile of the same
name, lets ``reconcile.decide`` choose, then writes: the status through the ``status``
subresource (only when it changed), the ReplicaProfile (created with the IHPA as its
controller owner, so the garbage collector removes it; merge-patched; deleted in Preview
mode), and the events, as component ``ihpa_controller``. A failed ReplicaProfile write sets
``ScalingActive`` False with Kapacity's ``FailedCreateReplicaProfile`` /
``FailedUpdateReplicaProfile`` / ``FailedDeleteReplicaProfile`` and is retried through the
work queue's backoff, as a failed portrait fetch is. The next look is ``add_after``: the
gray change's next step, a Cron rule's next start or end, a Reactive provider's sync
period, a Predictive provider's next point or refit (``predictive_source``, which reads
the usage history handed in as ``history``).
Pods and ``/scale`` are the ReplicaProfile controller's (``rp_controller``); this one never
touches them. The stability checkers are read (``checker_readings``, through the same
``MetricsClient`` as the Reactive portrait) only while a gray change runs; their last
anomalies are kept in memory per object. The writes are ``ihpa_writes``'.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.cache import object_key
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.kapacity import reconcile as decision
from podscale.controllers.kapacity.checker_readings import read_checkers
from podscale.controllers.kapacity.ihpa_status import IhpaStatus
from podscale.controllers.kapacity.ihpa_writes import existing_profile, write_profile, write_status
from podscale.controllers.kapacity.kind import (
    CRD_NAME,
    IHPA,
    REPLICA_PROFILE,
    REPLICA_PROFILE_CRD_NAME,
)
from podscale.controllers.kapacity.portrait_sources import Sourced, dynamic_provider_id, offer_of
from podscale.controllers.kapacity.portraits import PortraitValue as Offered
from podscale.controllers.kapacity.predictive_source import PredictivePortraits
from podscale.controllers.kapacity.reactive import ReactiveError, reactive_replicas
from podscale.controllers.kapacity.reading import JSON, Condition, KapacityError, conditions
from podscale.controllers.kapacity.stability import CheckerReading
from podscale.controllers.kapacity.types import Ihpa, PortraitProvider, ProviderType, parse_ihpa
from podscale.controllers.kapacity.validation import portrait_problem
from podscale.controllers.phpa.forecasting import Fit, fit_series
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import controller_ref_of, meta
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.history import SeriesReader
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "IhpaController"]

_LOG = logging.getLogger(__name__)

CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
COMPONENT: Final = "ihpa_controller"  # Kapacity's IHPAControllerName, its event source
_FETCH_PREFIX: Final = "failed to update and fetch portrait value: "
_RP_FAILURES: Final = {
    "create": ("FailedCreateReplicaProfile", "failed to create ReplicaProfile"),
    "patch": ("FailedUpdateReplicaProfile", "failed to patch ReplicaProfile"),
    "delete": ("FailedDeleteReplicaProfile", "failed to delete ReplicaProfile"),
}


class IhpaController:
    """Keeps each IHPA's ReplicaProfile and status; see the module docstring."""

    name: Final = "ihpa"
    workers_flag: Final = "concurrent_ihpa_syncs"
    # The IHPA and ReplicaProfile informers are made in ``bind`` with CRD-gated sources.
    informer_kinds: Final[Sequence[KindInfo]] = (CRD,)

    def __init__(
        self,
        api: ControllerApi,
        clock: Clock,
        metrics: MetricsClient | None = None,
        *,
        history: SeriesReader | None = None,
        fit: Fit = fit_series,
    ) -> None:
        self._api = api
        self._clock = clock
        # For the Dynamic provider's Reactive portraits and the stability checkers.
        self._metrics = metrics
        self._recorder = EventRecorder(api, clock, COMPONENT)
        self._sources = {
            CRD_NAME: GatedListWatcher(api, IHPA),
            REPLICA_PROFILE_CRD_NAME: GatedListWatcher(api, REPLICA_PROFILE),
        }
        self._queue: WorkQueue[str] | None = None
        self._anomalies: dict[str, Mapping[str, dt.datetime]] = {}
        # Per object and Dynamic provider index: the last Reactive value and when it was
        # made (what Kapacity's HorizontalPortrait status holds between two generations).
        self._reactive: dict[str, dict[int, tuple[Offered | None, dt.datetime]]] = {}
        # Predictive portraits forecast the usage history (``fit``: tests pass a small model).
        self._predictive = PredictivePortraits(api, history, fit)

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        informers.informer_for(CRD).add_handler(
            EventHandler(self._crd_seen, lambda _old, new: self._crd_seen(new))
        )
        ihpas = informers.informer_for(IHPA, self._sources[CRD_NAME])
        ihpas.add_handler(EventHandler(self._enqueue, self._ihpa_updated, self._enqueue))
        profiles = informers.informer_for(REPLICA_PROFILE, self._sources[REPLICA_PROFILE_CRD_NAME])
        profiles.add_handler(EventHandler(self._owner, self._profile_updated, self._owner))

    def _bound(self) -> WorkQueue[str]:
        if self._queue is None:
            raise RuntimeError("IhpaController used before bind()")
        return self._queue

    def _crd_seen(self, crd: JSON) -> None:
        source = self._sources.get(str(meta(crd).get("name")))
        if source is not None and established(crd):
            source.open()

    def _enqueue(self, obj: JSON) -> None:
        self._bound().add(object_key(obj))

    def _ihpa_updated(self, old: JSON, new: JSON) -> None:
        if meta(old).get("generation") != meta(new).get("generation"):
            self._enqueue(new)

    def _owner(self, profile: JSON) -> None:
        ref = controller_ref_of(profile)
        if ref is not None and ref.get("kind") == IHPA.kind:
            self._bound().add(f"{meta(profile).get('namespace')}/{ref.get('name')}")

    def _profile_updated(self, old: JSON, new: JSON) -> None:
        if meta(old).get("generation") != meta(new).get("generation"):
            self._owner(new)

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        namespace, _, name = key.rpartition("/")
        try:
            obj = await self._api.get(IHPA, namespace, name)
        except ApiError as err:
            if err.status == 404:
                self._forget(key)
                return
            raise
        if meta(obj).get("deletionTimestamp"):
            self._forget(key)
            return
        now = self._clock.now()
        try:
            ihpa = parse_ihpa(obj)
        except KapacityError as err:
            await self._unreadable(obj, str(err), now)
            return
        sourced = [] if ihpa.spec.paused else await self._offers(key, ihpa, now)
        existing = await existing_profile(self._api, ihpa)
        chosen = decision.decide(
            ihpa,
            [s.result for s in sourced],
            existing,
            await self._readings(ihpa, now),
            self._anomalies.get(key, {}),
            now,
        )
        self._anomalies[key] = chosen.last_anomaly
        status = chosen.status
        try:
            await write_profile(self._api, obj, ihpa, chosen)
        except ApiError as err:
            reason, what = _RP_FAILURES[chosen.rp_action]
            message = f"{what}: {err}"
            failed = decision.set_condition(
                status.conditions,
                decision.SCALING_ACTIVE,
                "False",
                reason,
                message,
                ihpa.generation,
                now,
            )
            await write_status(
                self._api, obj, IhpaStatus(status.previous, status.current, status.gray, failed)
            )
            await self._recorder.record(obj, "Warning", reason, message)
            raise
        await write_status(self._api, obj, status)
        for event_type, reason, message in chosen.events:
            await self._recorder.record(obj, event_type, reason, message)
        if chosen.failed:
            raise RuntimeError(f"IntelligentHorizontalPodAutoscaler {key}: {chosen.events[-1][2]}")
        self._wake(key, chosen, sourced, ihpa, now)

    async def _readings(self, ihpa: Ihpa, now: dt.datetime) -> tuple[CheckerReading, ...]:
        """The stability checkers now, read only while a gray change runs (they act on
        nothing else); without a metrics client they are not read."""
        if self._metrics is None or ihpa.spec.paused or not ihpa.spec.stability_checkers:
            return ()
        if not decision.gray_in_force(ihpa, now):
            return ()
        return await read_checkers(self._api, self._metrics, ihpa, now)

    def _forget(self, key: str) -> None:
        self._anomalies.pop(key, None)
        self._reactive.pop(key, None)
        self._predictive.forget(key)

    async def _offers(self, key: str, ihpa: Ihpa, now: dt.datetime) -> list[Sourced]:
        problem = portrait_problem(ihpa.spec)
        if problem is not None:
            error = problem.message.removeprefix(_FETCH_PREFIX)
            return [Sourced(decision.ProviderResult(error=error))]
        offers = []
        for index, provider in enumerate(ihpa.spec.portrait_providers):
            spec = provider.dynamic
            if spec is not None and spec.portrait_type == "Predictive":
                value, changes = await self._predictive.offer(key, index, ihpa, spec, now)
                offers.append(replace(offer_of(provider, now, value), changes_at=changes))
                continue
            dynamic = await self._dynamic(key, index, ihpa, provider, now)
            offers.append(offer_of(provider, now, dynamic))
        return offers

    async def _dynamic(
        self, key: str, index: int, ihpa: Ihpa, provider: PortraitProvider, now: dt.datetime
    ) -> Offered | None:
        """A Reactive KubeHPA portrait, regenerated once per sync period (Predictive ones
        are ``predictive_source``'s); other Dynamic portraits offer nothing."""
        spec = provider.dynamic
        if spec is None or spec.portrait_type != "Reactive" or self._metrics is None:
            return None
        algorithm = spec.algorithm.kube_hpa
        if spec.algorithm.type != "KubeHPA" or algorithm is None:
            return None
        held = self._reactive.setdefault(key, {})
        last = held.get(index)
        if last is not None and now < last[1] + algorithm.sync_period:
            return last[0]
        value = None if last is None else last[0]
        try:
            replicas = await reactive_replicas(
                self._api,
                self._metrics,
                ihpa.namespace,
                ihpa.spec.target.to_json(),
                spec.metrics,
                algorithm,
                now,
            )
        except ReactiveError as err:
            # Kapacity keeps the last portrait data and reports on the HorizontalPortrait.
            _LOG.info("reactive portrait of %s not generated: %s", key, err)
        else:
            value = Offered(dynamic_provider_id(spec.portrait_type), replicas)
        held[index] = (value, now)
        return value

    async def _unreadable(self, obj: JSON, message: str, now: dt.datetime) -> None:
        try:
            held = conditions((obj.get("status") or {}).get("conditions"), "status.conditions")
        except KapacityError:
            held = ()
        generation = meta(obj).get("generation")
        updated: tuple[Condition, ...] = decision.set_condition(
            held,
            decision.SCALING_ACTIVE,
            "False",
            "FailedParseSpec",
            message,
            generation if isinstance(generation, int) else 0,
            now,
        )
        await write_status(self._api, obj, IhpaStatus(conditions=updated))
        await self._recorder.record(obj, "Warning", "FailedParseSpec", message)

    def _wake(
        self,
        key: str,
        chosen: decision.Decision,
        sourced: Sequence[Sourced],
        ihpa: Ihpa,
        now: dt.datetime,
    ) -> None:
        waits = [chosen.requeue_after] if chosen.requeue_after is not None else []
        waits += [s.changes_at - now for s in sourced if s.changes_at is not None]
        for provider in ihpa.spec.portrait_providers:
            dynamic = provider.dynamic
            if provider.type == ProviderType.DYNAMIC and dynamic and dynamic.algorithm.kube_hpa:
                waits.append(dynamic.algorithm.kube_hpa.sync_period)
        if waits:
            self._bound().add_after(key, max(min(waits), dt.timedelta(0)))
