"""The garbage collector against an API server over HTTP (a real uvicorn server on
127.0.0.1:0, on real time), with the ReplicaSet controller: a Foreground cascade and a
dangling dependent, deletes sent with their preconditions in the DeleteOptions body, and a
custom resource whose CRD came while the collector ran.
Waiting is event-driven (watches), bounded by a timeout."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from datetime import timedelta

import pytest

from podscale.api.kinds import KindInfo
from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.client.http import HttpApi
from podscale.client.kubeconfig import Connection
from podscale.controllers.garbagecollector import DeleteObject, ObjectRef
from podscale.controllers.garbagecollector.controller import GarbageCollectorController
from podscale.controllers.garbagecollector.operations import GcOperations
from podscale.controllers.manager import ControllerManager
from podscale.controllers.replicaset.controller import ReplicaSetController
from podscale.controllers.runtime_events import EventRecorder
from podscale.runtime import run
from podscale.store import MemoryStore, SystemClock

from .cluster import POD, RS, replica_set
from .crd_fixtures import CRD, gizmo, gizmo_crd
from .gc_cluster import DEPLOYMENT, deployment, owner_ref

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


async def wait_count(api: HttpApi, kind: KindInfo, count: int) -> None:
    """Return once ``kind`` in ``default`` has exactly ``count`` objects."""
    while True:
        listed = await api.list(kind, "default")
        if len(listed["items"]) == count:
            return
        version = listed["metadata"]["resourceVersion"]
        async for _ in api.watch(kind, "default", resource_version=version, timeout_seconds=1):
            break


def test_garbage_collector_over_http(server: RunningServer) -> None:
    async def main() -> tuple[int, int]:
        clock = SystemClock()
        async with HttpApi(Connection(server=server.url), qps=-1.0) as api:  # unthrottled
            manager = ControllerManager(api, clock)
            manager.register(ReplicaSetController(api, clock, rng=random.Random(3)))
            manager.register(GarbageCollectorController(api, clock))
            task = asyncio.create_task(manager.run())
            try:
                await manager.wait_started()
                await api.create(RS, "default", replica_set("web", 3))
                await wait_count(api, POD, 3)
                await api.delete(RS, "default", "web", propagation="Foreground")
                await wait_count(api, RS, 0)
                pods_after_cascade = len((await api.list(POD, "default"))["items"])
                ghost = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "ghost",
                         "uid": "00000000-0000-0000-0000-000000000009"}  # fmt: skip
                dangling = {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": "dep", "namespace": "default", "ownerReferences": [ghost]},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
                }
                await api.create(POD, "default", dangling)
                await wait_count(api, POD, 0)
                return pods_after_cascade, len((await api.list(RS, "default"))["items"])
            finally:
                manager.stop()
                await task

    assert run(main(), virtual=False, until=WAIT) == (0, 0)


def test_a_delete_over_http_carries_the_uid_precondition(server: RunningServer) -> None:
    """A decision made on an older object (another uid) never deletes the current one."""

    async def main() -> bool:
        clock = SystemClock()
        async with HttpApi(Connection(server=server.url), qps=-1.0) as api:  # unthrottled
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "p", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            }
            created = await api.create(POD, "default", pod)
            ops = GcOperations(api, EventRecorder(api, clock, "test"))
            stale = ObjectRef("v1", "Pod", "default", "p", "an-older-uid")
            await ops.apply_all([DeleteObject(stale, "Background", "an-older-uid", "1")], {})
            survivor = await api.get(POD, "default", "p")
            assert survivor["metadata"]["uid"] == created["metadata"]["uid"]
            current = ObjectRef("v1", "Pod", "default", "p", created["metadata"]["uid"])
            await ops.apply_all([DeleteObject(current, "Background", current.uid)], {})
            return not (await api.list(POD, "default"))["items"]

    assert run(main(), virtual=False, until=WAIT) is True


def test_custom_resources_are_collected_over_http(server: RunningServer) -> None:
    """A CRD created while the collector runs over HTTP: discovery over HTTP brings its kind,
    and a custom resource owned by a Deployment goes with the Deployment."""

    async def main() -> int:
        clock = SystemClock()
        async with HttpApi(Connection(server=server.url), qps=-1.0) as api:  # unthrottled
            manager = ControllerManager(api, clock)
            manager.register(GarbageCollectorController(api, clock))
            task = asyncio.create_task(manager.run())
            try:
                await manager.wait_started()
                await api.create(CRD, None, gizmo_crd())
                served = await api.served_kinds()
                gizmos = next(k for k in served.kinds if k.plural == "gizmos")
                owner = await api.create(DEPLOYMENT, "default", deployment("web"))
                await api.create(gizmos, "default", gizmo("g", owners=[owner_ref(owner)]))
                await api.delete(DEPLOYMENT, "default", "web")
                await wait_count(api, gizmos, 0)
                return len((await api.list(gizmos, "default"))["items"])
            finally:
                manager.stop()
                await task

    assert run(main(), virtual=False, until=WAIT) == 0
