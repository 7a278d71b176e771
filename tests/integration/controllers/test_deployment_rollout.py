"""Rollouts on virtual time: RollingUpdate keeps maxSurge/maxUnavailable on every watch
event (ints and percentages, upstream rounding), Recreate removes every old pod before
the new ReplicaSet starts any, and the ScalingReplicaSet events tell the story."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from .cluster import controller_uid
from .deploy_cluster import (
    DEPLOYMENT,
    REVISION,
    DeployCluster,
    RolloutWatch,
    deployment,
    kubectl_rollout_status,
    rolling,
    run_deploy,
)


@pytest.mark.parametrize(
    ("replicas", "surge", "unavailable", "ceiling", "floor"),
    [
        (4, 1, 0, 5, 4),
        (4, 0, 1, 4, 3),
        (5, 2, 2, 7, 3),
        (10, "25%", "25%", 13, 8),  # surge rounds up (2.5 -> 3), unavailable down (2.5 -> 2)
        (3, "10%", "10%", 4, 3),  # 0.3 -> 1 surge, 0 unavailable
        (4, "50%", "0%", 6, 4),
        (6, 0, "40%", 6, 4),  # no surge: 2.4 -> 2 unavailable
    ],
    ids=["surge1", "unavailable1", "both2", "default-25pct", "tiny-pct", "surge50pct", "no-surge"],
)
def test_rolling_update_keeps_surge_and_availability_on_every_event(
    replicas: int, surge: int | str, unavailable: int | str, ceiling: int, floor: int
) -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", replicas, strategy=rolling(surge, unavailable))
        created = await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(30)
        watch = RolloutWatch.for_deployment(created)
        assert (watch.ceiling, watch.floor) == (ceiling, floor)
        await cluster.watch_rollout(watch)
        watch.armed = True
        await cluster.set_image("nginx:2")
        await cluster.settle(120)
        assert watch.violations == []
        assert watch.events > replicas * 2
        # The surge room is used whenever there is any: the rollout is as fast as allowed.
        assert watch.max_spec_total == ceiling
        old, new = await cluster.replica_sets()
        assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, replicas)
        assert old["metadata"]["annotations"][REVISION] == "1"
        assert new["metadata"]["annotations"][REVISION] == "2"
        pods = await cluster.pods()
        assert len(pods) == replicas
        assert {controller_uid(p) for p in pods} == {new["metadata"]["uid"]}
        assert {p["spec"]["containers"][0]["image"] for p in pods} == {"nginx:2"}
        d = await cluster.deploy()
        assert d["metadata"]["annotations"][REVISION] == "2"
        assert d["status"]["observedGeneration"] == 2
        assert kubectl_rollout_status(d) == ('deployment "web" successfully rolled out', True)
        progressing = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")
        assert progressing["reason"] == "NewReplicaSetAvailable"
        assert progressing["message"] == (
            f'ReplicaSet "{new["metadata"]["name"]}" has successfully progressed.'
        )

    run_deploy(scenario)


def test_rolling_update_events_alternate_up_and_down() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", 3, strategy=rolling(1, 0))
        await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(30)
        await cluster.set_image("nginx:2")
        await cluster.settle(120)
        old, new = (rs["metadata"]["name"] for rs in await cluster.replica_sets())
        assert await cluster.deployment_events() == [
            f"Scaled up replica set {old} from 0 to 3",
            f"Scaled up replica set {new} from 0 to 1",
            f"Scaled down replica set {old} from 3 to 2",
            f"Scaled up replica set {new} from 1 to 2",
            f"Scaled down replica set {old} from 2 to 1",
            f"Scaled up replica set {new} from 2 to 3",
            f"Scaled down replica set {old} from 1 to 0",
        ]

    run_deploy(scenario)


def test_min_ready_seconds_slows_the_rollout_and_gates_availability() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", 2, strategy=rolling(1, 0), minReadySeconds=20)
        await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(60)
        [rs] = await cluster.replica_sets()
        assert rs["spec"]["minReadySeconds"] == 20
        await cluster.set_image("nginx:2")
        await cluster.settle(10)  # the surge pod is ready but not yet available
        old, new = await cluster.replica_sets()
        assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (2, 1)
        await cluster.settle(120)
        old, new = await cluster.replica_sets()
        assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, 2)
        assert kubectl_rollout_status(await cluster.deploy())[1]

    run_deploy(scenario)


def _no_overlap(old_hash: str) -> Callable[[RolloutWatch], str | None]:
    def check(watch: RolloutWatch) -> str | None:
        hashes = {p["metadata"]["labels"]["pod-template-hash"] for p in watch.pods.values()}
        if old_hash in hashes and len(hashes) > 1:
            return f"old and new pods together: {sorted(hashes)}"
        return None

    return check


def test_recreate_removes_old_pods_before_any_new_pod() -> None:
    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", 3, strategy={"type": "Recreate"})
        created = await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(30)
        [first] = await cluster.replica_sets()
        watch = RolloutWatch(ceiling=3, floor=0)
        watch.extra_checks.append(_no_overlap(first["metadata"]["labels"]["pod-template-hash"]))
        await cluster.watch_rollout(watch)
        await cluster.set_image("nginx:2")
        await cluster.settle(60)
        assert watch.violations == []
        old, new = await cluster.replica_sets()
        assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, 3)
        assert len(await cluster.pods_of(new)) == 3
        assert await cluster.deployment_events() == [
            f"Scaled up replica set {old['metadata']['name']} from 0 to 3",
            f"Scaled down replica set {old['metadata']['name']} from 3 to 0",
            f"Scaled up replica set {new['metadata']['name']} from 0 to 3",
        ]
        d = await cluster.deploy()
        assert created["spec"]["strategy"] == {"type": "Recreate"}
        assert kubectl_rollout_status(d)[1]

    run_deploy(scenario)


_FENCEPOST = st.one_of(st.integers(0, 3), st.sampled_from(["0%", "10%", "25%", "50%", "100%"]))


@settings(max_examples=15, deadline=None)
@given(replicas=st.integers(1, 8), surge=_FENCEPOST, unavailable=_FENCEPOST)
def test_any_rolling_update_stays_within_its_fenceposts(
    replicas: int, surge: int | str, unavailable: int | str
) -> None:
    assume(surge not in (0, "0%") or unavailable not in (0, "0%"))  # validation forbids 0/0

    async def scenario(cluster: DeployCluster) -> None:
        body = deployment("web", replicas, strategy=rolling(surge, unavailable))
        created = await cluster.api.create(DEPLOYMENT, "default", body)
        await cluster.settle(30)
        watch = RolloutWatch.for_deployment(created)
        await cluster.watch_rollout(watch)
        watch.armed = True
        await cluster.set_image("nginx:2")
        await cluster.settle(240)
        assert watch.violations == []
        old, new = await cluster.replica_sets()
        assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, replicas)
        assert kubectl_rollout_status(await cluster.deploy())[1]

    run_deploy(scenario)
