"""``MetricsServer``'s loop on virtual time: cadence, timeouts, failures, stopping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest

from podscale.metrics.server import FakeKubeletStats, MetricsServer, NodeSummary
from podscale.metrics.server.points import MetricsBatch, decode_summary
from podscale.runtime import VirtualClock, run_virtual

START = datetime(2026, 5, 1, tzinfo=UTC)
T = TypeVar("T")
WEB = {"web": (250, 64 * 1024**2)}


def simulate(scenario: Callable[[VirtualClock], Coroutine[Any, Any, T]]) -> T:
    clock = VirtualClock(START)
    result = run_virtual(scenario(clock), start=START, until=timedelta(hours=2))
    assert result is not None
    return result


def seconds_since_start(moments: list[datetime]) -> list[float]:
    return [(m - START).total_seconds() for m in moments]


def test_scrapes_at_once_then_every_resolution() -> None:
    async def scenario(clock: VirtualClock) -> list[datetime]:
        kubelets = FakeKubeletStats(clock)
        kubelets.add_node("n1")
        server = MetricsServer(kubelets, clock)
        task = asyncio.create_task(server.run())
        await asyncio.sleep(119)
        server.stop()
        await task
        return [at for node, at in kubelets.calls]

    calls = seconds_since_start(simulate(scenario))
    assert calls == [15.0 * i for i in range(8)]
    assert [sum(60 * m <= c < 60 * (m + 1) for c in calls) for m in range(2)] == [4, 4]


class SlowKubelets(FakeKubeletStats):
    """Every summary takes ``delay`` seconds."""

    def __init__(self, clock: VirtualClock, delay: float) -> None:
        super().__init__(clock)
        self.delay = delay

    async def summary(self, node_name: str) -> NodeSummary:
        answer = await super().summary(node_name)
        await asyncio.sleep(self.delay)
        return answer


def test_ticks_overrun_by_a_slow_scrape_are_dropped() -> None:
    async def scenario(clock: VirtualClock) -> list[datetime]:
        kubelets = SlowKubelets(clock, 20)
        kubelets.add_node("n1")
        server = MetricsServer(kubelets, clock, scrape_timeout=timedelta(seconds=40))
        task = asyncio.create_task(server.run())
        await asyncio.sleep(95)
        server.stop()
        await task
        return [at for _, at in kubelets.calls]

    assert seconds_since_start(simulate(scenario)) == [0, 20, 40, 60, 80]


def test_a_hanging_node_times_out_and_only_its_pods_are_dropped() -> None:
    async def scenario(clock: VirtualClock) -> tuple[object, ...]:
        kubelets = FakeKubeletStats(clock)
        for node in ("n1", "n2"):
            kubelets.add_node(node)
            kubelets.add_pod(node, "default", f"on-{node}", WEB, started=START - timedelta(hours=1))
        server = MetricsServer(kubelets, clock)
        await server.scrape()
        await asyncio.sleep(15)
        await server.scrape()
        before = [i["metadata"]["name"] for i in server.pod_metrics("default")]
        kubelets.hang("n2")
        await asyncio.sleep(15)
        result = await server.scrape()
        took = (clock.now() - result.time).total_seconds()
        after = [i["metadata"]["name"] for i in server.pod_metrics("default")]
        nodes = [i["metadata"]["name"] for i in server.node_metrics()]
        return before, after, nodes, result.scraped, dict(result.failures), took

    before, after, nodes, scraped, failures, took = simulate(scenario)
    assert before == ["on-n1", "on-n2"]
    assert after == ["on-n1"]
    assert nodes == ["n1"]
    assert scraped == ("n1",)
    assert failures == {"n2": "context deadline exceeded"}
    assert took == 13.5  # 90% of the resolution


def test_a_failing_node_is_reported_and_comes_back_after_two_scrapes() -> None:
    async def scenario(clock: VirtualClock) -> list[object]:
        kubelets = FakeKubeletStats(clock)
        kubelets.add_node("n1")
        kubelets.add_pod("n1", "default", "p", WEB, started=START - timedelta(hours=1))
        server = MetricsServer(kubelets, clock)
        seen: list[object] = []
        for step in range(5):
            if step == 2:
                kubelets.fail("n1")
            if step == 3:
                kubelets.heal("n1")
            result = await server.scrape()
            seen.append((len(server.pod_metrics(None)), dict(result.failures)))
            await asyncio.sleep(15)
        return seen

    assert simulate(scenario) == [
        (0, {}),
        (1, {}),
        (0, {"n1": "kubelet on n1 is unavailable"}),
        (0, {}),
        (1, {}),
    ]


def test_a_failed_node_list_empties_the_storage() -> None:
    class NoNodes(FakeKubeletStats):
        broken = False

        async def nodes(self) -> list[str]:
            if self.broken:
                raise ConnectionError("apiserver unreachable")
            return await super().nodes()

    async def scenario(clock: VirtualClock) -> tuple[object, ...]:
        kubelets = NoNodes(clock)
        kubelets.add_node("n1", started=START - timedelta(days=1))
        server = MetricsServer(kubelets, clock)
        await server.scrape()
        await asyncio.sleep(15)
        await server.scrape()
        served = len(server.node_metrics())
        kubelets.broken = True
        result = await server.scrape()
        return served, len(server.node_metrics()), dict(result.failures)

    assert simulate(scenario) == (1, 0, {"": "apiserver unreachable"})


def test_stop_before_the_task_starts_ends_it_without_scraping() -> None:
    async def scenario(clock: VirtualClock) -> int:
        kubelets = FakeKubeletStats(clock)
        server = MetricsServer(kubelets, clock)
        task = asyncio.create_task(server.run())
        server.stop()
        await task
        return server.scrape_count

    assert simulate(scenario) == 0


def test_one_run_at_a_time_and_again_after_a_stop() -> None:
    async def scenario(clock: VirtualClock) -> tuple[str, int]:
        server = MetricsServer(FakeKubeletStats(clock), clock)
        first = asyncio.create_task(server.run())
        await asyncio.sleep(1)
        with pytest.raises(RuntimeError) as caught:
            await server.run()
        server.stop()
        await first
        second = asyncio.create_task(server.run())
        await asyncio.sleep(1)
        server.stop()
        await second
        return str(caught.value), server.scrape_count

    assert simulate(scenario) == ("the metrics server is already running", 2)


def test_cancelling_the_run_leaves_it_restartable() -> None:
    async def scenario(clock: VirtualClock) -> int:
        server = MetricsServer(FakeKubeletStats(clock), clock)
        task = asyncio.create_task(server.run())
        await asyncio.sleep(20)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        again = asyncio.create_task(server.run())
        await asyncio.sleep(1)
        server.stop()
        await again
        return server.scrape_count

    assert simulate(scenario) == 3


@pytest.mark.parametrize(
    ("resolution", "timeout", "message"),
    [
        (timedelta(0), None, "resolution must be positive"),
        (timedelta(seconds=15), timedelta(seconds=-1), "scrape_timeout must be positive"),
    ],
    ids=["resolution", "timeout"],
)
def test_settings_must_be_positive(
    resolution: timedelta, timeout: timedelta | None, message: str
) -> None:
    clock = VirtualClock(START)
    with pytest.raises(ValueError, match=message):
        MetricsServer(FakeKubeletStats(clock), clock, resolution=resolution, scrape_timeout=timeout)


class DecodedKubelets(FakeKubeletStats):
    """A ``DecodedStatsSource``: answers scrapes decoded, noting each such answer."""

    def __init__(self, clock: VirtualClock) -> None:
        super().__init__(clock)
        self.decoded_calls = 0

    async def summary_points(self, node_name: str) -> MetricsBatch:
        self.decoded_calls += 1
        return decode_summary(await self.summary(node_name))


def test_a_decoded_source_is_scraped_through_its_points_with_the_same_outcome() -> None:
    """Same scrapes of a plain and a ``DecodedStatsSource`` (a restart and a failing node
    on the way): the same failures and the same served metrics."""

    async def scenario(clock: VirtualClock) -> tuple[list[object], list[object], int]:
        plain, decoded = FakeKubeletStats(clock), DecodedKubelets(clock)
        servers = [MetricsServer(plain, clock), MetricsServer(decoded, clock)]
        for kubelets in (plain, decoded):
            for node in ("n1", "n2"):
                kubelets.add_node(node)
                kubelets.add_pod(node, "default", f"on-{node}", WEB, started=START)
        seen: list[list[object]] = [[], []]
        for step in range(6):
            for kubelets in (plain, decoded):
                if step == 2:
                    kubelets.restart_container("default", "on-n1", "web")
                if step == 3:
                    kubelets.fail("n2")
                if step == 4:
                    kubelets.heal("n2")
            for server, log in zip(servers, seen, strict=True):
                result = await server.scrape()
                log.append((dict(result.failures), server.pod_metrics(None)))
                log.append(server.node_metrics())
            await asyncio.sleep(15)
        return seen[0], seen[1], decoded.decoded_calls

    plain, decoded, calls = simulate(scenario)
    assert decoded == plain
    assert calls == 12  # every node at every scrape, the failing one too (it raised)
    failed = {"n2": "kubelet on n2 is unavailable"}
    assert any(isinstance(e, tuple) and e[0] == failed for e in plain)
