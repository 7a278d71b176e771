"""The ReplicaSet controller on virtual time: creation, scaling through the ``scale``
subresource, scale-down order, scale to zero and back, and what an RS deletion leaves."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from podscale.runtime import run_virtual

from .cluster import NAME_PATTERN, POD, RS, START, UNTIL, Cluster, owned_by, replica_set

T = TypeVar("T")


def run_scenario(scenario: Callable[[Cluster], Awaitable[T]]) -> T:
    async def main() -> tuple[T]:
        cluster = Cluster()
        try:
            return (await scenario(cluster),)
        finally:
            await cluster.stop_all()

    result = run_virtual(main(), start=START, until=UNTIL)
    assert result is not None, "scenario did not finish before its virtual deadline"
    return result[0]


@pytest.mark.parametrize("replicas", [1, 3, 7], ids=["one", "three", "seven"])
def test_creates_named_owned_pods_and_reports_status(replicas: int) -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        rs = await cluster.api.create(RS, "default", replica_set("web", replicas))
        await cluster.settle()
        pods = await cluster.pods()
        assert len(pods) == replicas
        for pod in pods:
            assert re.fullmatch(f"web-{NAME_PATTERN}", pod["metadata"]["name"])
            assert pod["metadata"]["generateName"] == "web-"
            assert pod["metadata"]["labels"] == {"app": "web"}
            assert pod["metadata"]["ownerReferences"] == [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": "web",
                    "uid": rs["metadata"]["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ]
        status = (await cluster.rs("web"))["status"]
        # terminatingReplicas is a pointer upstream: reported even at 0 while the
        # DeploymentReplicaSetTerminatingReplicas gate (beta, on) is enabled.
        assert status == {
            "replicas": replicas,
            "fullyLabeledReplicas": replicas,
            "observedGeneration": 1,
            "terminatingReplicas": 0,
        }
        events = await cluster.events()
        created = sorted(e["message"] for e in events if e["reason"] == "SuccessfulCreate")
        assert created == sorted(f"Created pod: {p['metadata']['name']}" for p in pods)
        for event in events:
            assert event["type"] == "Normal"
            assert event["involvedObject"]["kind"] == "ReplicaSet"
            assert event["involvedObject"]["uid"] == rs["metadata"]["uid"]
            assert event["source"] == {"component": "replicaset-controller"}

    run_scenario(scenario)


def test_scale_up_then_down_deletes_not_ready_pods_first() -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 3))
        await cluster.settle()
        await cluster.scale("web", 5)
        await cluster.settle()
        pods = await cluster.pods()
        assert len(pods) == 5
        ready = pods[2]
        await cluster.make_ready(ready)
        await cluster.settle()
        assert (await cluster.rs("web"))["status"]["readyReplicas"] == 1
        await cluster.scale("web", 1)
        await cluster.settle()
        survivors = await cluster.pods()
        assert [p["metadata"]["name"] for p in survivors] == [ready["metadata"]["name"]]
        status = (await cluster.rs("web"))["status"]
        assert status["replicas"] == 1
        assert status["readyReplicas"] == 1
        assert status["availableReplicas"] == 1
        deleted = [e for e in await cluster.events() if e["reason"] == "SuccessfulDelete"]
        assert len(deleted) == 4

    run_scenario(scenario)


@pytest.mark.parametrize("back_to", [1, 4], ids=["back-to-1", "back-to-4"])
def test_scale_to_zero_and_back(back_to: int) -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 3))
        await cluster.settle()
        await cluster.scale("web", 0)
        await cluster.settle()
        assert await cluster.pods() == []
        assert (await cluster.rs("web"))["status"] == {
            "replicas": 0,
            "observedGeneration": 2,
            "terminatingReplicas": 0,
        }
        await cluster.scale("web", back_to)
        await cluster.settle()
        rs = await cluster.rs("web")
        assert len(owned_by(await cluster.pods(), rs)) == back_to
        assert rs["status"]["replicas"] == back_to

    run_scenario(scenario)


def test_deleting_the_replica_set_leaves_its_pods_without_gc() -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        rs = await cluster.api.create(RS, "default", replica_set("web", 3))
        await cluster.settle()
        before = sorted(p["metadata"]["name"] for p in await cluster.pods())
        await cluster.api.delete(RS, "default", "web")
        await cluster.settle(60)
        pods = await cluster.pods()
        assert sorted(p["metadata"]["name"] for p in pods) == before
        assert all(
            p["metadata"]["ownerReferences"][0]["uid"] == rs["metadata"]["uid"] for p in pods
        )

    run_scenario(scenario)


@pytest.mark.parametrize(
    ("costs", "survivors"),
    [((5, -1, 0, 9), {0, 3}), (("100", "-100", "7", None), {0, 2})],
    ids=["ints", "unset-and-strings"],
)
def test_scale_down_prefers_lower_pod_deletion_cost(
    costs: tuple[int | str | None, ...], survivors: set[int]
) -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 4))
        await cluster.settle()
        names = [p["metadata"]["name"] for p in await cluster.pods()]
        for name, cost in zip(names, costs, strict=True):
            if cost is not None:
                annotations = {"controller.kubernetes.io/pod-deletion-cost": str(cost)}
                patch = {"metadata": {"annotations": annotations}}
                await cluster.api.patch(POD, "default", name, patch)
        await cluster.scale("web", 2)
        await cluster.settle()
        left = {p["metadata"]["name"] for p in await cluster.pods()}
        assert left == {names[i] for i in survivors}

    run_scenario(scenario)


def test_available_replicas_follow_min_ready_seconds_without_new_events() -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        body = replica_set("web", 1)
        body["spec"]["minReadySeconds"] = 10
        await cluster.api.create(RS, "default", body)
        # Ready at t=5.5, recorded as 5 (metav1.Time has second precision, as upstream).
        await cluster.settle(5.5)
        await cluster.make_ready((await cluster.pods())[0])
        await cluster.settle(5)
        status = (await cluster.rs("web"))["status"]
        assert (status.get("readyReplicas"), status.get("availableReplicas")) == (1, None)
        await cluster.settle(6.5)  # t=17: the requeue at 16.5 (10 s + 1 s) found it available
        status = (await cluster.rs("web"))["status"]
        assert (status.get("readyReplicas"), status.get("availableReplicas")) == (1, 1)

    run_scenario(scenario)
