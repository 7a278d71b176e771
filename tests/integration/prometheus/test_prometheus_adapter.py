"""The Prometheus adapter against a real Prometheus scraping the test exporter.

Proves discovery through ``/api/v1/series``, per-pod rates from a ``rate()`` rule, namespace
isolation, an Object metric on a Deployment, an external metric, escaping with hostile label
values, and that NaN, oversized bodies, refused queries and timeouts are clear errors.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest

from podscale.api import Selector, parse_selector
from podscale.api.selectors import Requirement
from podscale.metrics.prometheus import (
    BadSample,
    GroupResource,
    PrometheusAdapter,
    PrometheusClient,
    PrometheusError,
    PrometheusMetricsProvider,
    PrometheusTimeout,
    ResponseTooLarge,
    load_config,
)
from podscale.metrics.prometheus.registry import CustomMetricInfo, ExternalMetricInfo

from .harness import PrometheusServer

T = TypeVar("T")
PODS = GroupResource("", "pods")
DEPLOYMENTS = GroupResource("apps", "deployments")
HOSTILE_QUEUE = 'we"ird\\q|x'

RULES = """
rules:
- seriesQuery: '{__name__=~"^http_requests_total$",namespace!="",pod!=""}'
  resources:
    overrides:
      namespace: {resource: namespace}
      pod: {resource: pod}
  name: {matches: "^(.*)_total$", as: "${1}_per_second"}
  metricsQuery: 'sum(rate(<<.Series>>{<<.LabelMatchers>>}[30s])) by (<<.GroupBy>>)'
- seriesQuery: '{__name__="queue_messages_ready",namespace!="",deployment!=""}'
  resources:
    template: "<<.Resource>>"
    overrides:
      namespace: {resource: namespace}
  metricsQuery: 'max(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)'
externalRules:
- seriesQuery: '{__name__="queue_depth"}'
  resources: {namespaced: false}
  metricsQuery: 'sum(<<.Series>>{<<.LabelMatchers>>}) by (queue)'
- seriesQuery: '{__name__="broken_ratio"}'
  resources: {namespaced: false}
  metricsQuery: '<<.Series>>'
"""


class FixedClock:
    def __init__(self, now: datetime) -> None:
        self._now = now

    def now(self) -> datetime:
        return self._now


class StaticLister:
    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.calls: list[tuple[GroupResource, str | None, str]] = []

    async def list_object_names(
        self, resource: GroupResource, namespace: str | None, selector: Selector
    ) -> list[str]:
        self.calls.append((resource, namespace, str(selector)))
        return self.names


def run(factory: Callable[[PrometheusAdapter, datetime], Awaitable[T]], url: str) -> T:
    async def main() -> T:
        async with PrometheusClient(url, timeout=10) as client:
            adapter = PrometheusAdapter(load_config(RULES), client)
            now = datetime.now(UTC)
            await adapter.refresh(now)
            return await factory(adapter, now)

    return asyncio.run(main())


def test_discovery_lists_rule_metrics(prometheus: PrometheusServer) -> None:
    async def scenario(adapter: PrometheusAdapter, now: datetime) -> Any:
        return adapter.custom_metrics(), adapter.external_metrics()

    custom, external = run(scenario, prometheus.url)
    assert CustomMetricInfo(PODS, True, "http_requests_per_second") in custom
    assert CustomMetricInfo(DEPLOYMENTS, True, "queue_messages_ready") in custom
    assert external == [ExternalMetricInfo("broken_ratio"), ExternalMetricInfo("queue_depth")]


def test_pods_metric_gives_per_pod_rates(prometheus: PrometheusServer) -> None:
    async def scenario(adapter: PrometheusAdapter, now: datetime) -> Any:
        return await adapter.object_metrics(
            PODS, "default", ["web-1", "web-2"], "http_requests_per_second", Selector(), now
        )

    values = run(scenario, prometheus.url)
    by_pod = {value.name: value.value for value in values}
    assert set(by_pod) == {"web-1", "web-2"}
    # rate() extrapolates over a 30 s window of 1 s scrapes: within 10% of the true rate.
    assert by_pod["web-1"] == pytest.approx(5000, rel=0.1)
    assert by_pod["web-2"] == pytest.approx(2000, rel=0.1)
    assert all(value.namespace == "default" for value in values)


def test_pods_metric_stays_in_its_namespace(prometheus: PrometheusServer) -> None:
    async def scenario(adapter: PrometheusAdapter, now: datetime) -> Any:
        return await adapter.object_metrics(
            PODS, "other", ["web-1"], "http_requests_per_second", Selector(), now
        )

    (value,) = run(scenario, prometheus.url)
    assert value.value == pytest.approx(100_000, rel=0.1)


def test_pod_name_with_a_dot_matches_only_itself(prometheus: PrometheusServer) -> None:
    # Unescaped, "web.3|web-2" would also match webx3 (7/s) and sum() would merge them.
    async def scenario(adapter: PrometheusAdapter, now: datetime) -> Any:
        return await adapter.object_metrics(
            PODS, "default", ["web.3", "web-2"], "http_requests_per_second", Selector(), now
        )

    values = run(scenario, prometheus.url)
    by_pod = {value.name: value.value for value in values}
    assert set(by_pod) == {"web.3", "web-2"}
    assert by_pod["web.3"] == pytest.approx(1000, rel=0.1)


def test_object_metric_of_a_deployment(prometheus: PrometheusServer) -> None:
    async def scenario(adapter: PrometheusAdapter, now: datetime) -> Any:
        return await adapter.object_metric(
            DEPLOYMENTS, "default", "worker", "queue_messages_ready", Selector(), now
        )

    value = run(scenario, prometheus.url)
    assert (value.name, value.value) == ("worker", 30_000)


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (parse_selector("queue=jobs"), {"jobs": 42_000}),
        (Selector((Requirement("queue", "=", (HOSTILE_QUEUE,)),)), {HOSTILE_QUEUE: 7_000}),
        (
            Selector((Requirement("queue", "in", (HOSTILE_QUEUE, "we")),)),
            {HOSTILE_QUEUE: 7_000, "we": 1_000_000},
        ),
        (parse_selector("queue=we"), {"we": 1_000_000}),
    ],
    ids=["plain", "quotes-backslash-pipe", "in-alternation", "prefix-not-widened"],
)
def test_external_metric_with_escaped_selector(
    prometheus: PrometheusServer, selector: Selector, expected: dict[str, int]
) -> None:
    async def scenario(adapter: PrometheusAdapter, now: datetime) -> Any:
        return await adapter.external_metric("default", "queue_depth", selector, now)

    values = run(scenario, prometheus.url)
    assert {value.labels["queue"]: value.value for value in values} == expected


def test_nan_sample_is_an_error_not_zero(prometheus: PrometheusServer) -> None:
    async def scenario(adapter: PrometheusAdapter, now: datetime) -> Any:
        return await adapter.external_metric("default", "broken_ratio", Selector(), now)

    with pytest.raises(BadSample, match="NaN"):
        run(scenario, prometheus.url)


def test_oversized_body_is_refused(prometheus: PrometheusServer) -> None:
    async def scenario() -> None:
        async with PrometheusClient(prometheus.url, max_response_bytes=64) as client:
            await client.query("http_requests_total", datetime.now(UTC))

    with pytest.raises(ResponseTooLarge, match="exceeds 64 bytes"):
        asyncio.run(scenario())


def test_refused_query_reports_prometheus_error(prometheus: PrometheusServer) -> None:
    async def scenario() -> None:
        async with PrometheusClient(prometheus.url) as client:
            await client.query("sum(rate(", datetime.now(UTC))

    with pytest.raises(PrometheusError, match="bad_data"):
        asyncio.run(scenario())


def test_silent_server_times_out() -> None:
    # A listening socket that never accepts: the connection completes from the backlog,
    # the request is sent, and no answer ever comes.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        port = silent.getsockname()[1]

        async def scenario() -> None:
            async with PrometheusClient(f"http://127.0.0.1:{port}", timeout=0.3) as client:
                await client.query("up", datetime.now(UTC))

        with pytest.raises(PrometheusTimeout, match=r"within 0\.3s"):
            asyncio.run(scenario())


def test_provider_serves_metric_value_list_json(prometheus: PrometheusServer) -> None:
    from podscale.apiserver.metricsapis.providers import CustomMetricInfo as RouteInfo

    lister = StaticLister(["web-1", "web-2", "gone"])

    async def scenario() -> list[dict[str, Any]]:
        async with PrometheusClient(prometheus.url) as client:
            adapter = PrometheusAdapter(load_config(RULES), client)
            provider = PrometheusMetricsProvider(adapter, FixedClock(datetime.now(UTC)), lister)
            await provider.refresh()
            info = RouteInfo("pods", True, "http_requests_per_second")
            return await provider.get_metric_by_selector(
                "default", parse_selector("app=web"), info, Selector()
            )

    items = asyncio.run(scenario())
    assert lister.calls == [(PODS, "default", "app=web")]
    assert [item["describedObject"]["name"] for item in items] == ["web-1", "web-2"]
    assert items[0]["describedObject"]["kind"] == "Pod"
    assert items[0]["metric"] == {"name": "http_requests_per_second", "selector": None}
