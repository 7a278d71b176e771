"""No over-creation and recovery on virtual time: a slow pod watch, a controller restart in
the middle of a scale-up, and pod creations that fail (ReplicaFailure, FailedCreate)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from podscale.runtime import run_virtual

from .cluster import POD, RS, START, UNTIL, Cluster, WrappedApi, owned_by, replica_set

JSON = dict[str, Any]


def run(scenario: Any) -> None:
    async def main() -> bool:
        cluster = Cluster()
        try:
            await scenario(cluster)
        finally:
            await cluster.stop_all()
        return True

    assert run_virtual(main(), start=START, until=UNTIL) is True


@pytest.mark.parametrize("delay", [1.0, 10.0, 25.0], ids=["1s", "10s", "25s"])
def test_a_slow_pod_watch_never_causes_over_creation(delay: float) -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start(api=WrappedApi(cluster.api, watch_delay=delay))
        await cluster.api.create(RS, "default", replica_set("web", 6))
        # Poke the RS while pod events are still in flight: each poke is a resync.
        for _ in range(5):
            await asyncio.sleep(delay / 4)
            rs = await cluster.rs("web")
            rs["metadata"].setdefault("annotations", {})["poke"] = str(cluster.clock.now())
            await cluster.api.update(RS, "default", rs)
        await cluster.settle(delay * 20 + 10)
        assert len(await cluster.pods()) == 6
        assert (await cluster.rs("web"))["status"]["replicas"] == 6

    run(scenario)


@pytest.mark.parametrize("stop_after", [1, 3, 7], ids=["after-1", "after-3", "after-7"])
def test_restart_mid_scale_up_does_not_over_create(stop_after: int) -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start(seed=1)
        await cluster.api.create(RS, "default", replica_set("web", 10))
        for _ in range(10_000):
            if len(await cluster.pods()) >= stop_after:
                break
            await asyncio.sleep(0)
        await cluster.stop()
        assert stop_after <= len(await cluster.pods()) < 10
        await cluster.start(seed=2)
        await cluster.settle(30)
        rs = await cluster.rs("web")
        assert len(owned_by(await cluster.pods(), rs)) == 10
        assert len(await cluster.pods()) == 10
        assert rs["status"]["replicas"] == 10

    run(scenario)


def test_failed_creations_set_replica_failure_then_recover() -> None:
    async def scenario(cluster: Cluster) -> None:
        api = WrappedApi(cluster.api, failing_creates=1_000_000)
        await cluster.start(api=api)
        await cluster.api.create(RS, "default", replica_set("web", 3))
        await cluster.settle(1)
        status = (await cluster.rs("web"))["status"]
        # The condition carries the API error as is; the event prefixes it.
        message = 'pods "web-x" is forbidden: exceeded quota: compute-resources'
        assert status["conditions"] == [
            {
                "type": "ReplicaFailure",
                "status": "True",
                "lastTransitionTime": "2026-03-01T00:00:00Z",
                "reason": "FailedCreate",
                "message": message,
            }
        ]
        warnings = [e for e in await cluster.events() if e["type"] == "Warning"]
        assert {(e["reason"], e["message"]) for e in warnings} == {
            ("FailedCreate", f"Error creating: {message}")
        }
        assert await cluster.pods() == []
        api.failing_creates = 0
        await cluster.settle(60)
        status = (await cluster.rs("web"))["status"]
        assert "conditions" not in status
        assert status["replicas"] == 3
        assert len(await cluster.pods()) == 3

    run(scenario)


def test_each_sync_creates_at_most_burst_pods() -> None:
    async def scenario(cluster: Cluster) -> None:
        # A slow watch holds the second round until the first two pods are observed.
        await cluster.start(api=WrappedApi(cluster.api, watch_delay=10), burst=2)
        await cluster.api.create(RS, "default", replica_set("web", 5))
        await cluster.settle(1)
        assert len(await cluster.pods()) == 2
        await cluster.settle(200)
        assert len(await cluster.pods()) == 5

    run(scenario)


@pytest.mark.parametrize("how", ["failed", "terminating"], ids=["failed", "terminating"])
def test_failed_and_terminating_pods_are_replaced(how: str) -> None:
    async def scenario(cluster: Cluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 2))
        await cluster.settle()
        victim = (await cluster.pods())[0]
        name = victim["metadata"]["name"]
        if how == "failed":
            victim["status"] = {**victim.get("status", {}), "phase": "Failed"}
            await cluster.api.update(POD, "default", victim, "status")
        else:
            hold = {"metadata": {"finalizers": ["example.com/hold"]}}
            await cluster.api.patch(POD, "default", name, hold)
            await cluster.api.delete(POD, "default", name)
        await cluster.settle()
        pods = await cluster.pods()
        assert len(pods) == 3
        assert name in {p["metadata"]["name"] for p in pods}
        assert (await cluster.rs("web"))["status"]["replicas"] == 2

    run(scenario)
