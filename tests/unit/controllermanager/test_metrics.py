"""``controllermanager.metrics``: which external reads stay in-process, how errors read, the
cluster's external metrics as a provider, and the client's user agent naming the process."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from podscale.api import Selector
from podscale.api.selectors import parse_selector
from podscale.apiserver import errors as server_errors
from podscale.apiserver.metricsapis.providers import ExternalMetricInfo
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.client.connection import Connection
from podscale.client.http import ApiError, HttpApi
from podscale.controllermanager.election import user_agent
from podscale.controllermanager.metrics import ClusterMetricsClient, RestExternalMetrics
from podscale.hpa.types import MetricsUnavailable, PodMetric

JSON = dict[str, Any]
STAMP = "2024-05-01T10:00:00Z"
KEDA_LABEL = "scaledobject.keda.sh/name"


class RecordingRest:
    """A ``MetricsClient`` that records each call and answers a fixed value."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    async def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        self.calls.append(("resource", (resource, namespace, selector, container)))
        return {}, datetime(2024, 1, 1, tzinfo=UTC)

    async def pods_metric(
        self, metric_name: str, namespace: str, selector: str, metric_selector: JSON | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        self.calls.append(("pods", (metric_name, namespace, selector, metric_selector)))
        return {}, datetime(2024, 1, 1, tzinfo=UTC)

    async def object_metric(
        self, metric_name: str, namespace: str, described: JSON, metric_selector: JSON | None
    ) -> tuple[int, datetime]:
        self.calls.append(("object", (metric_name, namespace, described, metric_selector)))
        return 7, datetime(2024, 1, 1, tzinfo=UTC)

    async def external_metric(
        self, metric_name: str, namespace: str, metric_selector: JSON | None
    ) -> tuple[list[int], datetime]:
        self.calls.append(("external", (metric_name, namespace, metric_selector)))
        return [1000], datetime(2024, 1, 1, tzinfo=UTC)


class FixedProvider:
    """An ``ExternalMetricsProvider`` answering ``items`` (or raising ``error``)."""

    def __init__(self, items: list[JSON], error: Exception | None = None) -> None:
        self.items = items
        self.error = error
        self.reads: list[tuple[str, str, str]] = []

    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]:
        return []

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[JSON]:
        self.reads.append((namespace, str(metric_selector), info.metric))
        if self.error is not None:
            raise self.error
        return self.items


def client_with(local: FixedProvider) -> tuple[ClusterMetricsClient, RecordingRest]:
    rest = RecordingRest()
    router = ExternalMetricsRouter(None)
    router.route(KEDA_LABEL, local)
    return ClusterMetricsClient(rest, router), rest


@pytest.mark.parametrize(
    ("selector", "local"),
    [
        ({"matchLabels": {KEDA_LABEL: "worker"}}, True),
        ({"matchExpressions": [{"key": KEDA_LABEL, "operator": "Exists"}]}, True),
        ({"matchLabels": {"queue": "orders"}}, False),
        (None, False),
    ],
    ids=["keda-label", "keda-label-expression", "other-label", "no-selector"],
)
def test_external_reads_with_a_routed_label_stay_in_process(
    selector: JSON | None, local: bool
) -> None:
    provider = FixedProvider([{"metricName": "s0-q", "value": "12", "timestamp": STAMP}])
    client, rest = client_with(provider)
    values, _ = asyncio.run(client.external_metric("s0-q", "default", selector))
    if local:
        assert values == [12000]
        assert rest.calls == []
        assert provider.reads[0][0] == "default"
    else:
        assert values == [1000]
        assert rest.calls == [("external", ("s0-q", "default", selector))]
        assert provider.reads == []


def test_the_other_metric_kinds_go_over_rest() -> None:
    client, rest = client_with(FixedProvider([]))
    asyncio.run(client.resource_metric("cpu", "default", "app=web", None))
    asyncio.run(client.pods_metric("rps", "default", "app=web", None))
    asyncio.run(client.object_metric("hits", "default", {"kind": "Service"}, None))
    assert [call[0] for call in rest.calls] == ["resource", "pods", "object"]


@pytest.mark.parametrize(
    ("provider", "message"),
    [
        (
            FixedProvider([], server_errors.ApiError({"message": 'no metric "s0-q"'})),
            'unable to fetch metrics from external metrics API: no metric "s0-q"',
        ),
        (FixedProvider([]), "no metrics returned from external metrics API"),
    ],
    ids=["provider-error", "no-series"],
)
def test_an_in_process_failure_reads_as_the_rest_client_words_it(
    provider: FixedProvider, message: str
) -> None:
    client, _ = client_with(provider)
    with pytest.raises(MetricsUnavailable, match=message):
        asyncio.run(client.external_metric("s0-q", "ns", {"matchLabels": {KEDA_LABEL: "w"}}))


class ScriptedRequester:
    def __init__(self, answer: JSON | Exception) -> None:
        self.answer = answer
        self.requests: list[tuple[str, str, dict[str, str] | None]] = []

    async def request(
        self, method: str, path: str, *, params: dict[str, str] | None = None
    ) -> JSON:
        self.requests.append((method, path, params))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def read(requester: ScriptedRequester, selector: Selector) -> list[JSON]:
    provider = RestExternalMetrics(requester)
    return asyncio.run(provider.get_external_metric("ns", selector, ExternalMetricInfo("q")))


def test_the_cluster_external_metric_is_read_at_its_url() -> None:
    item = {"metricName": "q", "metricLabels": {}, "value": "3", "timestamp": STAMP}
    requester = ScriptedRequester({"kind": "ExternalMetricValueList", "items": [item]})
    assert read(requester, parse_selector("queue=orders")) == [item]
    assert read(requester, parse_selector("")) == [item]
    path = "/apis/external.metrics.k8s.io/v1beta1/namespaces/ns/q"
    assert requester.requests == [
        ("GET", path, {"labelSelector": "queue=orders"}),
        ("GET", path, None),
    ]


@pytest.mark.parametrize(
    ("error", "code", "message"),
    [
        (
            ApiError(404, {"kind": "Status", "code": 404, "message": 'metric "q" not found'}),
            404,
            'metric "q" not found',
        ),
        (
            ApiError(404, {}),
            404,
            "the server could not find the requested resource (get q.external.metrics.k8s.io)",
        ),
        (httpx.ConnectError("connection refused"), 503, "connection refused"),
    ],
    ids=["status", "bare-404", "transport"],
)
def test_a_failed_cluster_read_is_a_server_api_error(
    error: Exception, code: int, message: str
) -> None:
    with pytest.raises(server_errors.ApiError) as raised:
        read(ScriptedRequester(error), parse_selector(""))
    assert raised.value.code == code
    assert raised.value.status["message"] == message


def test_the_http_client_sends_the_controller_manager_user_agent() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["User-Agent"])
        return httpx.Response(200, json={"kind": "Namespace"})

    async def go() -> None:
        agent = user_agent("host_1234")
        transport = httpx.MockTransport(handler)
        async with HttpApi(Connection("http://x"), transport=transport, user_agent=agent) as api:
            await api.request("GET", "/api/v1/namespaces/default")
        async with HttpApi(Connection("http://x"), transport=transport) as api:
            await api.request("GET", "/api/v1/namespaces/default")

    asyncio.run(go())
    assert seen[0].startswith("podscale-controller-manager/")
    assert seen[0].endswith(" (host_1234)")
    assert seen[1] == "podscale"
