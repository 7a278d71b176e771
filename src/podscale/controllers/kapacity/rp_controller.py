"""The ReplicaProfile controller shell: pods into their states, the target to its replicas.

As Kapacity's ReplicaProfile reconciler, this is the only writer of the target's ``/scale``
and of its pods' state labels and online readiness gates (the IHPA controller only writes
ReplicaProfiles). A sync of ``namespace/name``: a paused profile gets ReplicaProfileApplied
and ReplicaProfileEnsured False ``ReplicaProfilePaused`` and nothing else. Otherwise the
target's Scale is read (``FailedGetScale``), its ``status.selector`` parsed
(``InvalidSelector``) and remembered for the pod handler, the matching pods read from the
pod informer and classified (``pod_states``); the status takes the counts and
ReplicaProfileEnsured (True, or False ``ReplicaNumberNotSatisfied``). When not ensured and
some pod is or should be Cutoff or Standby, the states change only if the running pods are
as many as the Scale's ``spec.replicas`` (a workload mid-rollout is left alone:
ReplicaProfileApplied False ``StateChangeSkipped``): the pods are ranked by the workload's
order (``pod_sorter``), ``pod_states.plan_state_change`` picks the moves, and each group
gets its event (``OnlinePods``, ``CutoffPods``, ``StandbyPods``), its readiness gate
(``pod_traffic``) and its state label. Then ``/scale`` is updated to online + cutoff +
standby (event ``UpdateScale``). A failure sets its condition, records a Warning event
with Kapacity's reason and text, and raises, so the work queue retries with backoff.

Profiles are enqueued when created or when their generation changes (status writes do not
requeue), and when a pod their cached selector matches is added or deleted, starts or stops
running, or changes state label. The ReplicaProfile informer waits for its CRD as the
CronHPA controller's does.

podscale's differences, each because the simulation has no other party to do it: a running
Online pod whose spec declares the ``kapacitystack.io/online`` gate but has no such
condition gets it True (else a newly created gated pod would never become Ready; Kapacity
leaves that to a webhook or the user); pods moved to Standby also get their gate False
(Kapacity leaves Standby traffic as a TODO, yet a standby pod's resources are reclaimed,
see ``runtime.simulated.usage_ledger``); a Deployment's pods are ranked by upstream's
ReplicaSet deletion order (Kapacity's Deployment sorter is unimplemented).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from podscale.api.kinds import KindInfo, kind_for
from podscale.api.selector_model import Selector, SelectorError
from podscale.api.selector_parser import parse_selector
from podscale.client.cache import Lister, object_key
from podscale.client.http import ApiError
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.hpa.scale_target import ScaleTargetError, read_scale, resolve_target
from podscale.controllers.kapacity.kind import REPLICA_PROFILE, REPLICA_PROFILE_CRD_NAME
from podscale.controllers.kapacity.pod_sorter import UnknownWorkload, sort_pods, workload_of
from podscale.controllers.kapacity.pod_states import (
    Classified,
    Desired,
    PodState,
    allowed_online,
    classify,
    is_running,
    plan_state_change,
    state_of,
)
from podscale.controllers.kapacity.pod_traffic import POD, needs_online_gate, set_gate, set_state
from podscale.controllers.kapacity.reading import KapacityError
from podscale.controllers.kapacity.replicaprofile import (
    PodSorterType,
    TrafficControllerType,
    parse_replica_profile,
)
from podscale.controllers.kapacity.rp_status import (
    APPLIED,
    APPLIED_MESSAGE,
    ENSURED,
    ENSURED_MESSAGE,
    NOT_SATISFIED_MESSAGE,
    PAUSED_MESSAGE,
    SKIPPED_MESSAGE,
    go_list,
)
from podscale.controllers.kapacity.rp_sync import ProfileSync, SyncFailed
from podscale.controllers.runtime_api import ControllerApi, SharedInformers
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import meta
from podscale.controllers.webapp.definition_gate import GatedListWatcher, established
from podscale.store.interface import Clock

__all__ = ["COMPONENT", "ReplicaProfileController", "SyncFailed"]

CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
# Kapacity's controller name, which its events carry as their source.
COMPONENT: Final = "replica_profile_controller"
_LOG = logging.getLogger(__name__)

JSON = dict[str, Any]


class ReplicaProfileController:
    """Brings a ReplicaProfile's target to its pod states; see the module docstring."""

    name: Final = "replicaprofile"
    workers_flag: Final = "concurrent_replicaprofile_syncs"
    informer_kinds: Final[Sequence[KindInfo]] = (CRD, POD)

    def __init__(self, api: ControllerApi, clock: Clock) -> None:
        self.api = api
        self.clock = clock
        self.recorder = EventRecorder(api, clock, COMPONENT)
        self._source = GatedListWatcher(api, REPLICA_PROFILE)
        self._queue: WorkQueue[str] | None = None
        self._profiles: Lister | None = None
        self._pods: Lister | None = None
        # Per profile key, its target's pod selector (assumed immutable, as Kapacity does).
        self._selectors: dict[str, Selector] = {}

    # -- wiring -----------------------------------------------------------------------

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self._queue = queue
        profiles = informers.informer_for(REPLICA_PROFILE, self._source)
        self._profiles = profiles.lister
        profiles.add_handler(EventHandler(self._enqueue, self._profile_updated, self._forget))
        informers.informer_for(CRD).add_handler(
            EventHandler(self._crd_seen, lambda _old, new: self._crd_seen(new))
        )
        pods = informers.informer_for(POD)
        self._pods = pods.lister
        pods.add_handler(EventHandler(self._pod_changed, self._pod_updated, self._pod_changed))

    def _bound(self) -> tuple[WorkQueue[str], Lister, Lister]:
        if self._queue is None or self._profiles is None or self._pods is None:
            raise RuntimeError("ReplicaProfileController used before bind()")
        return self._queue, self._profiles, self._pods

    def _crd_seen(self, crd: JSON) -> None:
        if meta(crd).get("name") == REPLICA_PROFILE_CRD_NAME and established(crd):
            self._source.open()

    def _enqueue(self, obj: JSON) -> None:
        self._bound()[0].add(object_key(obj))

    def _profile_updated(self, old: JSON, new: JSON) -> None:
        if meta(old).get("generation") != meta(new).get("generation"):
            self._enqueue(new)

    def _forget(self, obj: JSON) -> None:
        self._selectors.pop(object_key(obj), None)

    def _pod_updated(self, old: JSON, new: JSON) -> None:
        running = is_running(old), is_running(new)
        if running == (False, False):
            return
        labels = meta(old).get("labels"), meta(new).get("labels")
        if running[0] != running[1] or state_of(labels[0]) != state_of(labels[1]):
            self._pod_changed(new)

    def _pod_changed(self, pod: JSON) -> None:
        queue, profiles, _ = self._bound()
        labels = meta(pod).get("labels") or {}
        for profile in profiles.list(str(meta(pod).get("namespace") or "")):
            selector = self._selectors.get(object_key(profile))
            if selector is None or not selector.matches(labels):
                continue
            # One profile per pod; a deleting or paused one has nothing to do.
            spec = profile.get("spec") or {}
            if not meta(profile).get("deletionTimestamp") and not spec.get("paused"):
                queue.add(object_key(profile))
            return

    # -- sync -------------------------------------------------------------------------

    async def reconcile(self, key: str) -> None:
        namespace, _, name = key.rpartition("/")
        try:
            obj = await self.api.get(REPLICA_PROFILE, namespace, name)
        except ApiError as err:
            if err.status == 404:
                self._selectors.pop(key, None)
                return
            raise
        if meta(obj).get("deletionTimestamp"):
            self._selectors.pop(key, None)
            return
        try:
            rp = parse_replica_profile(obj)
        except KapacityError as err:  # the schema keeps this out; never crash on it
            _LOG.warning("ignoring ReplicaProfile %s: %s", key, err)
            return
        sync = ProfileSync(self.api, self.clock, self.recorder, obj, rp)
        if rp.spec.paused:
            sync.set(APPLIED, "False", "ReplicaProfilePaused", PAUSED_MESSAGE)
            sync.set(ENSURED, "False", "ReplicaProfilePaused", PAUSED_MESSAGE)
            await sync.write()
            return
        scale, info, selector = await self._read_scale(sync)
        self._selectors.setdefault(key, selector)
        pods = self._bound()[2].list(namespace, selector)
        await self._open_new_gates(pods)
        counts = classify(pods)
        sync.counts = counts
        spec = rp.spec
        ensured = (len(counts.online), len(counts.cutoff), len(counts.standby)) == (
            spec.online_replicas,
            spec.cutoff_replicas,
            spec.standby_replicas,
        )
        if ensured:
            sync.set(ENSURED, "True", ENSURED, ENSURED_MESSAGE)
        else:
            sync.set(ENSURED, "False", "ReplicaNumberNotSatisfied", NOT_SATISFIED_MESSAGE)
        await sync.write()
        if ensured:
            return
        # allowedScalingDirection bounds the online count against the pods online now: what
        # it forbids stays unsatisfied (Ensured False) and is not acted on.
        online = allowed_online(
            spec.allowed_scaling_direction, spec.online_replicas, len(counts.online)
        )
        sync.rp = rp = replace(rp, spec=replace(spec, online_replicas=online))
        spec = rp.spec
        needed = bool(spec.cutoff_replicas or spec.standby_replicas)
        needed = needed or bool(counts.cutoff or counts.standby)
        current = int((scale.get("spec") or {}).get("replicas") or 0)
        possible = counts.total == current
        if needed and possible and not await self._change_states(sync, pods, counts):
            return
        desired = spec.workload_replicas
        if desired != current:
            message = f"rescale target workload from {current} to {desired} replicas"
            await sync.event("Normal", "UpdateScale", message)
            body = {**scale, "spec": {**(scale.get("spec") or {}), "replicas": desired}}
            try:
                await self.api.update(info, namespace, body, "scale")
            except ApiError as err:
                message = f"failed to update the target's scale: {err}"
                raise await sync.fail(APPLIED, "FailedUpdateScale", message) from None
        if not needed or possible:
            sync.set(APPLIED, "True", APPLIED, APPLIED_MESSAGE)
        else:
            sync.set(APPLIED, "False", "StateChangeSkipped", SKIPPED_MESSAGE)
        await sync.write()

    async def _read_scale(self, sync: ProfileSync) -> tuple[JSON, KindInfo, Selector]:
        target = sync.rp.spec.target
        try:
            mappings = await resolve_target(self.api, target.to_json())
            scale, info = await read_scale(self.api, mappings, sync.rp.namespace, target.name)
        except ScaleTargetError as err:
            message = f"failed to get the target's current scale: {err.message}"
            raise await sync.fail(ENSURED, "FailedGetScale", message) from None
        text = str((scale.get("status") or {}).get("selector") or "")
        try:
            return scale, info, parse_selector(text)
        except SelectorError as err:
            message = f'failed to parse label selector "{text}" of scale: {err}'
            raise await sync.fail(ENSURED, "InvalidSelector", message) from None

    async def _open_new_gates(self, pods: Sequence[Mapping[str, Any]]) -> None:
        for pod in pods:
            if needs_online_gate(pod):
                await set_gate(self.api, pod, True, self.clock.now())

    async def _change_states(
        self, sync: ProfileSync, pods: Sequence[Mapping[str, Any]], counts: Classified
    ) -> bool:
        """Move pods between states; False when the profile cannot be applied (reported)."""
        spec = sync.rp.spec
        try:
            workload = workload_of(spec.target.api_version, spec.target.kind)
        except UnknownWorkload as err:
            message = f"failed to get the target workload: {err}"
            raise await sync.fail(APPLIED, "FailedGetWorkload", message) from None
        if spec.behavior.pod_sorter is not PodSorterType.WORKLOAD_DEFAULT:
            # No Kapacity workload can take an external pick of pods to delete.
            message = "the target workload does not support non default pod sorter"
            await sync.fail(APPLIED, "PodSorterNotSupportedByWorkload", message)
            return False
        if spec.behavior.traffic_controller is not TrafficControllerType.READINESS_GATE:
            message = "failed to get pod traffic controller: todo"  # Kapacity's own text
            raise await sync.fail(APPLIED, "FailedGetPodTrafficController", message)
        running = [p for p in pods if is_running(p)]
        order = sort_pods(workload, running, pods, self.clock.now())
        wanted = Desired(spec.online_replicas, spec.cutoff_replicas, spec.standby_replicas)
        change = plan_state_change(counts, wanted, order)
        by_name = {str(meta(p).get("name")): p for p in running}
        moves = (
            (PodState.ONLINE, change.online, "OnlinePods", "online"),
            (PodState.CUTOFF, change.cutoff, "CutoffPods", "cutoff"),
            (PodState.STANDBY, change.standby, "StandbyPods", "standby"),
        )
        for state, names, reason, verb in moves:
            if not names:
                continue
            await sync.event("Normal", reason, f"{verb} pods: {go_list(names)}")
            for pod_name in names:
                try:
                    await set_gate(
                        self.api, by_name[pod_name], state is PodState.ONLINE, self.clock.now()
                    )
                except ApiError as err:
                    detail = f'failed to set readiness gate of pod "{pod_name}": {err}'
                    failed = "FailedOnlinePods" if state is PodState.ONLINE else "FailedCutoffPods"
                    raise await sync.fail(
                        APPLIED, failed, f"failed to {verb} pods: {detail}"
                    ) from None
            for pod_name in names:
                try:
                    await set_state(self.api, by_name[pod_name], state)
                except ApiError as err:
                    message = f'failed to mark pod "{pod_name}" {verb}: {err}'
                    raise await sync.fail(APPLIED, "FailedSetPodState", message) from None
        return True
