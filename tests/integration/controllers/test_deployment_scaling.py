"""Scaling a Deployment mid-rollout (what an HPA does): old and new ReplicaSets grow or
shrink in proportion, upstream's rounding, leftovers to the largest; a paused Deployment
scales but does not roll out, and resumes where it stopped."""

from __future__ import annotations

import pytest

from .deploy_cluster import (
    DEPLOYMENT,
    DeployCluster,
    RolloutWatch,
    deployment,
    kubectl_rollout_status,
    rolling,
    run_deploy,
)

DESIRED = "deployment.kubernetes.io/desired-replicas"
MAX = "deployment.kubernetes.io/max-replicas"


async def _stalled_rollout(cluster: DeployCluster) -> None:
    """10 replicas, maxSurge 3, maxUnavailable 2, new pods never ready: old 8, new 5."""
    body = deployment("web", 10, strategy=rolling(3, 2))
    await cluster.api.create(DEPLOYMENT, "default", body)
    await cluster.settle(5)
    await cluster.ready_all()
    await cluster.settle(10)
    await cluster.set_image("nginx:2")
    await cluster.settle(10)
    old, new = await cluster.replica_sets()
    # New 3 (surge), old 8 (13 - 8 available - 3 unavailable new = 2), new 5; then stuck.
    assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (8, 5)
    assert old["metadata"]["annotations"][MAX] == new["metadata"]["annotations"][MAX] == "13"


@pytest.mark.parametrize(
    ("replicas", "old_size", "new_size"),
    [
        # +10 to spread, largest first: old 8*23/13=14.2 -> +6, new 5*23/13=8.8 -> +4.
        (20, 14, 9),
        # -5, older first on ties: old 8*8/13=4.9 -> -3, new 5*8/13=3.1 -> -2.
        (5, 5, 3),
        # to 0: everything goes.
        (0, 0, 0),
        # +2: old 8*15/13=9.2 -> +1, new 5*15/13=5.8 -> +1.
        (12, 9, 6),
    ],
    ids=["up-to-20", "down-to-5", "to-zero", "up-to-12"],
)
def test_scale_mid_rollout_is_proportional(replicas: int, old_size: int, new_size: int) -> None:
    async def scenario(cluster: DeployCluster) -> None:
        await _stalled_rollout(cluster)
        seen = len(await cluster.deployment_events())
        await cluster.scale_deployment(replicas)
        await cluster.settle(10)
        old, new = await cluster.replica_sets()
        way = "up" if replicas > 10 else "down"
        # The proportional step itself (the rollout then carries on from there).
        assert (await cluster.deployment_events())[seen : seen + 2] == [
            f"Scaled {way} replica set {old['metadata']['name']} from 8 to {old_size}",
            f"Scaled {way} replica set {new['metadata']['name']} from 5 to {new_size}",
        ]
        for rs in (old, new):
            assert rs["metadata"]["annotations"][DESIRED] == str(replicas)
            assert rs["metadata"]["annotations"][MAX] == str(replicas + 3)
        await cluster.roll_to_completion()
        old, new = await cluster.replica_sets()
        assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, replicas)
        d = await cluster.deploy()
        assert d["status"].get("updatedReplicas", 0) == replicas
        assert kubectl_rollout_status(d)[1]

    run_deploy(scenario, ready_after=None)


def test_scale_down_and_up_mid_rollout_respects_the_new_bounds() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", 8, strategy=rolling("25%", "25%"))
        created = await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(30)
        watch = RolloutWatch.for_deployment(created)
        await cluster.watch_rollout(watch)
        await cluster.set_image("nginx:2")
        await cluster.settle(3)
        # Shrinking: the bound in force is the old one until the controller has acted.
        await cluster.scale_deployment(4)
        await cluster.settle(30)
        assert watch.violations == []
        watch.ceiling = 5  # 4 + ceil(25% of 4), from now on
        await cluster.settle(30)
        assert watch.violations == []
        watch.ceiling = 15  # growing: the new bound holds at once
        await cluster.scale_deployment(12)
        await cluster.settle(120)
        assert watch.violations == []
        old, new = await cluster.replica_sets()
        assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, 12)
        assert sum(1 for _ in await cluster.pods_of(new)) == 12

    run_deploy(scenario)


def test_paused_deployment_scales_but_does_not_roll_out() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        await cluster.api.create(DEPLOYMENT, "default", deployment("web", 2))
        await cluster.settle(30)
        await cluster.patch_deployment({"spec": {"paused": True}})
        await cluster.settle(5)
        d = await cluster.deploy()
        progressing = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")
        assert (progressing["status"], progressing["reason"], progressing["message"]) == (
            "Unknown",
            "DeploymentPaused",
            "Deployment is paused",
        )
        await cluster.set_image("nginx:2")
        await cluster.scale_deployment(4)
        await cluster.settle(60)
        [rs] = await cluster.replica_sets()
        assert rs["spec"]["replicas"] == 4
        assert rs["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1"
        d = await cluster.deploy()
        assert d["status"]["observedGeneration"] == d["metadata"]["generation"]
        assert d["status"]["replicas"] == 4
        assert d["status"].get("updatedReplicas", 0) == 0  # the template changed: none is new
        await cluster.patch_deployment({"spec": {"paused": False}})
        await cluster.settle(2)
        d = await cluster.deploy()
        progressing = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")
        assert progressing["reason"] in (
            "DeploymentResumed",
            "NewReplicaSetCreated",
            "ReplicaSetUpdated",
        )
        await cluster.settle(120)
        old, new = await cluster.replica_sets()
        assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, 4)
        assert kubectl_rollout_status(await cluster.deploy())[1]

    run_deploy(scenario)
