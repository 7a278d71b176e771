"""HPAs scaling on metrics from a real Prometheus, through the adapter, in real time.

A controlled exporter (``exporter.py --controlled``) serves what each test sets: a
``http_requests_total`` counter per ready pod of the plane (a load balancer task spreads a
total request rate over them) and ``queue_depth`` gauges. Prometheus scrapes it every second;
an ``EmbeddedControlPlane`` on the system clock (HPA sync every second, fast simulated pods)
serves custom.metrics.k8s.io and external.metrics.k8s.io from the Prometheus adapter, run by
``podscale up``'s own ``run_workloads`` with a short relist interval. Proves: an HPA on the
Pods metric ``http_requests_per_second`` (a ``rate()`` rule) scales 1 -> 3 and no further;
an HPA on the External metric ``queue_depth`` with a selector scales 1 -> 3, then back to 1
only once the downscale stabilization window has passed. Waits are bounded polls: these are
real external processes, so real time is unavoidable here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import time
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, TypeVar

import httpx
import pytest

from podscale.api.kinds import kind_for
from podscale.api.quantity import parse_quantity
from podscale.client.inprocess import InProcessApi
from podscale.hpa import Config
from podscale.metrics.prometheus import load_config
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.plane.prometheus import PrometheusOptions, prometheus_provider, run_workloads
from podscale.runtime.simulated.kubelet_state import StartupProfile
from podscale.store.clock import SystemClock
from podscale.store.memory import MemoryStore

from .harness import start_prometheus

JSON = dict[str, Any]
T = TypeVar("T")
DEPLOYMENT = kind_for("apps/v1", "Deployment")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
POD = kind_for("v1", "Pod")
FAST_PODS = StartupProfile(
    startup=timedelta(seconds=0.3),
    readiness_delay=timedelta(seconds=0.3),
    termination=timedelta(seconds=0.3),
)
READY_TIMEOUT = 30.0
POLL = 0.2

RULES = """
rules:
- seriesQuery: '{__name__=~"^http_requests_total$",namespace!="",pod!=""}'
  resources:
    overrides:
      namespace: {resource: namespace}
      pod: {resource: pod}
  name: {matches: "^(.*)_total$", as: "${1}_per_second"}
  metricsQuery: 'sum(rate(<<.Series>>{<<.LabelMatchers>>}[10s])) by (<<.GroupBy>>)'
externalRules:
- seriesQuery: '{__name__="queue_depth",queue!=""}'
  resources: {namespaced: false}
  metricsQuery: 'sum(<<.Series>>{<<.LabelMatchers>>}) by (queue)'
"""


@dataclass(frozen=True)
class Prometheus:
    url: str
    exporter: str  # the controlled exporter's base URL


def _scraped_once(url: str) -> bool:
    query = urllib.parse.urlencode({"query": 'up{job="exporter"} == 1'})
    try:
        with urllib.request.urlopen(f"{url}/api/v1/query?{query}", timeout=2) as response:
            return bool(json.load(response)["data"]["result"])
    except OSError:
        return False  # not listening yet


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prometheus]:
    """A controlled exporter and a Prometheus scraping it every second, once scraped."""
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("prometheus binary not found (Debian: apt-get install prometheus)")
    work = tmp_path_factory.mktemp("prometheus-hpa")
    with ExitStack() as stack:
        url, exporter_port, server = start_prometheus(stack, binary, work, ("--controlled",))
        deadline = time.monotonic() + READY_TIMEOUT
        while not _scraped_once(url):
            if server.poll() is not None:
                raise RuntimeError(f"prometheus exited with code {server.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"prometheus at {url} did not scrape within {READY_TIMEOUT}s")
            time.sleep(0.2)
        yield Prometheus(url, f"http://127.0.0.1:{exporter_port}")


def deployment(name: str) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": name}]},
            },
        },
    }


def hpa(name: str, metric: JSON) -> JSON:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 1,
            "maxReplicas": 6,
            "metrics": [metric],
        },
    }


def is_ready(pod: JSON) -> bool:
    status = pod.get("status") or {}
    return status.get("phase") == "Running" and any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in status.get("conditions") or []
    )


@dataclass
class Harness:
    """One test's plane, exporter control and replica history."""

    api: InProcessApi
    exporter: httpx.AsyncClient
    started: float = field(default_factory=time.monotonic)
    history: list[tuple[float, int]] = field(default_factory=list)

    async def set_series(
        self, counters: list[JSON] | None = None, gauges: list[JSON] | None = None
    ) -> None:
        body = {"counters": counters or [], "gauges": gauges or []}
        (await self.exporter.post("/set", json=body)).raise_for_status()

    async def replicas(self, name: str) -> int:
        body = await self.api.get(DEPLOYMENT, "default", name)
        return int(body["spec"]["replicas"])

    async def record(self, name: str) -> None:
        """Keep every change of the Deployment's desired replicas, with its time."""
        while True:
            count = await self.replicas(name)
            if not self.history or self.history[-1][1] != count:
                self.history.append((time.monotonic(), count))
            await asyncio.sleep(POLL)

    async def balance(self, app: str, total_rate: Callable[[], float]) -> None:
        """A load balancer: spread the total request rate over the app's ready pods."""
        while True:
            pods = await self.api.list(POD, "default", label_selector=f"app={app}")
            ready = [p["metadata"]["name"] for p in pods["items"] if is_ready(p)]
            counters = [
                {
                    "name": "http_requests_total",
                    "labels": {"namespace": "default", "pod": pod},
                    "rate": total_rate() / len(ready),
                }
                for pod in ready
            ]
            await self.set_series(counters=counters)
            await asyncio.sleep(POLL)

    async def wait_for_replicas(self, name: str, wanted: int, timeout: float) -> float:
        """Poll until the Deployment wants ``wanted`` replicas; returns when, or fails."""
        deadline = time.monotonic() + timeout
        while (count := await self.replicas(name)) != wanted:
            assert time.monotonic() < deadline, (
                f"{name} still at {count} replicas, not {wanted}, after {timeout}s "
                f"(history {self.counts()})"
            )
            await asyncio.sleep(POLL)
        return time.monotonic()

    async def wait_for_status(
        self, name: str, check: Callable[[JSON], bool], timeout: float
    ) -> JSON:
        deadline = time.monotonic() + timeout
        while True:
            status: JSON = (await self.api.get(HPA, "default", name)).get("status", {})
            if check(status):
                return status
            assert time.monotonic() < deadline, f"HPA {name} status never matched: {status}"
            await asyncio.sleep(POLL)

    def counts(self) -> list[int]:
        return [count for _, count in self.history]


def on_plane(
    prom: Prometheus,
    body: Callable[[Harness], Awaitable[T]],
    config: Config,
) -> T:
    """Run ``body`` against a fresh plane whose custom and external metrics come from
    ``prom`` through the adapter; everything it started is stopped before returning."""

    async def main() -> T:
        clock = SystemClock()
        api = InProcessApi.for_store(MemoryStore(clock), clock)
        options = PrometheusOptions(prom.url, load_config(RULES), timedelta(seconds=1))
        provider = prometheus_provider(options, api, clock)
        plane = EmbeddedControlPlane(
            clock,
            api=api,
            metrics=True,
            profile=FAST_PODS,
            hpa_config=config,
            hpa_sync_period=timedelta(seconds=1),
            custom_metrics_provider=provider,
            external_metrics_provider=provider,
        )
        running = asyncio.create_task(run_workloads(plane))
        try:
            await asyncio.wait_for(plane.wait_started(), READY_TIMEOUT)
            async with httpx.AsyncClient(base_url=prom.exporter, timeout=5) as exporter:
                return await body(Harness(api, exporter))
        finally:
            plane.stop()
            await running

    return asyncio.run(main())


@contextlib.asynccontextmanager
async def background(*coroutines: Awaitable[None]) -> Any:
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def test_pods_metric_from_a_rate_rule_scales_to_the_load(prometheus: Prometheus) -> None:
    # 25 req/s over pods that should each take 10: ceil(2.5) = 3 pods. 25 sits mid-way
    # between 20 and 30, so rate()'s extrapolation noise can move neither answer.
    async def body(h: Harness) -> tuple[list[int], JSON]:
        await h.api.create(DEPLOYMENT, "default", deployment("web"))
        metric = {
            "type": "Pods",
            "pods": {
                "metric": {"name": "http_requests_per_second"},
                "target": {"type": "AverageValue", "averageValue": "10"},
            },
        }
        await h.api.create(HPA, "default", hpa("web", metric))
        async with background(h.record("web"), h.balance("web", lambda: 25.0)):
            await h.wait_for_replicas("web", 3, timeout=40)

            def settled(status: JSON) -> bool:
                # Once every pod's 10 s rate window holds only its share, 25/3 each.
                current = (status.get("currentMetrics") or [{}])[0].get("pods", {})
                value = current.get("current", {}).get("averageValue")
                return (
                    value is not None and 7.5 <= parse_quantity(value).milli_value() / 1000 <= 9.2
                )

            status = await h.wait_for_status("web", settled, timeout=25)
            await h.wait_for_replicas("web", 3, timeout=1)
        return h.counts(), status

    counts, status = on_plane(prometheus, body, Config())
    assert counts[0] == 1
    assert max(counts) == 3, f"overshot: {counts}"
    assert status["desiredReplicas"] == 3
    assert status["currentMetrics"][0]["pods"]["metric"] == {"name": "http_requests_per_second"}


def test_external_metric_with_a_selector_scales_up_then_down(prometheus: Prometheus) -> None:
    window = timedelta(seconds=4)

    async def body(h: Harness) -> tuple[list[int], float, JSON]:
        def depth(queue: str, value: float) -> JSON:
            return {"name": "queue_depth", "labels": {"queue": queue}, "value": value}

        # The "other" queue is deep: only the selector keeps it out of the sum.
        await h.set_series(gauges=[depth("jobs", 25), depth("other", 1000)])
        await h.api.create(DEPLOYMENT, "default", deployment("worker"))
        metric = {
            "type": "External",
            "external": {
                "metric": {
                    "name": "queue_depth",
                    "selector": {"matchLabels": {"queue": "jobs"}},
                },
                "target": {"type": "AverageValue", "averageValue": "10"},
            },
        }
        await h.api.create(HPA, "default", hpa("worker", metric))
        async with background(h.record("worker")):
            await h.wait_for_replicas("worker", 3, timeout=20)  # ceil(25 / 10)
            lowered = time.monotonic()
            await h.set_series(gauges=[depth("jobs", 5)])
            scaled_down = await h.wait_for_replicas("worker", 1, timeout=20)  # ceil(5 / 10)

            def reads_five(status: JSON) -> bool:
                current = (status.get("currentMetrics") or [{}])[0].get("external", {})
                return bool(current.get("current", {}).get("averageValue") == "5")

            status = await h.wait_for_status("worker", reads_five, timeout=5)
        return h.counts(), scaled_down - lowered, status

    counts, delay, status = on_plane(prometheus, body, Config(downscale_stabilization=window))
    assert counts == [1, 3, 1]
    # The last recommendation of 3 came at most a sync period (1 s) before the gauge
    # dropped, and holds the count for the whole window after it.
    assert delay >= window.total_seconds() - 1.0, f"scaled down after only {delay:.1f}s"
    assert status["currentMetrics"][0]["external"]["metric"] == {
        "name": "queue_depth",
        "selector": {"matchLabels": {"queue": "jobs"}},
    }
