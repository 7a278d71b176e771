"""The adapter and its API-server provider over a scripted Prometheus."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import httpx
import pytest

from podscale.api import Selector, parse_selector
from podscale.apiserver.errors import ApiError
from podscale.apiserver.metricsapis.providers import CustomMetricInfo as RouteInfo
from podscale.apiserver.metricsapis.providers import ExternalMetricInfo as RouteExternalInfo
from podscale.metrics.prometheus import (
    ApiObjectLister,
    GroupResource,
    MetricNotFound,
    PrometheusAdapter,
    PrometheusClient,
    PrometheusMetricsProvider,
    load_config,
)

T = TypeVar("T")
NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
PODS = GroupResource("", "pods")
CONFIG = load_config(
    """
rules:
- seriesQuery: 'http_requests_total'
  resources:
    overrides: {namespace: {resource: namespace}, pod: {resource: pod}}
  name: {matches: "^(.*)_total$", as: "${1}_per_second"}
  metricsQuery: 'sum(rate(<<.Series>>{<<.LabelMatchers>>}[1m])) by (<<.GroupBy>>)'
externalRules:
- seriesQuery: 'queue_depth'
  resources: {namespaced: false}
  metricsQuery: 'sum(<<.Series>>{<<.LabelMatchers>>}) by (queue)'
"""
)
SERIES = {
    "http_requests_total": [{"__name__": "http_requests_total", "namespace": "d", "pod": "a"}],
    "queue_depth": [{"__name__": "queue_depth", "queue": "jobs"}],
}


class FakePrometheus:
    """Answers series from ``SERIES`` and queries from ``answers`` (query -> result list)."""

    def __init__(self, answers: dict[str, list[dict[str, Any]]]) -> None:
        self.answers = answers
        self.queries: list[str] = []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/series":
            match = request.url.params["match[]"]
            return httpx.Response(200, json={"status": "success", "data": SERIES.get(match, [])})
        query = request.url.params["query"]
        self.queries.append(query)
        if query not in self.answers:
            body = {"status": "error", "errorType": "execution", "error": "unexpected query"}
            return httpx.Response(422, json=body)
        data = {"resultType": "vector", "result": self.answers[query]}
        return httpx.Response(200, json={"status": "success", "data": data})


def _sample(value: str, **labels: str) -> dict[str, Any]:
    return {"metric": labels, "value": [NOW.timestamp(), value]}


class Clock:
    def now(self) -> datetime:
        return NOW


class Lister:
    def __init__(self, names: list[str]) -> None:
        self.names = names

    async def list_object_names(
        self, resource: GroupResource, namespace: str | None, selector: Selector
    ) -> list[str]:
        return self.names


def _with(
    prometheus: FakePrometheus,
    call: Callable[[PrometheusMetricsProvider], Awaitable[T]],
    lister: Lister | None = None,
) -> T:
    async def main() -> T:
        transport = httpx.MockTransport(prometheus)
        async with PrometheusClient("http://prom", transport=transport) as client:
            provider = PrometheusMetricsProvider(PrometheusAdapter(CONFIG, client), Clock(), lister)
            await provider.refresh()
            return await call(provider)

    return asyncio.run(main())


PODS_QUERY_AB = 'sum(rate(http_requests_total{namespace="d",pod=~"a|b"}[1m])) by (pod)'
PODS_QUERY_A = 'sum(rate(http_requests_total{namespace="d",pod="a"}[1m])) by (pod)'
INFO = RouteInfo("pods", True, "http_requests_per_second")


def test_listings_come_from_discovery() -> None:
    async def call(provider: PrometheusMetricsProvider) -> Any:
        return provider.list_custom_metrics(), provider.list_external_metrics()

    custom, external = _with(FakePrometheus({}), call)
    assert custom == [
        RouteInfo("namespaces", False, "http_requests_per_second"),
        RouteInfo("pods", True, "http_requests_per_second"),
    ]
    assert external == [RouteExternalInfo("queue_depth")]


def test_selector_read_renders_metric_values_for_pods_with_data() -> None:
    prometheus = FakePrometheus({PODS_QUERY_AB: [_sample("0.5", pod="a")]})
    items = _with(
        prometheus,
        lambda p: p.get_metric_by_selector("d", parse_selector("app=web"), INFO, Selector()),
        Lister(["a", "b"]),
    )
    assert items == [
        {
            "describedObject": {"kind": "Pod", "namespace": "d", "name": "a", "apiVersion": "v1"},
            "metric": {"name": "http_requests_per_second", "selector": None},
            "timestamp": "2026-05-01T12:00:00Z",
            "value": "500m",
        }
    ]
    assert prometheus.queries == [PODS_QUERY_AB]


def test_selector_read_with_no_matching_pods_is_an_empty_list() -> None:
    prometheus = FakePrometheus({})
    items = _with(
        prometheus,
        lambda p: p.get_metric_by_selector("d", Selector(), INFO, Selector()),
        Lister([]),
    )
    assert (items, prometheus.queries) == ([], [])


def test_by_name_read() -> None:
    prometheus = FakePrometheus({PODS_QUERY_A: [_sample("12", pod="a")]})
    item = _with(prometheus, lambda p: p.get_metric_by_name("d", "a", INFO, Selector()))
    assert (item["describedObject"]["name"], item["value"]) == ("a", "12")


@pytest.mark.parametrize(
    ("call", "code", "message"),
    [
        (
            lambda p: p.get_metric_by_name("d", "a", RouteInfo("pods", True, "nope"), Selector()),
            404,
            "the server could not find the metric nope for pods",
        ),
        (
            lambda p: p.get_metric_by_name("d", "a", INFO, Selector()),
            404,
            "the server could not find the metric http_requests_per_second for pods a",
        ),
        (
            lambda p: p.get_external_metric("d", Selector(), RouteExternalInfo("nope")),
            404,
            "the server could not find the metric nope for provided labels",
        ),
        (
            lambda p: p.get_metric_by_name("d", "a", INFO, parse_selector("x>1")),
            500,
            "Internal error occurred: unable to fetch metrics",
        ),
        (
            lambda p: p.get_metric_by_selector("d", Selector(), INFO, Selector()),
            500,
            "Internal error occurred: unable to list matching resources",
        ),
        (
            lambda p: p.get_metric_by_selector(
                "d", Selector(), RouteInfo("pods", True, "nope"), Selector()
            ),
            404,
            "the server could not find the metric nope for pods",
        ),
    ],
    ids=[
        "unknown-metric",
        "no-value-for-object",
        "unknown-external",
        "bad-selector",
        "no-lister",
        "unknown-metric-by-selector",
    ],
)
def test_errors_are_adapter_statuses(
    call: Callable[[PrometheusMetricsProvider], Awaitable[Any]], code: int, message: str
) -> None:
    prometheus = FakePrometheus({PODS_QUERY_A: []})
    with pytest.raises(ApiError) as caught:
        _with(prometheus, call)
    assert (caught.value.code, caught.value.status["message"]) == (code, message)


def test_prometheus_failure_keeps_its_cause() -> None:
    with pytest.raises(ApiError) as caught:
        _with(FakePrometheus({}), lambda p: p.get_metric_by_name("d", "a", INFO, Selector()))
    causes = caught.value.status["details"]["causes"]
    assert "execution" in causes[0]["message"]
    assert "unexpected query" in causes[0]["message"]


def test_external_read_keeps_series_labels() -> None:
    query = 'sum(queue_depth{queue="jobs"}) by (queue)'
    prometheus = FakePrometheus({query: [_sample("42", queue="jobs")]})
    items = _with(
        prometheus,
        lambda p: p.get_external_metric(
            "d", parse_selector("queue=jobs"), RouteExternalInfo("queue_depth")
        ),
    )
    assert items == [
        {
            "metricName": "queue_depth",
            "metricLabels": {"queue": "jobs"},
            "timestamp": "2026-05-01T12:00:00Z",
            "value": "42",
        }
    ]


def test_adapter_reports_unknown_metric_before_querying() -> None:
    prometheus = FakePrometheus({})

    async def call(provider: PrometheusMetricsProvider) -> Any:
        return await provider.adapter.object_metrics(PODS, "d", ["a"], "nope", Selector(), NOW)

    with pytest.raises(MetricNotFound, match="could not find the metric nope for pods"):
        _with(prometheus, call)
    assert prometheus.queries == []


def test_relist_until_refreshes_then_stops() -> None:
    async def call(provider: PrometheusMetricsProvider) -> Any:
        provider.adapter.registry = type(provider.adapter.registry)()  # forget the first refresh
        stop = asyncio.Event()
        stop.set()
        await provider.relist_until(stop, interval=3600)
        return provider.list_external_metrics(), provider.last_relist_error

    assert _with(FakePrometheus({}), call) == ([RouteExternalInfo("queue_depth")], None)


def test_failed_relist_keeps_the_previous_listing() -> None:
    async def broken(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, text="unavailable")

    async def call(provider: PrometheusMetricsProvider) -> Any:
        provider.adapter.client = PrometheusClient(
            "http://down", transport=httpx.MockTransport(broken)
        )
        stop = asyncio.Event()
        stop.set()
        try:
            await provider.relist_until(stop, interval=3600)
        finally:
            await provider.adapter.client.aclose()
        return provider.list_external_metrics(), str(provider.last_relist_error)

    listing, error = _with(FakePrometheus({}), call)
    assert listing == [RouteExternalInfo("queue_depth")]
    assert "unable to fetch metrics for query 'http_requests_total'" in error


class FakeApi:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None, str | None]] = []

    async def list(
        self,
        kind: Any,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> dict[str, Any]:
        self.calls.append((kind.kind, namespace, label_selector))
        return {"items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]}

    def watch(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


@pytest.mark.parametrize(
    ("resource", "selector", "call"),
    [
        (PODS, parse_selector("app=web"), ("Pod", "d", "app=web")),
        (GroupResource("apps", "deployments"), Selector(), ("Deployment", "d", None)),
    ],
    ids=["pods-by-selector", "deployments-everything"],
)
def test_api_object_lister(
    resource: GroupResource, selector: Selector, call: tuple[str, str, str | None]
) -> None:
    api = FakeApi()
    names = asyncio.run(ApiObjectLister(api).list_object_names(resource, "d", selector))
    assert (names, api.calls) == (["a", "b"], [call])


def test_api_object_lister_refuses_unserved_resources() -> None:
    lister = ApiObjectLister(FakeApi())
    with pytest.raises(LookupError, match="ingresses"):
        asyncio.run(
            lister.list_object_names(
                GroupResource("networking.k8s.io", "ingresses"), "d", Selector()
            )
        )
