"""The controller manager on virtual time: shared informers feed keys to a controller's
queue, N workers per controller (flag-style counts), backoff on failure and forget on
success, a clean stop, and one informer per resource however many controllers use it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest

from podscale.api.kinds import KindInfo
from podscale.client.cache import object_key
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.manager import DEFAULT_WORKERS, Controller, ControllerManager
from podscale.controllers.runtime_api import SharedInformers
from podscale.runtime import run_virtual

from .cluster import POD, RS, START, UNTIL, Cluster, replica_set

JSON = dict[str, Any]


class Recording:
    """A controller that records (virtual seconds, key) per reconcile and can fail or block."""

    name = "recording"
    workers_flag = "concurrent_replicaset_syncs"

    def __init__(self, cluster: Cluster, *, failures: int = 0, hold: float = 0.0) -> None:
        self.cluster = cluster
        self.failures = failures
        self.hold = hold
        self.calls: list[tuple[float, str]] = []
        self.running = 0
        self.peak = 0
        self.queue: WorkQueue[str] | None = None

    @property
    def informer_kinds(self) -> Sequence[KindInfo]:
        return (RS, POD)

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        self.queue = queue
        informers.informer_for(RS).add_handler(
            EventHandler(on_add=lambda obj: queue.add(object_key(obj)))
        )

    async def reconcile(self, key: str) -> None:
        self.calls.append(((self.cluster.clock.now() - START).total_seconds(), key))
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            await asyncio.sleep(self.hold)
        finally:
            self.running -= 1
        if self.failures > 0:
            self.failures -= 1
            raise RuntimeError("boom")


def run(scenario: Any) -> None:
    async def main() -> bool:
        await scenario(Cluster())
        return True

    assert run_virtual(main(), start=START, until=UNTIL) is True


def test_recording_controller_satisfies_the_protocol() -> None:
    controller: Controller = Recording(Cluster())
    assert controller.workers_flag in DEFAULT_WORKERS


@pytest.mark.parametrize(
    ("workers", "peak"),
    [(None, 5), ({"concurrent_replicaset_syncs": 2}, 2), ({"concurrent_replicaset_syncs": 0}, 1)],
    ids=["default-5", "flag-2", "at-least-1"],
)
def test_runs_as_many_workers_as_the_flag_says(workers: dict[str, int] | None, peak: int) -> None:
    async def scenario(cluster: Cluster) -> None:
        for index in range(8):
            await cluster.api.create(RS, "default", replica_set(f"rs{index}", 1))
        manager = ControllerManager(cluster.api, cluster.clock, workers=workers)
        controller = Recording(cluster, hold=1.0)
        manager.register(controller)
        task = asyncio.create_task(manager.run())
        await cluster.settle(30)
        manager.stop()
        await task
        assert controller.peak == peak
        assert sorted(key for _, key in controller.calls) == [f"default/rs{i}" for i in range(8)]

    run(scenario)


def test_failures_back_off_exponentially_and_success_forgets() -> None:
    async def scenario(cluster: Cluster) -> None:
        manager = ControllerManager(cluster.api, cluster.clock)
        controller = Recording(cluster, failures=4)
        queue = manager.register(controller)
        task = asyncio.create_task(manager.run())
        await manager.wait_started()
        await cluster.api.create(RS, "default", replica_set("web", 1))
        await cluster.settle(10)
        manager.stop()
        await task
        times = [round(t, 6) for t, _ in controller.calls]
        assert times == [0.0, 0.005, 0.015, 0.035, 0.075]
        assert queue.num_requeues("default/web") == 0

    run(scenario)


def test_informers_are_shared_and_stop_with_the_manager() -> None:
    async def scenario(cluster: Cluster) -> None:
        manager = ControllerManager(cluster.api, cluster.clock)
        first, second = Recording(cluster), Recording(cluster)
        manager.register(first)
        manager.register(second)
        assert len(manager.informers.all()) == 2  # RS and pods, once each
        task = asyncio.create_task(manager.run())
        await manager.wait_started()
        with pytest.raises(RuntimeError, match="before the manager runs"):
            manager.register(Recording(cluster))
        await cluster.api.create(RS, "default", replica_set("web", 1))
        await cluster.settle(1)
        manager.stop()
        await asyncio.wait_for(task, timeout=timedelta(seconds=1).total_seconds())
        assert (
            [key for _, key in first.calls] == [key for _, key in second.calls] == ["default/web"]
        )
        assert all(informer.has_synced() for informer in manager.informers.all())

    run(scenario)
