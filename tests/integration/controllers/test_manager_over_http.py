"""The same manager and ReplicaSet controller against an API server over HTTP (a real
uvicorn server on 127.0.0.1:0, on real time): the controller needs nothing but the client
protocol. Waiting is event-driven (a watch on the ReplicaSet), bounded by a timeout."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from datetime import timedelta

import pytest

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.client.http import HttpApi
from podscale.client.kubeconfig import Connection
from podscale.controllers.manager import ControllerManager
from podscale.controllers.replicaset.controller import ReplicaSetController
from podscale.runtime import run
from podscale.store import MemoryStore, SystemClock

from .cluster import POD, RS, replica_set

WAIT = timedelta(seconds=30)


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


async def wait_for_replicas(api: HttpApi, name: str, replicas: int) -> None:
    async for _, rs in api.watch(RS, "default", field_selector=f"metadata.name={name}"):
        if (rs.get("status") or {}).get("replicas") == replicas:
            return


def test_replica_set_controller_over_http(server: RunningServer) -> None:
    async def main() -> list[str]:
        clock = SystemClock()
        async with HttpApi(Connection(server=server.url), qps=-1.0) as api:  # unthrottled
            manager = ControllerManager(api, clock)
            manager.register(ReplicaSetController(api, clock, rng=random.Random(3)))
            task = asyncio.create_task(manager.run())
            try:
                await manager.wait_started()
                await api.create(RS, "default", replica_set("web", 3))
                await wait_for_replicas(api, "web", 3)
                await api.patch(
                    RS, "default", "web", {"spec": {"replicas": 1}}, subresource="scale"
                )
                await wait_for_replicas(api, "web", 1)
                pods = (await api.list(POD, "default"))["items"]
                return [p["metadata"]["ownerReferences"][0]["name"] for p in pods]
            finally:
                manager.stop()
                await task

    assert run(main(), virtual=False, until=WAIT) == ["web"]
