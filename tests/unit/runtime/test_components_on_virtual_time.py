"""The project's asyncio components run unchanged on virtual time: the work queue delivers a
delayed item at exactly its deadline, and an informer over the in-process API sees creates
at once and resyncs after exactly its resync period."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.client.informer import EventHandler, Informer
from podscale.client.inprocess import InProcessApi, InProcessListWatcher
from podscale.client.ratelimit import ExponentialFailureRateLimiter, FixedIntervalRateLimiter
from podscale.client.workqueue import WorkQueue
from podscale.runtime import VirtualClock, run_virtual
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
START = datetime(2026, 2, 1, tzinfo=UTC)
RS = kind_for("apps/v1", "ReplicaSet")


@pytest.mark.parametrize(
    "interval",
    [timedelta(seconds=30), timedelta(minutes=15), timedelta(milliseconds=250)],
    ids=["30s", "15m", "250ms"],
)
def test_work_queue_delivers_a_rate_limited_item_at_its_virtual_deadline(
    interval: timedelta,
) -> None:
    clock = VirtualClock(START)
    queue: WorkQueue[str] = WorkQueue(clock, FixedIntervalRateLimiter(interval))

    async def main() -> tuple[str | None, datetime]:
        queue.add_rate_limited("default/web")
        item = await queue.get()
        return item, clock.now()

    assert run_virtual(main(), start=START) == ("default/web", START + interval)


def test_work_queue_backoff_retries_land_on_their_deadlines() -> None:
    clock = VirtualClock(START)
    limiter = ExponentialFailureRateLimiter(base=timedelta(seconds=1))
    queue: WorkQueue[str] = WorkQueue(clock, limiter)

    async def main() -> list[float]:
        attempts: list[float] = []
        queue.add("key")
        while len(attempts) < 5:
            item = await queue.get()
            assert item == "key"
            attempts.append((clock.now() - START).total_seconds())
            queue.done(item)
            queue.add_rate_limited(item)  # "failed": back off 1, 2, 4, 8 s
        queue.shut_down()
        return attempts

    assert run_virtual(main(), start=START) == [0.0, 1.0, 3.0, 7.0, 15.0]


def replica_set(name: str) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def test_informer_sees_creates_and_resyncs_after_exactly_its_period() -> None:
    clock = VirtualClock(START)
    api = InProcessApi.for_store(MemoryStore(clock), clock)
    seen: list[tuple[float, str, str]] = []

    def record(event: str, obj: JSON) -> None:
        seen.append(((clock.now() - START).total_seconds(), event, obj["metadata"]["name"]))

    async def main() -> str:
        await api.create(RS, "default", replica_set("early"))
        source = InProcessListWatcher(api, RS, "default")
        informer = Informer(source, clock, resync=timedelta(seconds=30))
        informer.add_handler(
            EventHandler(
                on_add=lambda obj: record("add", obj),
                on_update=lambda _, new: record("update", new),
            )
        )
        task = asyncio.create_task(informer.run())
        await informer.wait_synced()
        await asyncio.sleep(10)
        created = await api.create(RS, "default", replica_set("late"))
        await asyncio.sleep(45)  # past one resync (t=30), before the next (t=60)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return str(created["metadata"]["creationTimestamp"])

    created_at = run_virtual(main(), start=START)
    assert created_at == "2026-02-01T00:00:10Z"
    assert seen == [
        (0.0, "add", "early"),
        (10.0, "add", "late"),
        (30.0, "update", "early"),
        (30.0, "update", "late"),
    ]
