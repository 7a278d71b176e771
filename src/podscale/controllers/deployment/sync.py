"""One Deployment sync's API writes: ReplicaSets, scaling, cleanup, status (I/O shell).

Upstream's ``sync.go`` (``scale``, ``scaleReplicaSet``, ``cleanupDeployment``,
``syncDeploymentStatus``, ``checkPausedConditions``, ``SetDeploymentRevision``) and
``progress.go`` (``syncRolloutStatus``, ``requeueStuckDeployment``) over the pure
decisions of this package. A ``DeploymentSync`` lives for one reconcile: it holds a
working copy of the Deployment and its claimed ReplicaSets, and replaces each object it
writes with the server's answer, so later steps of the same sync never send a stale
resourceVersion. Nothing is copied up front: the working copy shares what it has not
changed with the informer cache (each change is copy-on-write), the ReplicaSet dicts are
only read, and their states come from the controller's ``SyncMemo``.
``deployment.new_replica_set`` finds or creates the new ReplicaSet on it,
``deployment.strategies`` sequences the steps, ``deployment.controller`` creates one per key.

Status goes through the ``status`` subresource and only when it changed. Counts that
are 0 are left out, as the Go types' ``omitempty`` does on the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from podscale.api.json_copy import copy_json
from podscale.api.kinds import kind_for
from podscale.client.http import ApiError
from podscale.controllers.deployment import conditions as cond
from podscale.controllers.deployment.fenceposts import Strategy, strategy_of
from podscale.controllers.deployment.proportional import (
    find_active_or_latest,
    is_saturated,
    replicas_annotations,
    scale_replica_sets,
)
from podscale.controllers.deployment.replicasets import ReplicaSetState, StateMemo
from podscale.controllers.deployment.revisions import (
    REVISION_ANNOTATION,
    NewReplicaSetMemo,
    replica_sets_to_delete,
)
from podscale.controllers.deployment.status import calculate_status, requeue_after, rollout_status
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_events import EventRecorder

__all__ = ["SCALING_REPLICA_SET", "DeploymentSync", "SyncMemo", "wire_status"]

JSON = dict[str, Any]
DEPLOYMENT: Final = kind_for("apps/v1", "Deployment")
REPLICA_SET: Final = kind_for("apps/v1", "ReplicaSet")
SCALING_REPLICA_SET: Final = "ScalingReplicaSet"
_COUNTS: Final = (
    "observedGeneration",
    "replicas",
    "updatedReplicas",
    "readyReplicas",
    "availableReplicas",
    "unavailableReplicas",
)


def wire_status(status: Mapping[str, Any]) -> JSON:
    """``status`` as the server stores it: zero counts and empty conditions omitted."""
    wired = {key: value for key, value in status.items() if not (key in _COUNTS and not value)}
    if not wired.get("conditions"):
        wired.pop("conditions", None)
    return wired


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _name(obj: Mapping[str, Any]) -> str:
    return str(_meta(obj).get("name", ""))


def _spec_replicas(obj: Mapping[str, Any]) -> int:
    value = (obj.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)


@dataclass(frozen=True, slots=True)
class SyncMemo:
    """What the syncs of one controller remember (each memo says why it is exact)."""

    states: StateMemo = field(default_factory=StateMemo)
    new_replica_sets: NewReplicaSetMemo = field(default_factory=NewReplicaSetMemo)

    def forget_replica_set(self, uid: object) -> None:
        self.states.forget(uid)

    def forget_deployment(self, uid: object) -> None:
        self.new_replica_sets.forget(uid)


class DeploymentSync:
    """The writes of one sync of ``deployment`` over its claimed ``replica_sets``."""

    def __init__(
        self,
        api: ControllerApi,
        recorder: EventRecorder,
        deployment: JSON,
        replica_sets: list[JSON],
        now: datetime,
        *,
        memo: SyncMemo | None = None,
    ) -> None:
        self.api = api
        self.recorder = recorder
        # The working copy is copy-on-write: it may share nested dicts with the informer
        # cache, so every change below builds new dicts along the path it changes.
        self.deployment = deployment
        self.replica_sets = {_name(rs): rs for rs in replica_sets}
        self.now = now
        # The controller passes one memo for all its syncs (ReplicaSet versions repeat
        # from sync to sync); the ReplicaSet dicts are never changed in place.
        self._memo = SyncMemo() if memo is None else memo
        # ``strategy_of`` of the spec dict it was read from: the spec is never changed in
        # place (only replaced with the whole Deployment), so identity keeps this exact.
        self._strategy: tuple[object, Strategy] | None = None
        # Seconds after which the key should be looked at again (the progress deadline);
        # 0.0 asks for a rate-limited requeue. Read by the controller after the sync.
        self.requeue: float | None = None

    # -- reading --------------------------------------------------------------------------

    @property
    def namespace(self) -> str:
        return str(_meta(self.deployment).get("namespace") or "")

    @property
    def replicas(self) -> int:
        return _spec_replicas(self.deployment)

    @property
    def strategy(self) -> Strategy:
        spec = self.deployment.get("spec")
        if self._strategy is None or self._strategy[0] is not spec:
            self._strategy = (spec, strategy_of(self.deployment))
        return self._strategy[1]

    def state(self, name: str) -> ReplicaSetState:
        return self._memo.states.state(self.replica_sets[name])

    def states(self, names: list[str]) -> list[ReplicaSetState]:
        return [self.state(name) for name in names]

    def new_and_old_names(self) -> tuple[str | None, list[str]]:
        """The new ReplicaSet (template equal to the Deployment's) and every other one."""
        template = (self.deployment.get("spec") or {}).get("template") or {}
        found = self._memo.new_replica_sets.find(
            _meta(self.deployment).get("uid"),
            template,
            list(self.replica_sets.values()),
            state_of=self._memo.states.state,
        )
        new_name = None if found is None else _name(found)
        return new_name, sorted(name for name in self.replica_sets if name != new_name)

    # -- writing the Deployment ---------------------------------------------------------

    async def write_status(self, status: Mapping[str, Any]) -> None:
        """Write ``status`` (and the working copy's annotations) unless nothing changed."""
        # A shallow copy is enough: only ``status`` is replaced, and the client copies (or
        # encodes) what it sends.
        body = dict(self.deployment)
        body["status"] = wire_status(status)
        if body["status"] == (self.deployment.get("status") or {}):
            return
        await self.update_deployment_status(body)

    async def update_deployment_status(self, body: JSON) -> None:
        """``UpdateStatus``: the Deployment status strategy keeps annotation changes, which
        is how the revision annotations are written (without bumping generation)."""
        self.deployment = await self.api.update(DEPLOYMENT, self.namespace, body, "status")

    def set_revision(self, revision: str) -> bool:
        """``SetDeploymentRevision`` on the working copy: whether it changed."""
        metadata = self.deployment.get("metadata", {})
        annotations = metadata.get("annotations", {})
        if annotations.get(REVISION_ANNOTATION) == revision:
            return False
        # Copy-on-write along deployment -> metadata -> annotations; keys keep their places.
        annotations = {**annotations, REVISION_ANNOTATION: revision}
        self.deployment = {**self.deployment, "metadata": {**metadata, "annotations": annotations}}
        return True

    def set_condition(self, condition: JSON) -> None:
        """Store ``condition`` by upstream's ``SetDeploymentCondition`` rule."""
        conditions = list((self.deployment.get("status", {})).get("conditions") or [])
        cond.set_condition(conditions, condition)
        self._set_status_field("conditions", conditions)

    def bump_collision_count(self) -> None:
        """``status.collisionCount`` + 1 (a hash collision: the next name differs)."""
        count = int(self.deployment.get("status", {}).get("collisionCount") or 0)
        self._set_status_field("collisionCount", count + 1)

    def _set_status_field(self, key: str, value: Any) -> None:
        # Copy-on-write along deployment -> status; keys keep their places.
        status = self.deployment.get("status", {})
        self.deployment = {**self.deployment, "status": {**status, key: value}}

    async def check_paused_conditions(self) -> None:
        """Pausing/resuming records Progressing Unknown so a pause never counts as stalling."""
        condition = cond.paused_condition(self.deployment, self.now)
        if condition is None:
            return
        self.set_condition(condition)
        await self.update_deployment_status(copy_json(self.deployment))

    async def sync_status(self, new_name: str | None) -> None:
        """``syncDeploymentStatus``: counts and Available only, no progress estimate."""
        new_rs = None if new_name is None else self.state(new_name)
        all_states = self.states(list(self.replica_sets))
        status = calculate_status(
            self.deployment, all_states, new_rs, self.now, strategy=self.strategy
        )
        await self.write_status(status)

    async def sync_rollout_status(self, new_name: str | None) -> None:
        """``syncRolloutStatus``: also Progressing; unchanged status arms the deadline check."""
        new_rs = None if new_name is None else self.state(new_name)
        all_states = self.states(list(self.replica_sets))
        computed = rollout_status(
            self.deployment, all_states, new_rs, self.now, strategy=self.strategy
        )
        status = wire_status(computed)
        if status == (self.deployment.get("status") or {}):
            self.requeue = requeue_after(self.deployment, status, self.now)
            return
        await self.write_status(status)

    # -- scaling ReplicaSets -------------------------------------------------------------

    async def record_scaling(self, message: str) -> None:
        await self.recorder.record(self.deployment, "Normal", SCALING_REPLICA_SET, message)

    async def scale_replica_set(self, name: str, new_scale: int) -> bool:
        """``scaleReplicaSet``: write size and replicas annotations if either differs;
        whether the size changed (then a ScalingReplicaSet event is recorded)."""
        rs = self.replica_sets[name]
        old_scale = _spec_replicas(rs)
        wanted = replicas_annotations(self.replicas, self.strategy)
        annotations = dict(_meta(rs).get("annotations") or {})
        size_changed = old_scale != new_scale
        if not size_changed and all(annotations.get(k) == v for k, v in wanted.items()):
            return False
        body = copy_json(rs)
        body.setdefault("spec", {})["replicas"] = new_scale
        body["metadata"]["annotations"] = {**annotations, **wanted}
        self.replica_sets[name] = await self.api.update(REPLICA_SET, self.namespace, body)
        if size_changed:
            direction = "up" if old_scale < new_scale else "down"
            await self.record_scaling(
                f"Scaled {direction} replica set {name} from {old_scale} to {new_scale}"
            )
        return size_changed

    async def scale_and_record(self, name: str, new_scale: int) -> bool:
        """``scaleReplicaSetAndRecordEvent``: nothing at all when the size is right."""
        if _spec_replicas(self.replica_sets[name]) == new_scale:
            return False
        return await self.scale_replica_set(name, new_scale)

    async def scale(self, new_name: str | None, old_names: list[str]) -> None:
        """Upstream ``scale``: resize ReplicaSets after ``spec.replicas`` changed."""
        new_rs = None if new_name is None else self.state(new_name)
        old = self.states(old_names)
        targets = scale_replica_sets(
            self.replicas,
            self.strategy,
            new_rs,
            old,
            status_replicas=int((self.deployment.get("status") or {}).get("replicas") or 0),
        )
        # Proportional scaling rewrites every active ReplicaSet (its annotations record
        # the new size); the single-target and saturated cases only touch sizes.
        proportional = find_active_or_latest(new_rs, old) is None and not is_saturated(
            self.replicas, new_rs
        )
        for name, size in targets.items():
            if proportional:
                await self.scale_replica_set(name, size)
            else:
                await self.scale_and_record(name, size)

    async def cleanup(self, old_names: list[str]) -> None:
        """``cleanupDeployment``: delete the oldest fully scaled-down ReplicaSets."""
        limit = (self.deployment.get("spec") or {}).get("revisionHistoryLimit")
        for name in replica_sets_to_delete(self.states(old_names), limit):
            try:
                await self.api.delete(REPLICA_SET, self.namespace, name)
            except ApiError as err:
                if err.status != 404:
                    raise
