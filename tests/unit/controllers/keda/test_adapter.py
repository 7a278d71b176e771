"""KEDA's metrics server (KedaMetricsAdapter) behind the plane's router: read over HTTP
through create_app and in-process by the HPA's metrics client; errors as KEDA answers
them, never a 500 for bad input."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.controllers.hpa.metrics_inprocess import InProcessMetricsClient
from podscale.controllers.keda.adapter import KedaMetricsAdapter, MetricUnavailable
from podscale.controllers.keda.generated import SCALED_OBJECT_LABEL
from podscale.hpa.types import MetricsUnavailable
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

NOW = datetime(2026, 1, 1, tzinfo=UTC)
BASE = "/apis/external.metrics.k8s.io/v1beta1"
SEL = "labelSelector=scaledobject.keda.sh%2Fname%3Dso"


class Source:
    """The keda controller's readings: (namespace, scaled object, metric) -> value."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str, str], float] = {
            ("ns", "so", "s0-x"): 2.5,
            ("ns", "so", "s1-y"): 7.0,
            ("ns", "so", "s2-nan"): float("nan"),
        }

    async def metric_value(self, namespace: str, scaled_object: str, metric_name: str) -> float:
        if metric_name == "s9-failing":
            raise MetricUnavailable("metric:s9-failing encountered error")
        if metric_name == "s9-bug":
            raise RuntimeError("boom")
        return self.values[(namespace, scaled_object, metric_name)]  # KeyError: a LookupError


def _app() -> tuple[TestClient, ExternalMetricsRouter]:
    clock = FakeClock(NOW)
    router = ExternalMetricsRouter(None)
    router.route(SCALED_OBJECT_LABEL, KedaMetricsAdapter(Source(), clock))
    app = create_app(MemoryStore(clock), clock=clock, external_metrics_provider=router)
    return TestClient(app, raise_server_exceptions=False), router


def test_read_over_http() -> None:
    client, _ = _app()
    response = client.get(f"{BASE}/namespaces/ns/s0-x?{SEL}")
    assert response.status_code == 200
    assert response.json()["items"] == [
        {
            "metricName": "s0-x",
            "metricLabels": None,
            "timestamp": "2026-01-01T00:00:00Z",
            "value": "2500m",
        }
    ]


@pytest.mark.parametrize(
    ("path", "query", "code", "reason", "message"),
    [
        (
            "s0-x",
            "labelSelector=scaledobject.keda.sh%2Fname%3Dother",
            404,
            "NotFound",
            "no matching metrics found for s0-x",
        ),
        ("s5-unknown", SEL, 404, "NotFound", "no matching metrics found for s5-unknown"),
        ("s9-failing", SEL, 500, None, "metric:s9-failing encountered error"),
        ("s9-bug", SEL, 500, None, "metric:s9-bug encountered error"),
        ("s2-nan", SEL, 500, None, "metric:s2-nan encountered error"),
        ("s0-x", "labelSelector=scaledobject.keda.sh%2Fname%21%3Dso", 400, "BadRequest", None),
        (
            "s0-x",
            "labelSelector=scaledobject.keda.sh%2Fname+in+%28a%2Cb%29",
            400,
            "BadRequest",
            None,
        ),
        ("s0-x", "labelSelector=scaledobject.keda.sh%2Fname", 400, "BadRequest", None),
        (
            "s0-x",
            "labelSelector=scaledobject.keda.sh%2Fname%3D",
            400,
            "BadRequest",
            "scaledObject name is not specified",
        ),
    ],
    ids=[
        "unknown-scaled-object-not-found",
        "unknown-metric-not-found",
        "scaler-error-is-keda-500",
        "source-bug-is-a-500-not-a-crash",
        "non-finite-value-is-a-500",
        "not-equals-selector-is-bad-request",
        "set-selector-is-bad-request",
        "exists-selector-is-bad-request",
        "empty-name-not-specified",
    ],
)
def test_errors_over_http(
    path: str, query: str, code: int, reason: str | None, message: str | None
) -> None:
    client, _ = _app()
    response = client.get(f"{BASE}/namespaces/ns/{path}?{query}")
    assert response.status_code == code
    body = response.json()
    assert body["kind"] == "Status"
    assert body.get("reason") == reason
    if message is not None:
        assert body["message"] == message


def test_listing_is_keda_placeholder() -> None:
    client, _ = _app()
    assert [r["name"] for r in client.get(BASE).json()["resources"]] == ["externalmetrics"]


def test_read_in_process_by_the_hpa_metrics_client() -> None:
    clock = FakeClock(NOW)
    router = ExternalMetricsRouter(None)
    router.route(SCALED_OBJECT_LABEL, KedaMetricsAdapter(Source(), clock))
    app = create_app(MemoryStore(clock), clock=clock, external_metrics_provider=router)
    client = InProcessMetricsClient(app.state.podscale)
    selector = {"matchLabels": {SCALED_OBJECT_LABEL: "so"}}
    values, stamp = asyncio.run(client.external_metric("s1-y", "ns", selector))
    assert (values, stamp) == ([7000], NOW)
    with pytest.raises(MetricsUnavailable, match="no matching metrics found for s5-z"):
        asyncio.run(client.external_metric("s5-z", "ns", selector))
