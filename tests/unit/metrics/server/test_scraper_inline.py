"""The scraper's in-place paths equal the general ones, loop iteration for loop iteration.

An ``InlineStatsSource`` is read without a task, timeout and gather per node, and the wait
between ticks is a ``Pause`` rather than ``asyncio.timeout`` around ``Event.wait``. Both
must keep every observable order: what a scrape reads, what it stores and when, relative
to anything else running at the same virtual instant (probes here log each of their loop
iterations next to the scrape's reads and stores).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.metrics.server import MetricsServer, NodeSummary
from podscale.metrics.server.pause import Pause
from podscale.metrics.server.points import MetricsBatch, MetricsPoint
from podscale.metrics.server.scraper import DecodedStatsSource, InlineStatsSource
from podscale.runtime import VirtualClock, run_virtual

START = datetime(2026, 5, 1, tzinfo=UTC)
Log = list[tuple[Any, ...]]


class Points:
    """A ``DecodedStatsSource`` whose answers never wait; ``failing`` nodes refuse, and
    ``listing`` says what listing the nodes raises (None: it answers)."""

    def __init__(
        self, clock: VirtualClock, log: Log, nodes: list[str], failing: set[str], listing: str
    ) -> None:
        self.clock, self.log, self.names = clock, log, nodes
        self.failing, self.listing = failing, listing

    def _nodes(self) -> list[str]:
        self.log.append(("nodes",))
        if self.listing:
            raise ConnectionError(self.listing)
        return list(self.names)

    def _points(self, node: str) -> MetricsBatch:
        self.log.append(("read", node))
        if node in self.failing:
            raise TimeoutError() if node.startswith("slow") else ConnectionError("refused")
        now = self.clock.now()
        count = int((now - START).total_seconds()) + 1
        point = MetricsPoint(START, now, count * 1_000_000, 1024)
        return MetricsBatch({node: point}, {("default", f"on-{node}"): {"web": point}})

    async def nodes(self) -> list[str]:
        return self._nodes()

    async def summary(self, node_name: str) -> NodeSummary:
        raise AssertionError("a DecodedStatsSource is read through its points")

    async def summary_points(self, node_name: str) -> MetricsBatch:
        return self._points(node_name)


class InlinePoints(Points):
    """The same source, read in place (``InlineStatsSource``)."""

    def nodes_now(self) -> list[str]:
        return self._nodes()

    def summary_points_now(self, node_name: str) -> MetricsBatch:
        return self._points(node_name)


def scrape_log(source_type: type[Points], nodes: list[str], failing: set[str], listing: str) -> Log:
    """Two ticks of a running server next to two probes, as a log of who did what when."""

    async def scenario(clock: VirtualClock) -> Log:
        log: Log = []
        source = source_type(clock, log, nodes, failing, listing)
        server = MetricsServer(source, clock)

        async def probe(name: str) -> None:
            for tick in range(2):
                for step in range(6):
                    log.append((name, tick, step, server.scrape_count, server.ready()))
                    await asyncio.sleep(0)
                await asyncio.sleep(15 * (tick + 1) - asyncio.get_running_loop().time())

        first = asyncio.create_task(probe("before"))
        task = asyncio.create_task(server.run())
        second = asyncio.create_task(probe("after"))
        await asyncio.gather(first, second)
        last = server.last_scrape
        assert last is not None
        log.append(("result", last.scraped, dict(last.failures), server.scrape_count))
        log.append(("served", server.pod_metrics(None), server.node_metrics()))
        server.stop()
        await task
        return log

    clock = VirtualClock(START)
    result = run_virtual(scenario(clock), start=START, until=timedelta(hours=1))
    assert result is not None
    return result


def test_the_sources_are_what_they_claim() -> None:
    clock = VirtualClock(START)
    general = Points(clock, [], [], set(), "")
    inline = InlinePoints(clock, [], [], set(), "")
    assert isinstance(general, DecodedStatsSource)
    assert not isinstance(general, InlineStatsSource)
    assert isinstance(inline, InlineStatsSource)


@pytest.mark.parametrize(
    ("nodes", "failing", "listing"),
    [
        (["n1"], set(), ""),
        (["n2", "n1", "n3"], {"n3"}, ""),
        (["n1", "slow"], {"slow"}, ""),
        (["n1"], {"n1"}, ""),
        ([], set(), ""),
        (["n1"], set(), "apiserver unreachable"),
    ],
    ids=[
        "one-node",
        "three-nodes-one-failing",
        "a-timeout-error",
        "all-failing",
        "no-nodes",
        "list-fails",
    ],
)
def test_an_inline_source_is_scraped_in_the_same_iterations(
    nodes: list[str], failing: set[str], listing: str
) -> None:
    general = scrape_log(Points, nodes, failing, listing)
    inline = scrape_log(InlinePoints, nodes, failing, listing)
    assert inline == general
    assert ("nodes",) in general  # the log saw the scrapes at all
    if "slow" in failing:
        assert general[-2][2] == {"slow": "context deadline exceeded"}


Wait = Callable[[float], Awaitable[None]]


def event_wait() -> tuple[Callable[[], None], Wait]:
    """The wait ``Pause`` replaced: ``asyncio.timeout`` around ``Event.wait``."""
    event = asyncio.Event()

    async def wait(seconds: float) -> None:
        if event.is_set():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await event.wait()

    return event.set, wait


def pause_wait() -> tuple[Callable[[], None], Wait]:
    pause = Pause()
    return pause.end, pause.wait


def wait_log(
    make: Callable[[], tuple[Callable[[], None], Wait]], seconds: float, end_at: float | None
) -> Log:
    """A wait of ``seconds`` (ended at ``end_at``, a negative one before it starts) next to
    probes at the instant it should end, as a log."""

    async def scenario() -> Log:
        log: Log = []
        loop = asyncio.get_running_loop()
        end, wait = make()
        wake_at = seconds if end_at is None else max(end_at, 0.0)

        async def waiter() -> None:
            await asyncio.sleep(0)
            await wait(seconds)
            log.append(("woke", loop.time()))

        async def probe(name: str, ends: bool) -> None:
            if wake_at:
                await asyncio.sleep(wake_at)
            for step in range(5):
                log.append((name, step, loop.time()))
                if ends and step == 1:
                    end()
                await asyncio.sleep(0)

        if end_at is not None and end_at < 0:
            end()
        tasks = [
            asyncio.create_task(probe("before", end_at is not None and end_at >= 0)),
            asyncio.create_task(waiter()),
            asyncio.create_task(probe("after", False)),
        ]
        await asyncio.gather(*tasks)
        return log

    result = run_virtual(scenario(), start=START, until=timedelta(hours=1))
    assert result is not None
    return result


@pytest.mark.parametrize(
    ("seconds", "end_at"),
    [(5.0, None), (5.0, 2.0), (5.0, 5.0), (0.0, None), (5.0, -1.0), (5.0, 0.0)],
    ids=[
        "times-out",
        "ended-early",
        "ended-at-the-deadline",
        "zero",
        "ended-before",
        "ended-at-once",
    ],
)
def test_a_pause_wakes_in_the_same_iterations_as_a_timed_out_event_wait(
    seconds: float, end_at: float | None
) -> None:
    expected = wait_log(event_wait, seconds, end_at)
    assert wait_log(pause_wait, seconds, end_at) == expected
    assert any(entry[0] == "woke" for entry in expected)


def test_a_pause_cancelled_while_waiting_leaves_no_timer() -> None:
    async def scenario() -> tuple[bool, int]:
        pause = Pause()
        task = asyncio.create_task(pause.wait(30))
        await asyncio.sleep(1)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.sleep(60)  # a leftover timer would fire here, on a cancelled future
        pause.end()
        await pause.wait(30)  # ended: returns at once
        return task.cancelled(), int(asyncio.get_running_loop().time())

    assert run_virtual(scenario(), start=START, until=timedelta(hours=1)) == (True, 61)
