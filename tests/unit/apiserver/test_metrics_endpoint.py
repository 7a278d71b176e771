"""``/metrics``: the Prometheus text of the server's own registry (the controllers')."""

from __future__ import annotations

from prometheus_client import Counter, Gauge
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock


def test_metrics_serves_the_collectors_of_the_servers_registry() -> None:
    clock = FakeClock()
    app = create_app(MemoryStore(clock), clock=clock)
    client = TestClient(app)
    empty = client.get("/metrics")
    assert (empty.status_code, empty.text) == (200, "")
    assert empty.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    registry = app.state.podscale.metrics_registry
    Gauge("b", "B.", registry=registry).set(2)
    Counter("a", "A.", registry=registry).inc()
    assert client.get("/metrics").text == (
        "# HELP a_total A.\n# TYPE a_total counter\na_total 1.0\n"
        "# HELP b B.\n# TYPE b gauge\nb 2.0\n"
    )
    assert client.post("/metrics").status_code == 405


def test_two_servers_in_one_process_have_their_own_registries() -> None:
    clock = FakeClock()
    first = create_app(MemoryStore(clock), clock=clock)
    second = create_app(MemoryStore(clock), clock=clock)
    Counter("a", "A.", registry=first.state.podscale.metrics_registry).inc()
    Counter("a", "A.", registry=second.state.podscale.metrics_registry)
    assert "a_total 1.0" in TestClient(first).get("/metrics").text
    assert "a_total 0.0" in TestClient(second).get("/metrics").text
