"""The Deployment and ReplicaSet controllers against an API server over HTTP (uvicorn on
127.0.0.1:0, real time): a create and a template change roll out through the client
protocol alone, and the revision annotation reaches the Deployment. Waiting is a watch on
the Deployment, bounded by a timeout."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.client.http import HttpApi
from podscale.client.kubeconfig import Connection
from podscale.controllers.deployment.controller import DeploymentController
from podscale.controllers.manager import ControllerManager
from podscale.controllers.replicaset.controller import ReplicaSetController
from podscale.runtime import run
from podscale.store import MemoryStore, SystemClock

from .cluster import RS
from .deploy_cluster import DEPLOYMENT, REVISION, deployment, rolling

WAIT = timedelta(seconds=30)
JSON = dict[str, Any]


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


async def wait_for(api: HttpApi, done: Callable[[JSON], bool]) -> JSON:
    async for _, d in api.watch(DEPLOYMENT, "default", field_selector="metadata.name=web"):
        if done(d):
            return d
    raise AssertionError("watch ended")


def _rolled_out(generation: int, revision: str) -> Callable[[JSON], bool]:
    def done(d: JSON) -> bool:
        status = d.get("status") or {}
        return (
            status.get("observedGeneration") == generation
            and status.get("updatedReplicas") == status.get("replicas") == 2
            and (d["metadata"].get("annotations") or {}).get(REVISION) == revision
        )

    return done


def test_deployment_rolls_out_over_http(server: RunningServer) -> None:
    async def main() -> list[tuple[str, int]]:
        clock = SystemClock()
        async with HttpApi(Connection(server=server.url), qps=-1.0) as api:  # unthrottled
            manager = ControllerManager(api, clock)
            manager.register(ReplicaSetController(api, clock, rng=random.Random(3)))
            manager.register(DeploymentController(api, clock))
            task = asyncio.create_task(manager.run())
            try:
                await manager.wait_started()
                # No kubelet here: maxUnavailable 2 lets the rollout go without ready pods.
                body = deployment("web", 2, strategy=rolling(1, 2))
                await api.create(DEPLOYMENT, "default", body)
                await wait_for(api, _rolled_out(1, "1"))
                template = {"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}
                await api.patch(DEPLOYMENT, "default", "web", {"spec": {"template": template}})
                await wait_for(api, _rolled_out(2, "2"))
                items = (await api.list(RS, "default"))["items"]
                return sorted(
                    (rs["metadata"]["annotations"][REVISION], rs["spec"]["replicas"])
                    for rs in items
                )
            finally:
                manager.stop()
                await task

    assert run(main(), virtual=False, until=WAIT) == [("1", 0), ("2", 2)]
