"""The controller manager under supervision, on virtual time: a sync that keeps raising
an unexpected exception neither stops its worker nor holds up other keys, and an informer
that dies (here: of an event handler's exception) is restarted with backoff, its fault
counted and shown by the manager's readiness check while it waits."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Sequence
from typing import Any

import pytest

from podscale.api.kinds import KindInfo
from podscale.client.cache import object_key
from podscale.client.informer import EventHandler
from podscale.client.workqueue import WorkQueue
from podscale.controllers.manager import ControllerManager
from podscale.controllers.runtime_api import SharedInformers
from podscale.runtime import run_virtual

from .cluster import RS, START, UNTIL, Cluster, replica_set

JSON = dict[str, Any]


class Picky:
    """A one-worker controller whose sync of ``default/bad`` always raises a bug-like
    error; records (virtual seconds, key) per sync. ``poison``: its informer handler raises
    once for a ReplicaSet of that name (a bug in an event handler)."""

    name = "picky"
    workers_flag = "concurrent_picky_syncs"  # unknown flag: one worker

    def __init__(self, cluster: Cluster, *, poison: str = "") -> None:
        self.cluster = cluster
        self.poison = poison
        self.calls: list[tuple[float, str]] = []

    @property
    def informer_kinds(self) -> Sequence[KindInfo]:
        return (RS,)

    def bind(self, informers: SharedInformers, queue: WorkQueue[str]) -> None:
        def on_add(obj: JSON) -> None:
            if obj["metadata"]["name"] == self.poison:
                self.poison = ""
                raise KeyError("a handler bug")
            queue.add(object_key(obj))

        def on_update(_old: JSON, new: JSON) -> None:
            queue.add(object_key(new))

        informers.informer_for(RS).add_handler(EventHandler(on_add=on_add, on_update=on_update))

    async def reconcile(self, key: str) -> None:
        self.calls.append(((self.cluster.clock.now() - START).total_seconds(), key))
        if key == "default/bad":
            raise ZeroDivisionError("division by zero")


def run(scenario: Any) -> None:
    async def main() -> bool:
        await scenario(Cluster())
        return True

    assert run_virtual(main(), start=START, until=UNTIL) is True


def test_a_sync_that_keeps_raising_does_not_hold_up_other_keys(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario(cluster: Cluster) -> None:
        manager = ControllerManager(cluster.api, cluster.clock)
        controller = Picky(cluster)
        manager.register(controller)
        for name in ("alpha", "bad", "gamma"):
            await cluster.api.create(RS, "default", replica_set(name, 1))
        task = asyncio.create_task(manager.run())
        await manager.wait_started()
        await cluster.settle(30)
        await cluster.api.create(RS, "default", replica_set("late", 1))
        await cluster.settle(60)
        manager.stop()
        await task
        keys = [key for _, key in controller.calls]
        assert [k for k in keys if k != "default/bad"] == [
            "default/alpha",
            "default/gamma",
            "default/late",
        ]
        bad = [t for t, key in controller.calls if key == "default/bad"]
        assert len(bad) > 10  # retried with the controller rate limiter's backoff
        assert all(later > earlier for earlier, later in itertools.pairwise(bad))
        assert manager.supervisor.failures("controller/picky") == 0  # the worker never died
        late = next(t for t, key in controller.calls if key == "default/late")
        assert 30 <= late < 31

    with caplog.at_level(logging.DEBUG, logger="podscale.controllers.manager"):
        run(scenario)
    lines = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert lines[0].getMessage() == (
        "error syncing picky 'default/bad': ZeroDivisionError: division by zero; requeuing"
    )
    assert all(r.exc_info is None for r in lines)  # tracebacks only at debug level
    assert any(r.exc_info is not None and r.levelno == logging.DEBUG for r in caplog.records)


def test_a_dead_informer_is_restarted_with_backoff_and_shows_in_readiness() -> None:
    async def scenario(cluster: Cluster) -> None:
        manager = ControllerManager(cluster.api, cluster.clock)
        controller = Picky(cluster, poison="poison")
        manager.register(controller)
        task = asyncio.create_task(manager.run())
        await manager.wait_started()
        await cluster.api.create(RS, "default", replica_set("poison", 1))
        await cluster.settle(0.5)  # the informer died at once; its restart is 1 s away
        checks = {check.name: check.check() for check in manager.supervisor.checks()}
        assert checks == {
            "controller/picky": None,
            "informer/replicasets.apps": "restarting after a failure: KeyError: 'a handler bug'",
        }
        await cluster.settle(2)
        await cluster.api.create(RS, "default", replica_set("after", 1))
        await cluster.settle(1)
        manager.stop()
        await task
        assert manager.supervisor.failures("informer/replicasets.apps") == 1
        assert manager.supervisor.check("informer/replicasets.apps") is None
        # The restart relisted and re-delivered what the cache held: the poisoned object
        # reached the controller after all.
        assert [(round(t, 3), key) for t, key in controller.calls] == [
            (1.0, "default/poison"),
            (2.5, "default/after"),
        ]

    run(scenario)
