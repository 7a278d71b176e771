"""The order of a Deployment sync's steps: scaling, RollingUpdate, Recreate, status only.

Upstream's ``sync`` / ``syncStatusOnly`` (``sync.go``), ``rolloutRolling`` /
``reconcileNewReplicaSet`` / ``reconcileOldReplicaSets`` (``rolling.go``) and
``rolloutRecreate`` (``recreate.go``). Each function takes the one ``sync.DeploymentSync``
of the current reconcile, whose ``new_and_old_names`` was already resolved by the
controller (and the existing new ReplicaSet's annotations synced), asks the pure
``rollout`` / ``proportional`` decisions what to do, and performs it. Every path ends in a
status write. Called from ``deployment.controller``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from podscale.controllers.deployment import new_replica_set
from podscale.controllers.deployment.replicasets import active
from podscale.controllers.deployment.rollout import (
    StaleScaleDown,
    old_pods_running,
    plan_old_scale_down,
    reconcile_new_replica_set,
)
from podscale.controllers.deployment.status import deployment_complete
from podscale.controllers.deployment.sync import DeploymentSync

__all__ = ["rollout_recreate", "rollout_rolling", "sync_scaling", "sync_status_only"]


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
