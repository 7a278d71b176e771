"""ReplicaSet status on virtual time, as current upstream: availability is re-checked exactly
``minReadySeconds`` after a pod turns ready, terminating pods the ReplicaSet controls are
reported as ``terminatingReplicas``, and the manager's informers resync every 12 hours."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from podscale.controllers.manager import DEFAULT_RESYNC
from podscale.runtime import run_virtual

from .cluster import POD, RS, START, Cluster, bare_pod, replica_set

JSON = dict[str, Any]
HOLD = {"metadata": {"finalizers": ["example.com/hold"]}}


def run(scenario: Any, until: timedelta = timedelta(minutes=30)) -> None:
    async def main() -> bool:
        cluster = Cluster()
        try:
            await scenario(cluster)
        finally:
            await cluster.stop_all()
        return True

    assert run_virtual(main(), start=START, until=until) is True


def test_a_pod_is_counted_available_exactly_min_ready_seconds_after_ready() -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        body = replica_set("web", 1)
        body["spec"]["minReadySeconds"] = 10
        await cluster.api.create(RS, "default", body)
        await cluster.settle()
        await cluster.make_ready((await cluster.pods())[0])
        await cluster.settle(1)
        status = (await cluster.rs("web"))["status"]
        assert (status.get("readyReplicas"), status.get("availableReplicas")) == (1, None)
        # Ready at T, re-checked at T+10 (no extra second), available at the boundary.
        await cluster.settle(9.5)
        assert (await cluster.rs("web"))["status"].get("availableReplicas") == 1

    run(scenario)


def test_a_sync_schedules_the_next_availability_check_itself() -> None:
    # The pod turns ready while no controller runs, so no pod event will ever say so: only
    # the sync's own re-check (ready != available, FindMinNextPodAvailabilityCheck) counts
    # it, although not all replicas are ready.
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        body = replica_set("web", 2)
        body["spec"]["minReadySeconds"] = 10
        await cluster.api.create(RS, "default", body)
        await cluster.settle()
        await cluster.stop()
        await cluster.make_ready((await cluster.pods())[0])
        await cluster.settle(4)
        await cluster.start()
        await cluster.settle(1)
        status = (await cluster.rs("web"))["status"]
        assert (status.get("readyReplicas"), status.get("availableReplicas")) == (1, None)
        await cluster.settle(5.5)
        assert (await cluster.rs("web"))["status"].get("availableReplicas") == 1

    run(scenario)


def test_terminating_pods_it_controls_are_reported_not_counted() -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 2))
        await cluster.settle()
        victim = (await cluster.pods())[0]["metadata"]["name"]
        await cluster.api.patch(POD, "default", victim, HOLD)
        await cluster.api.delete(POD, "default", victim)
        # A terminating orphan that (then) matches is neither adopted nor counted.
        stray = bare_pod("stray", {"app": "other"})
        stray["metadata"]["finalizers"] = ["example.com/hold"]
        await cluster.api.create(POD, "default", stray)
        await cluster.api.delete(POD, "default", "stray")
        await cluster.api.patch(POD, "default", "stray", {"metadata": {"labels": {"app": "web"}}})
        await cluster.settle()
        status = (await cluster.rs("web"))["status"]
        assert (status["replicas"], status["terminatingReplicas"]) == (2, 1)
        assert len(await cluster.pods()) == 4
        await cluster.api.patch(POD, "default", victim, {"metadata": {"finalizers": None}})
        await cluster.settle()
        assert (await cluster.rs("web"))["status"]["terminatingReplicas"] == 0

    run(scenario)


def test_informers_resync_every_twelve_hours_by_default() -> None:
    async def scenario(cluster: Cluster) -> None:
        controller = await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 1))
        await cluster.settle()
        synced: list[str] = []
        reconcile = controller.reconcile

        async def counting(key: str) -> None:
            synced.append(key)
            await reconcile(key)

        controller.reconcile = counting  # type: ignore[method-assign]
        await asyncio.sleep((DEFAULT_RESYNC - timedelta(minutes=1)).total_seconds())
        assert synced == []
        await cluster.settle(120)
        assert synced == ["default/web"]

    assert timedelta(hours=12) == DEFAULT_RESYNC
    run(scenario, until=timedelta(hours=13))
