"""``FakeKubeletStats``: exact counters, piecewise usage, restarts and faults."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from podscale.metrics.server import FakeKubeletStats, KubeletUnavailable, NodeSummary
from podscale.testing.clock import FakeClock

START = datetime(2026, 1, 1, tzinfo=UTC)
MI = 1024**2


def summary(kubelets: FakeKubeletStats, node: str = "n1") -> NodeSummary:
    return asyncio.run(kubelets.summary(node))


def cpu_of(result: NodeSummary, pod: str, container: str = "web") -> int | None:
    (stats,) = [p for p in result.pods if p.name == pod]
    (found,) = [c for c in stats.containers if c.name == container]
    assert found.cpu is not None
    return found.cpu.usage_core_nano_seconds


def setup() -> tuple[FakeClock, FakeKubeletStats]:
    clock = FakeClock(START)
    kubelets = FakeKubeletStats(clock)
    kubelets.add_node("n1", cpu_millicores=100, memory_bytes=256 * MI)
    return clock, kubelets


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ([(10, None)], 2_500_000_000),
        ([(10, 500), (4, None)], 2_500_000_000 + 2_000_000_000),
        ([(0.5, 1), (1.5, None)], 125_000_000 + 1_500_000),
        ([(3, 0), (100, None)], 750_000_000),
    ],
    ids=["constant", "raised", "sub-second", "idle"],
)
def test_counters_integrate_the_usage_exactly(
    steps: list[tuple[float, int | None]], expected: int
) -> None:
    clock, kubelets = setup()
    kubelets.add_pod("n1", "default", "p", {"web": (250, 64 * MI)})
    for seconds, new_rate in steps:
        clock.advance(seconds)
        if new_rate is not None:
            kubelets.set_usage("default", "p", "web", cpu_millicores=new_rate)
    assert cpu_of(summary(kubelets), "p") == expected


def test_a_pod_started_earlier_has_run_since_then() -> None:
    _, kubelets = setup()
    kubelets.add_pod("n1", "default", "p", {"web": (250, MI)}, started=START - timedelta(minutes=1))
    result = summary(kubelets)
    assert cpu_of(result, "p") == 15_000_000_000
    assert result.pods[0].start_time == START - timedelta(minutes=1)


def test_a_restart_resets_the_counter_and_start_time() -> None:
    clock, kubelets = setup()
    kubelets.add_pod("n1", "default", "p", {"web": (250, MI)})
    clock.advance(20)
    kubelets.restart_container("default", "p", "web")
    clock.advance(4)
    result = summary(kubelets)
    assert cpu_of(result, "p") == 1_000_000_000
    assert result.pods[0].containers[0].start_time == START + timedelta(seconds=20)


def test_the_node_adds_its_pods_and_its_counter_never_goes_back() -> None:
    clock, kubelets = setup()
    kubelets.add_pod("n1", "default", "p", {"web": (900, 100 * MI), "side": (0, 28 * MI)})
    clock.advance(10)
    first = summary(kubelets).node
    kubelets.remove_pod("default", "p")
    clock.advance(10)
    second = summary(kubelets).node
    assert first.cpu is not None
    assert second.cpu is not None
    assert first.memory is not None
    assert second.memory is not None
    assert first.cpu.usage_core_nano_seconds == 10 * 1_000_000_000
    assert second.cpu.usage_core_nano_seconds == 10 * 1_000_000_000 + 1_000_000_000
    assert (first.memory.working_set_bytes, second.memory.working_set_bytes) == (384 * MI, 256 * MI)
    assert summary(kubelets).pods == ()


def test_faults_and_calls() -> None:
    clock, kubelets = setup()
    kubelets.fail("n1")
    with pytest.raises(KubeletUnavailable, match="kubelet on n1 is unavailable"):
        summary(kubelets)
    kubelets.heal("n1")
    clock.advance(1)
    summary(kubelets)
    with pytest.raises(KubeletUnavailable, match="no node 'n9'"):
        summary(kubelets, "n9")
    assert kubelets.calls == [
        ("n1", START),
        ("n1", START + timedelta(seconds=1)),
        ("n9", START + timedelta(seconds=1)),
    ]


def test_a_hanging_kubelet_never_answers() -> None:
    _, kubelets = setup()
    kubelets.hang("n1")

    async def ask() -> bool:
        try:
            await asyncio.wait_for(kubelets.summary("n1"), 0.01)
        except TimeoutError:
            return True
        return False

    assert asyncio.run(ask())


def test_pods_only_on_known_nodes() -> None:
    _, kubelets = setup()
    with pytest.raises(KeyError):
        kubelets.add_pod("n9", "default", "p", {"web": (1, 1)})
    assert asyncio.run(kubelets.nodes()) == ["n1"]
