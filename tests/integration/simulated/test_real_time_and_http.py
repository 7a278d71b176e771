"""The same simulated cluster on real time: against an API server over HTTP (a uvicorn
server on 127.0.0.1:0; the scheduler binds through POST pods/<name>/binding), and embedded
with the wall clock. Short startup delays; waiting is event-driven, bounded by a timeout.
And a part of the embedded plane that fails is restarted and shown on /readyz."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from datetime import timedelta

import pytest

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.health import render_health
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.client.http import HttpApi
from podscale.client.kubeconfig import Connection
from podscale.controllers.manager import ControllerManager
from podscale.controllers.replicaset.controller import ReplicaSetController
from podscale.controllers.runtime_api import ControllerApi
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime import VirtualClock, run, run_virtual
from podscale.runtime.simulated import NodeSpec, SimulatedCluster, default_node_specs
from podscale.runtime.simulated.kubelet_state import StartupProfile
from podscale.store import MemoryStore, SystemClock

from .sim_plane import JSON, POD, RS, START, is_ready, replica_set

WAIT = timedelta(seconds=30)
QUICK = StartupProfile(
    startup=timedelta(milliseconds=50),
    readiness_delay=timedelta(milliseconds=50),
    termination=timedelta(milliseconds=10),
)


@pytest.fixture
def server() -> Iterator[RunningServer]:
    clock = SystemClock()
    store = MemoryStore(clock)
    running = start_in_thread(create_app(store, clock=clock))
    try:
        yield running
    finally:
        running.stop()
        store.close()


async def wait_for_ready_replicas(api: ControllerApi, name: str, replicas: int) -> None:
    async for _, rs in api.watch(RS, "default", field_selector=f"metadata.name={name}"):
        if (rs.get("status") or {}).get("readyReplicas") == replicas:
            return


async def ready_pods(api: ControllerApi) -> list[JSON]:
    return [p for p in (await api.list(POD, "default"))["items"] if is_ready(p)]


def test_simulated_cluster_over_http(server: RunningServer) -> None:
    async def main() -> list[str]:
        clock = SystemClock()
        async with HttpApi(Connection(server=server.url), qps=-1.0) as api:  # unthrottled
            cluster = SimulatedCluster(api, clock, default_node_specs(2), profile=QUICK)
            manager = ControllerManager(api, clock)
            manager.register(ReplicaSetController(api, clock, rng=random.Random(3)))
            for controller in cluster.controllers():
                manager.register(controller)
            tasks = [asyncio.create_task(manager.run()), asyncio.create_task(cluster.run())]
            try:
                await manager.wait_started()
                await cluster.wait_registered()
                await api.create(RS, "default", replica_set("web", 4))
                await wait_for_ready_replicas(api, "web", 4)
                return sorted(p["spec"]["nodeName"] for p in await ready_pods(api))
            finally:
                manager.stop()
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    assert run(main(), virtual=False, until=WAIT) == ["node-1", "node-1", "node-2", "node-2"]


def test_embedded_control_plane_on_the_wall_clock() -> None:
    async def main() -> int:
        plane = EmbeddedControlPlane(SystemClock(), seed=5, profile=QUICK)
        task = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            await plane.api.create(RS, "default", replica_set("web", 3))
            await wait_for_ready_replicas(plane.api, "web", 3)
            return len(await ready_pods(plane.api))
        finally:
            plane.stop()
            await task

    assert run(main(), virtual=False, until=WAIT) == 3


def test_a_failing_part_is_restarted_with_backoff_and_fails_readiness() -> None:
    """Node registration refused (422): the heartbeats restart 1, 2, 4 ... 30 s apart,
    /readyz fails that part alone, and the run goes on instead of ending with the error."""
    clock = VirtualClock(START)

    async def main() -> tuple[bool, int, int, list[str], str]:
        plane = EmbeddedControlPlane(clock, nodes=[NodeSpec("Not_A_DNS_Name")])
        task = asyncio.create_task(plane.run())
        await asyncio.sleep(100)
        state = plane.api.state
        checks = [check for source in state.readiness_sources for check in source()]
        ready = render_health("readyz", None, verbose=True, excluded=[], readiness=checks)
        live = render_health("livez", None, verbose=False, excluded=[], readiness=checks)
        assert ready is not None
        assert live is not None
        failed = [line for line in ready.body.splitlines() if line.startswith("[-]")]
        running = not task.done()
        plane.stop()
        await task
        failures = plane.supervisor.failures("simulated/node-heartbeats")
        return running, failures, ready.status, failed, live.body

    result = run_virtual(main(), start=START, until=timedelta(minutes=5))
    assert result is not None
    running, failures, status, failed, live = result
    assert running
    assert failures == 8  # at 0, 1, 3, 7, 15, 31, 61 and 91 s
    assert (status, failed) == (500, ["[-]simulated/node-heartbeats failed: reason withheld"])
    assert live == "ok"
