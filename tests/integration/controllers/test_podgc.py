"""The pod GC controller on virtual time over the in-process API: a pod bound to a node
that does not exist is written Failed (DisruptionTarget, DeletionByPodGC) and deleted with
grace 0 once the node's 40 s quarantine has passed and a GET confirmed it gone; pods of
existing nodes, and of a node that registers during the quarantine, are left alone."""

from __future__ import annotations

import asyncio
from typing import Any

from podscale.api.kinds import KindInfo, kind_for
from podscale.controllers.manager import ControllerManager
from podscale.controllers.podgc import PodGarbageCollectorController
from podscale.runtime import run_virtual
from podscale.runtime.simulated.node_objects import node

from .cluster import POD, START, UNTIL, Cluster, Passthrough

JSON = dict[str, Any]
NODE = kind_for("v1", "Node")


class Recorded(Passthrough):
    """Records the status writes and deletes the controller makes."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.writes: list[tuple[str, str, Any]] = []

    async def update(
        self, kind: KindInfo, namespace: str | None, obj: JSON, subresource: str | None = None
    ) -> JSON:
        self.writes.append(("update", obj["metadata"]["name"], obj["status"]))
        return await self.inner.update(kind, namespace, obj, subresource)

    async def delete(
        self, kind: KindInfo, namespace: str | None, name: str, **options: Any
    ) -> JSON:
        self.writes.append(("delete", name, options.get("grace_period_seconds")))
        return await self.inner.delete(kind, namespace, name, **options)


def pod(name: str, node_name: str) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"nodeName": node_name, "containers": [{"name": "app", "image": "nginx"}]},
    }


def test_orphaned_pods_are_failed_and_force_deleted_after_the_quarantine() -> None:
    async def main() -> dict[str, Any]:
        cluster = Cluster()
        api = Recorded(cluster.api)
        await cluster.api.create(NODE, None, node("live", now=START))
        for name, on in (("kept", "live"), ("orphan", "gone"), ("early", "late")):
            await cluster.api.create(POD, "default", pod(name, on))
        manager = ControllerManager(api, cluster.clock)
        manager.register(PodGarbageCollectorController(api, cluster.clock))
        task = asyncio.create_task(manager.run())
        await manager.wait_started()  # first pass at t=0: "gone" and "late" quarantined
        await cluster.settle(30)
        await cluster.api.create(NODE, None, node("late", now=START))  # registers in time
        await cluster.settle(9)
        seen: dict[str, Any] = {
            "at_39": sorted(p["metadata"]["name"] for p in await cluster.pods())
        }
        await cluster.settle(2)
        seen["at_41"] = sorted(p["metadata"]["name"] for p in await cluster.pods())
        await cluster.settle(120)
        seen["writes"] = api.writes
        manager.stop()
        await task
        return seen

    seen = run_virtual(main(), start=START, until=UNTIL)
    assert seen is not None
    assert seen["at_39"] == ["early", "kept", "orphan"]
    assert seen["at_41"] == ["early", "kept"]
    (update, delete) = seen["writes"]
    assert update[:2] == ("update", "orphan")
    status = update[2]
    assert status["phase"] == "Failed"
    assert {
        "type": "DisruptionTarget",
        "status": "True",
        "lastTransitionTime": "2026-03-01T00:00:40Z",
        "reason": "DeletionByPodGC",
        "message": "PodGC: node no longer exists",
    } in status["conditions"]
    assert delete == ("delete", "orphan", 0)


def test_pods_of_a_node_deleted_later_are_collected() -> None:
    """The pass skips listing while every pod's node exists; deleting the node (or binding
    a pod to an unknown node later) must bring the pass back."""

    async def main() -> dict[str, Any]:
        cluster = Cluster()
        api = Recorded(cluster.api)
        for name in ("one", "two"):
            await cluster.api.create(NODE, None, node(name, now=START))
        await cluster.api.create(POD, "default", pod("on-one", "one"))
        await cluster.api.create(POD, "default", pod("on-two", "two"))
        manager = ControllerManager(api, cluster.clock)
        manager.register(PodGarbageCollectorController(api, cluster.clock))
        task = asyncio.create_task(manager.run())
        await manager.wait_started()
        await cluster.settle(100)  # nothing is an orphan: five passes, no writes
        seen: dict[str, Any] = {"quiet": list(api.writes)}
        await cluster.api.delete(NODE, None, "one")
        await cluster.api.create(POD, "default", pod("late", "nowhere"))
        await cluster.settle(100)
        seen["pods"] = sorted(p["metadata"]["name"] for p in await cluster.pods())
        seen["deleted"] = sorted(w[1] for w in api.writes if w[0] == "delete")
        manager.stop()
        await task
        return seen

    seen = run_virtual(main(), start=START, until=UNTIL)
    assert seen is not None
    assert seen["quiet"] == []
    assert seen["pods"] == ["on-two"]
    assert seen["deleted"] == ["late", "on-one"]
