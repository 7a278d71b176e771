"""ExternalMetricsRouter: reads go by selector label key, the rest to the fallback;
listing is the union; pushing works exactly when the fallback accepts pushes."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.api import Selector, parse_selector
from podscale.apiserver.errors import ApiError
from podscale.apiserver.http.app import create_app
from podscale.apiserver.metricsapis.providers import (
    ExternalMetricInfo,
    ExternalMetricsWriter,
)
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter, serving
from podscale.apiserver.metricsapis.samples import ExternalSample
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
BASE = "/apis/external.metrics.k8s.io/v1beta1"
KEY = "scaledobject.keda.sh/name"


class Named:
    """A read-only provider that answers with its own name."""

    def __init__(self, name: str, metrics: Sequence[str] = ()) -> None:
        self.name = name
        self.metrics = list(metrics)

    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]:
        return [ExternalMetricInfo(m) for m in self.metrics]

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[JSON]:
        return [{"metricName": info.metric, "metricLabels": {"by": self.name}, "value": "1"}]


class Writable(Named):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.written: list[tuple[str, str, bool]] = []

    def write_external_samples(
        self, namespace: str, metric: str, samples: Sequence[ExternalSample], *, replace: bool
    ) -> None:
        self.written.append((namespace, metric, replace))


def _read(router: ExternalMetricsRouter, selector: str) -> str:
    items = asyncio.run(
        router.get_external_metric("ns", parse_selector(selector), ExternalMetricInfo("m"))
    )
    return str(items[0]["metricLabels"]["by"])


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (f"{KEY}=so", "keda"),
        (f"queue=jobs,{KEY}=so", "keda"),
        (f"{KEY}!=so", "keda"),
        ("queue=jobs", "push"),
        ("", "push"),
    ],
    ids=["label-routes", "among-other-labels", "any-operator-on-the-key", "other-label", "none"],
)
def test_reads_route_by_label_key(selector: str, expected: str) -> None:
    router = ExternalMetricsRouter(Named("push"))
    router.route(KEY, Named("keda"))
    assert _read(router, selector) == expected


def test_no_fallback_is_the_not_found_of_today() -> None:
    router = ExternalMetricsRouter(None)
    router.route(KEY, Named("keda"))
    with pytest.raises(ApiError) as err:
        _read(router, "queue=jobs")
    assert err.value.code == 404
    assert err.value.status["message"] == "the server could not find the metric m for namespaces"


def test_listing_is_the_union_without_duplicates() -> None:
    router = ExternalMetricsRouter(Named("push", ["a", "b"]))
    router.route(KEY, Named("keda", ["externalmetrics", "a"]))
    assert [i.metric for i in router.list_external_metrics()] == ["a", "b", "externalmetrics"]


def test_writer_exactly_when_the_fallback_is_one() -> None:
    push = Writable("push")
    writable = ExternalMetricsRouter(push)
    assert isinstance(writable, ExternalMetricsWriter)
    assert not isinstance(ExternalMetricsRouter(Named("adapter")), ExternalMetricsWriter)
    assert not isinstance(ExternalMetricsRouter(None), ExternalMetricsWriter)


def test_serving_hides_an_empty_router() -> None:
    empty = ExternalMetricsRouter(None)
    assert serving(empty) is None
    assert serving(None) is None
    empty.route(KEY, Named("keda"))
    assert serving(empty) is empty
    fallback_only = ExternalMetricsRouter(Named("push"))
    assert serving(fallback_only) is fallback_only


def _client(router: ExternalMetricsRouter) -> TestClient:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    app = create_app(MemoryStore(clock), clock=clock, external_metrics_provider=router)
    return TestClient(app, raise_server_exceptions=False)


def test_push_through_the_router_reaches_the_fallback() -> None:
    push = Writable("push")
    router = ExternalMetricsRouter(push)
    body = {"kind": "ExternalMetricValueList", "items": [{"value": "3"}]}
    response = _client(router).put(BASE + "/namespaces/ns/queue", json=body)
    assert response.status_code == 200
    assert push.written == [("ns", "queue", True)]


def test_push_to_a_read_only_fallback_stays_405() -> None:
    router = ExternalMetricsRouter(Named("adapter"))
    response = _client(router).put(BASE + "/namespaces/ns/queue", json={"items": []})
    assert response.status_code == 405
    assert response.headers["allow"] == "GET"


def test_an_empty_router_is_not_served_nor_discovered() -> None:
    client = _client(ExternalMetricsRouter(None))
    assert client.get(BASE + "/namespaces/ns/queue").status_code == 404
    groups = [g["name"] for g in client.get("/apis").json()["groups"]]
    assert "external.metrics.k8s.io" not in groups


def test_discovery_lists_routed_and_fallback_metrics() -> None:
    router = ExternalMetricsRouter(Named("push", ["queue"]))
    router.route(KEY, Named("keda", ["externalmetrics"]))
    resources = _client(router).get(BASE).json()["resources"]
    assert [r["name"] for r in resources] == ["externalmetrics", "queue"]
