"""The order of a Deployment sync's steps: scaling, RollingUpdate, Recreate, status only.

``sync_claimed`` is the part of upstream's ``syncDeployment`` after the listing: it claims
the candidate ReplicaSets ``deployment.controller`` found (``claim``), creates the one
``sync.DeploymentSync`` of the current reconcile, resolves ``new_and_old_names`` (and syncs
the existing new ReplicaSet's annotations, ``new_replica_set``), then picks the step in
upstream's order. The steps are upstream's ``sync`` / ``syncStatusOnly`` (``sync.go``),
``rolloutRolling`` / ``reconcileNewReplicaSet`` / ``reconcileOldReplicaSets``
(``rolling.go``) and ``rolloutRecreate`` (``recreate.go``): each asks the pure ``rollout``
/ ``proportional`` decisions what to do, and performs it. Every path ends in a status
write. ``sync_claimed`` is called from ``DeploymentController.reconcile``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from podscale.api.selectors import selector_from_label_selector
from podscale.client.cache import Lister
from podscale.controllers.deployment import new_replica_set
from podscale.controllers.deployment.claim import claim_replica_sets
from podscale.controllers.deployment.fenceposts import RECREATE, ROLLING_UPDATE
from podscale.controllers.deployment.proportional import is_scaling_event
from podscale.controllers.deployment.replicasets import active
from podscale.controllers.deployment.rollout import (
    StaleScaleDown,
    old_pods_running,
    plan_old_scale_down,
    reconcile_new_replica_set,
)
from podscale.controllers.deployment.status import deployment_complete
from podscale.controllers.deployment.sync import DeploymentSync, SyncMemo
from podscale.controllers.runtime_api import ControllerApi
from podscale.controllers.runtime_events import EventRecorder
from podscale.controllers.runtime_owners import controller_ref_of, meta, namespace_of
from podscale.store.interface import Clock

__all__ = [
    "rollout_recreate",
    "rollout_rolling",
    "sync_claimed",
    "sync_scaling",
    "sync_status_only",
]

JSON = dict[str, Any]


async def sync_claimed(
    api: ControllerApi,
    recorder: EventRecorder,
    deployment: JSON,
    candidates: list[JSON],
    *,
    pod_lister: Lister,
    clock: Clock,
    memo: SyncMemo,
) -> tuple[DeploymentSync, bool]:
    """Upstream's steps after the claim, in its order; the sync, and whether it was a
    RollingUpdate step (the only kind ``quiet`` may repeat)."""
    spec = deployment.get("spec") or {}
    replica_sets = await claim_replica_sets(api, deployment, candidates)
    sync = DeploymentSync(api, recorder, deployment, replica_sets, clock.now(), memo=memo)
    new_name, old_names = sync.new_and_old_names()
    if meta(deployment).get("deletionTimestamp"):
        await sync_status_only(sync, new_name)
        return sync, False
    await sync.check_paused_conditions()
    if new_name is not None:
        await new_replica_set.sync_existing(sync, new_name, old_names)
    paused = bool(spec.get("paused"))
    everything = sync.states([*old_names, *([new_name] if new_name else [])])
    strategy_type = sync.strategy.type
    if paused or is_scaling_event(sync.replicas, everything):
        await sync_scaling(sync, new_name, old_names, paused=paused)
    elif strategy_type == RECREATE:
        selector = selector_from_label_selector(spec.get("selector"))
        uids: dict[str, list[JSON]] = {str(meta(rs).get("uid")): [] for rs in replica_sets}
        for pod in pod_lister.list(namespace_of(deployment), selector):
            owner = str((controller_ref_of(pod) or {}).get("uid"))
            if owner in uids:
                uids[owner].append(pod)
        await rollout_recreate(sync, new_name, old_names, uids)
    elif strategy_type == ROLLING_UPDATE:
        await rollout_rolling(sync, new_name, old_names)
        return sync, True
    else:
        raise ValueError(f"unexpected deployment strategy type: {strategy_type}")
    return sync, False


async def sync_status_only(sync: DeploymentSync, new_name: str | None) -> None:
    """A Deployment being deleted: report, never act."""
    await sync.sync_status(new_name)


async def sync_scaling(
    sync: DeploymentSync, new_name: str | None, old_names: list[str], *, paused: bool
) -> None:
    """A paused Deployment or a scaling event: resize, clean up history if paused, report.

    No new ReplicaSet is created here: a paused Deployment does not roll out.
    """
    await sync.scale(new_name, old_names)
    if paused:
        await sync.cleanup(old_names)
    await sync.sync_status(new_name)


async def rollout_rolling(sync: DeploymentSync, new_name: str | None, old_names: list[str]) -> None:
    """One RollingUpdate step: grow the new ReplicaSet if surge allows, else shrink old
    ones if availability allows; clean up history once complete; report with progress."""
    if new_name is None:
        new_name = await new_replica_set.create(sync, old_names)
    replicas, strategy = sync.replicas, sync.strategy
    everything = sync.states([*old_names, new_name])
    target = reconcile_new_replica_set(replicas, strategy, everything, sync.state(new_name))
    if target is not None and await sync.scale_and_record(new_name, target):
        await sync.sync_rollout_status(new_name)
        return
    old_active = [rs for rs in sync.states(old_names) if rs.replicas > 0]
    try:
        plan = plan_old_scale_down(replicas, strategy, everything, old_active, sync.state(new_name))
    except StaleScaleDown as err:
        raise RuntimeError(err.message(sync.namespace)) from None
    if plan.scaled:
        # Upstream scales unhealthy replicas away first and then healthy ones, possibly
        # the same ReplicaSet twice; the plan merges both into one size per ReplicaSet.
        for name, size in plan.targets.items():
            await sync.scale_and_record(name, size)
        await sync.sync_rollout_status(new_name)
        return
    if deployment_complete(sync.deployment, sync.deployment.get("status") or {}):
        await sync.cleanup(old_names)
    await sync.sync_rollout_status(new_name)


async def rollout_recreate(
    sync: DeploymentSync,
    new_name: str | None,
    old_names: list[str],
    pods_by_owner_uid: Mapping[str, Iterable[Mapping[str, Any]]],
) -> None:
    """One Recreate step: old ReplicaSets to 0, wait until their pods are gone, then
    create the new ReplicaSet (at full size) or scale it up."""
    scaled_down = False
    for rs in active(sync.states(old_names)):
        scaled_down = await sync.scale_and_record(rs.name, 0) or scaled_down
    if scaled_down:
        await sync.sync_rollout_status(new_name)
        return
    new_rs = None if new_name is None else sync.state(new_name)
    if old_pods_running(new_rs, sync.states(old_names), pods_by_owner_uid):
        await sync.sync_rollout_status(new_name)
        return
    if new_name is None:
        new_name = await new_replica_set.create(sync, old_names)
    await sync.scale_and_record(new_name, sync.replicas)
    if deployment_complete(sync.deployment, sync.deployment.get("status") or {}):
        await sync.cleanup(old_names)
    await sync.sync_rollout_status(new_name)
