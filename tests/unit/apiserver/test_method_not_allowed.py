"""405 answers name the methods the path does take in ``Allow`` and carry upstream's Status."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.metrics.push import PushMetricsProvider
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

STATUS_405 = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "the server does not allow this method on the requested resource",
    "reason": "MethodNotAllowed",
    "details": {},
    "code": 405,
}


@pytest.fixture
def api() -> TestClient:
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    push = PushMetricsProvider(clock)
    app = create_app(
        MemoryStore(clock),
        clock=clock,
        custom_metrics_provider=push,
        external_metrics_provider=push,
    )
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/api/v1/namespaces/default/pods", "GET, POST, DELETE"),
        ("POST", "/api/v1/pods", "GET"),
        ("POST", "/api/v1/namespaces/default/pods/p", "GET, PUT, PATCH, DELETE"),
        ("DELETE", "/apis/apps/v1/namespaces/default/deployments/d/scale", "GET, PUT, PATCH"),
        ("DELETE", "/apis/apps/v1/namespaces/default/deployments/d/status", "GET, PUT, PATCH"),
        ("GET", "/api/v1/namespaces/default/pods/p/binding", "POST"),
        ("POST", "/version", "GET"),
        ("DELETE", "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/q", "GET, PUT, POST"),
    ],
    ids=["collection", "all-namespaces", "object", "scale", "status", "binding", "version",
         "external-metrics"],
)  # fmt: skip
def test_405_carries_allow_and_a_status(
    api: TestClient, method: str, path: str, allow: str
) -> None:
    response = api.request(method, path)
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == allow
    assert response.json() == STATUS_405
