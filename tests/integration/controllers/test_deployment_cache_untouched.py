"""The Deployment controller reads its informers' cached Deployments and ReplicaSets
without copying them, so no sync may change one: every sync of a rollout, a scale in the
middle of it, a pause, a resume and a history cleanup is checked against snapshots."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from podscale.api.json_copy import copy_json
from podscale.controllers.deployment.controller import DeploymentController

from . import deploy_cluster
from .deploy_cluster import DEPLOYMENT, DeployCluster, deployment, rolling, run_deploy

JSON = dict[str, Any]


class _CheckingController(DeploymentController):
    """Snapshots every cached Deployment and ReplicaSet around each sync."""

    changed: ClassVar[list[str]] = []
    syncs: ClassVar[int] = 0

    async def reconcile(self, key: str) -> None:
        _, deployments, replica_sets, _ = self._bound()
        cached = [*deployments.list("default"), *replica_sets.list("default")]
        before = [(obj, copy_json(obj)) for obj in cached]
        try:
            await super().reconcile(key)
        finally:
            type(self).syncs += 1
            for obj, snapshot in before:
                if obj != snapshot:
                    type(self).changed.append(f"{key}: {obj['metadata']['name']}")


def test_no_sync_changes_a_cached_object(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_CheckingController, "changed", [])
    monkeypatch.setattr(_CheckingController, "syncs", 0)
    monkeypatch.setattr(deploy_cluster, "DeploymentController", _CheckingController)

    async def scenario(cluster: DeployCluster) -> JSON:
        body = deployment(
            "web",
            4,
            strategy=rolling(1, 1),
            progressDeadlineSeconds=60,
            revisionHistoryLimit=1,
        )
        await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(30)
        await cluster.set_image("nginx:2")
        await cluster.settle(3)
        await cluster.scale_deployment(7)  # proportional scaling mid-rollout
        await cluster.settle(60)
        await cluster.patch_deployment({"spec": {"paused": True}})
        await cluster.set_image("nginx:3")
        await cluster.settle(10)
        await cluster.patch_deployment({"spec": {"paused": False}})
        await cluster.settle(120)
        return await cluster.deploy()

    final = run_deploy(scenario)
    assert _CheckingController.syncs > 20
    assert _CheckingController.changed == []
    # The scenario did reach every step: three revisions, history cut to one old one.
    assert final["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert final["status"]["updatedReplicas"] == 7
