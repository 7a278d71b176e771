"""The metrics server on virtual time with fake kubelets: what is served when.

A ``MetricsServer`` runs as a task under ``podscale.runtime.run_virtual`` (a VirtualClock),
scraping a ``FakeKubeletStats`` every 15 s from t=0; the scenario looks at what it serves
between scrapes. Pods started long ago need two scrapes; a pod started 10-15 s before a
scrape is served after that one (metrics-server's fresh-container rule); usage changes show
as the average over the last window; pods that vanish go at the next scrape; with a store as
``objects`` a pod deleted from the API is never served even while its kubelet reports it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from podscale.metrics.object_labels import StoreObjectLabels
from podscale.metrics.server import FakeKubeletStats, MetricsServer
from podscale.runtime import VirtualClock, run_virtual
from podscale.store.memory import MemoryStore

START = datetime(2026, 3, 1, tzinfo=UTC)
LONG_AGO = START - timedelta(hours=1)
MI = 1024**2
JSON = dict[str, Any]
Observation = dict[str, tuple[str, str, str]]  # pod -> (cpu of "web", window, timestamp)


class Scenario:
    def __init__(self, clock: VirtualClock, **server_options: Any) -> None:
        self.clock = clock
        self.kubelets = FakeKubeletStats(clock)
        self.kubelets.add_node("node-a", started=LONG_AGO)
        self.kubelets.add_node("node-b", started=LONG_AGO)
        self.server = MetricsServer(self.kubelets, clock, **server_options)

    async def at(self, seconds: float) -> None:
        """Let virtual time pass until ``seconds`` after the start."""
        target = START + timedelta(seconds=seconds)
        await asyncio.sleep((target - self.clock.now()).total_seconds())

    def observe(self) -> Observation:
        seen: Observation = {}
        for item in self.server.pod_metrics("default"):
            web = next(c for c in item["containers"] if c["name"] == "web")
            seen[item["metadata"]["name"]] = (
                web["usage"]["cpu"],
                item["window"],
                item["timestamp"][-9:-1],
            )
        return seen


def simulate(body: Callable[[Scenario], Awaitable[Any]], **options: Any) -> Any:
    async def main() -> Any:
        scenario = Scenario(VirtualClock(START), **options)
        task = asyncio.create_task(scenario.server.run())
        try:
            return await body(scenario)
        finally:
            scenario.server.stop()
            await task

    return run_virtual(main(), start=START, until=timedelta(hours=1))


def test_pods_appear_change_and_vanish_on_scrape_boundaries() -> None:
    async def body(s: Scenario) -> list[tuple[float, Observation]]:
        s.kubelets.add_pod("node-a", "default", "old", {"web": (250, 64 * MI)}, started=LONG_AGO)
        seen: list[tuple[float, Observation]] = []

        async def look(seconds: float) -> None:
            await s.at(seconds)
            seen.append((seconds, s.observe()))

        await look(1)  # one scrape (t=0): nothing yet
        await look(16)  # two scrapes: "old" at its rate
        await s.at(17)
        s.kubelets.add_pod("node-b", "default", "fresh", {"web": (100, MI)})  # 13 s before t=30
        await s.at(22)
        s.kubelets.add_pod("node-b", "default", "late", {"web": (500, MI)})  # 8 s before t=30
        await look(31)
        await look(46)
        await s.at(50)
        s.kubelets.set_usage("default", "old", "web", cpu_millicores=1000)
        await look(61)  # 5 s at 250m + 10 s at 1 core
        await look(76)
        await s.at(80)
        s.kubelets.remove_pod("default", "old")
        await look(89)  # still the t=75 scrape
        await look(91)
        return seen

    assert simulate(body) == [
        (1, {}),
        (16, {"old": ("250m", "15s", "00:00:15")}),
        (31, {"fresh": ("100m", "13s", "00:00:30"), "old": ("250m", "15s", "00:00:30")}),
        (
            46,
            {
                "fresh": ("100m", "15s", "00:00:45"),
                "late": ("500m", "15s", "00:00:45"),
                "old": ("250m", "15s", "00:00:45"),
            },
        ),
        (
            61,
            {
                "fresh": ("100m", "15s", "00:01:00"),
                "late": ("500m", "15s", "00:01:00"),
                "old": ("750m", "15s", "00:01:00"),
            },
        ),
        (
            76,
            {
                "fresh": ("100m", "15s", "00:01:15"),
                "late": ("500m", "15s", "00:01:15"),
                "old": ("1", "15s", "00:01:15"),
            },
        ),
        (
            89,
            {
                "fresh": ("100m", "15s", "00:01:15"),
                "late": ("500m", "15s", "00:01:15"),
                "old": ("1", "15s", "00:01:15"),
            },
        ),
        (91, {"fresh": ("100m", "15s", "00:01:30"), "late": ("500m", "15s", "00:01:30")}),
    ]


def test_fifteen_second_resolution_is_four_scrapes_a_minute() -> None:
    async def body(s: Scenario) -> list[int]:
        counts = []
        for minute in range(1, 6):
            await s.at(60 * minute - 1)
            counts.append(s.server.scrape_count)
        return counts

    assert simulate(body) == [4, 8, 12, 16, 20]


def test_a_thirty_second_resolution_and_its_window() -> None:
    async def body(s: Scenario) -> tuple[int, Observation]:
        s.kubelets.add_pod("node-a", "default", "p", {"web": (300, MI)}, started=LONG_AGO)
        await s.at(119)
        return s.server.scrape_count, s.observe()

    count, seen = simulate(body, resolution=timedelta(seconds=30))
    assert count == 4
    assert seen == {"p": ("300m", "30s", "00:01:30")}


def test_a_restarted_container_is_served_again_after_two_scrapes() -> None:
    async def body(s: Scenario) -> list[bool]:
        s.kubelets.add_pod("node-a", "default", "p", {"web": (300, MI)}, started=LONG_AGO)
        served = []
        await s.at(20)
        s.kubelets.restart_container("default", "p", "web")  # 10 s before t=30: fresh
        await s.at(27)
        s.kubelets.restart_container("default", "p", "web")  # 3 s before t=30
        for seconds in (31, 46, 61):
            await s.at(seconds)
            served.append("p" in s.observe())
        return served

    assert simulate(body) == [False, True, True]


def test_node_metrics_cover_the_node_and_its_pods() -> None:
    async def body(s: Scenario) -> list[JSON]:
        s.kubelets.add_pod("node-a", "default", "p", {"web": (400, 100 * MI)}, started=LONG_AGO)
        await s.at(16)
        return s.server.node_metrics()

    items = simulate(body)
    assert [(i["metadata"]["name"], i["usage"], i["window"]) for i in items] == [
        ("node-a", {"cpu": "500m", "memory": "356Mi"}, "15s"),
        ("node-b", {"cpu": "100m", "memory": "256Mi"}, "15s"),
    ]


def test_a_pod_deleted_from_the_api_never_leaks_while_its_kubelet_still_reports_it() -> None:
    clock = VirtualClock(START)
    store = MemoryStore(clock)
    for name in ("kept", "deleted"):
        store.create(
            "pods",
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        )

    async def body(s: Scenario) -> tuple[list[str], list[str], JSON]:
        for name in ("kept", "deleted", "unknown"):
            s.kubelets.add_pod("node-a", "default", name, {"web": (50, MI)}, started=LONG_AGO)
        await s.at(16)
        before = sorted(s.observe())
        store.delete("pods", "default", "deleted")
        after = sorted(s.observe())  # no scrape in between: the API decides
        return before, after, s.server.pod_metrics("default")[0]["metadata"]

    before, after, metadata = simulate(body, objects=StoreObjectLabels(store))
    assert before == ["deleted", "kept"]
    assert after == ["kept"]
    assert metadata == {
        "name": "kept",
        "namespace": "default",
        "creationTimestamp": "2026-03-01T00:00:16Z",
        "labels": {"app": "kept"},
    }
