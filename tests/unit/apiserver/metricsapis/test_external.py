"""external.metrics.k8s.io/v1beta1 over HTTP: the one URL shape, selectors, Statuses, discovery.

The URL is the one upstream's ``external_metrics/client.go`` requests; discovery entries are
custom-metrics-apiserver's external lister's (one namespaced resource per metric).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.api import Selector
from podscale.apiserver.http.app import create_app
from podscale.apiserver.metricsapis.providers import ExternalMetricInfo, external_metric_not_found
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
BASE = "/apis/external.metrics.k8s.io/v1beta1"
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


class RecordingProvider:
    def __init__(self, metrics: Sequence[str] = ()) -> None:
        self.metrics = list(metrics)
        self.calls: list[tuple[str, str, str]] = []

    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]:
        return [ExternalMetricInfo(m) for m in self.metrics]

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[JSON]:
        self.calls.append((namespace, info.metric, str(metric_selector)))
        if info.metric == "missing":
            raise external_metric_not_found(info.metric)
        return [{"metricName": info.metric, "metricLabels": {}, "value": "1"}]


def _client(provider: RecordingProvider | None) -> TestClient:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    app = create_app(MemoryStore(clock), clock=clock, external_metrics_provider=provider)
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize(
    ("query", "selector"),
    [
        ("", ""),
        ("?labelSelector=queue%3Djobs", "queue=jobs"),
        ("?labelSelector=queue+in+%28a%2Cb%29%2Cregion%21%3Deu", "queue in (a,b),region!=eu"),
    ],
    ids=["none", "equality", "set-based"],
)
def test_get_hands_namespace_metric_and_selector_to_the_provider(query: str, selector: str) -> None:
    provider = RecordingProvider()
    response = _client(provider).get(BASE + "/namespaces/prod/queue_depth" + query)
    assert response.status_code == 200
    assert provider.calls == [("prod", "queue_depth", selector)]
    body = response.json()
    assert (body["kind"], body["apiVersion"], body["metadata"]) == (
        "ExternalMetricValueList",
        "external.metrics.k8s.io/v1beta1",
        {},
    )
    assert body["items"][0]["metricName"] == "queue_depth"


@pytest.mark.parametrize(
    ("path", "code", "message"),
    [
        (
            "/namespaces/prod/missing",
            404,
            "the server could not find the metric missing for namespaces",
        ),
        (
            "/namespaces/prod/queue?labelSelector=a%3D%28",
            400,
            "unable to parse requirement: found '(', expected: identifier",
        ),
        ("/queue", 404, "the server could not find the requested resource"),
        ("/namespaces/prod", 404, "the server could not find the requested resource"),
        ("/namespaces/prod/queue/extra", 404, "the server could not find the requested resource"),
        ("/nodes/prod/queue", 404, "the server could not find the requested resource"),
    ],
    ids=["unknown", "bad-selector", "no-namespace", "no-metric", "too-long", "not-namespaces"],
)
def test_failures_are_upstream_statuses(path: str, code: int, message: str) -> None:
    response = _client(RecordingProvider()).get(BASE + path)
    assert response.status_code == code
    assert response.json()["message"] == message


@pytest.mark.parametrize("method", ["PUT", "POST", "DELETE"], ids=str.lower)
def test_read_only_provider_refuses_writes(method: str) -> None:
    response = _client(RecordingProvider()).request(
        method, BASE + "/namespaces/prod/queue", json={"items": []}
    )
    assert response.status_code == 405


def test_discovery_lists_each_metric_once() -> None:
    client = _client(RecordingProvider(["queue", "lag", "queue"]))
    assert client.get(BASE).json()["resources"] == [
        {
            "name": "lag",
            "singularName": "",
            "namespaced": True,
            "kind": "ExternalMetricValueList",
            "verbs": ["get"],
        },
        {
            "name": "queue",
            "singularName": "",
            "namespaced": True,
            "kind": "ExternalMetricValueList",
            "verbs": ["get"],
        },
    ]
    aggregated = client.get("/apis", headers={"accept": AGGREGATED}).json()
    (item,) = [i for i in aggregated["items"] if i["metadata"]["name"] == "external.metrics.k8s.io"]
    resources = item["versions"][0]["resources"]
    assert [(r["resource"], r["scope"], r["verbs"]) for r in resources] == [
        ("lag", "Namespaced", ["get"]),
        ("queue", "Namespaced", ["get"]),
    ]


def test_not_served_without_a_provider() -> None:
    client = _client(None)
    assert client.get(BASE + "/namespaces/prod/queue").status_code == 404
    assert client.get(BASE).status_code == 404
    assert "external.metrics.k8s.io" not in [
        g["name"] for g in client.get("/apis").json()["groups"]
    ]


def test_both_groups_alongside_metrics_k8s_io() -> None:
    class Resource:
        def pod_metrics(self, namespace: str | None) -> list[JSON]:
            return []

        def node_metrics(self) -> list[JSON]:
            return []

    clock = FakeClock()
    app = create_app(
        MemoryStore(clock),
        clock=clock,
        metrics_provider=Resource(),
        external_metrics_provider=RecordingProvider(),
    )
    groups = [g["name"] for g in TestClient(app).get("/apis").json()["groups"]]
    assert groups[-2:] == ["metrics.k8s.io", "external.metrics.k8s.io"]
