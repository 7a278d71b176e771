"""``/metrics``: the Prometheus text of every registered exporter (the controllers')."""

from __future__ import annotations

from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock


def test_metrics_serves_every_exporter_in_order() -> None:
    clock = FakeClock()
    app = create_app(MemoryStore(clock), clock=clock)
    client = TestClient(app)
    empty = client.get("/metrics")
    assert (empty.status_code, empty.text) == (200, "")
    assert empty.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    app.state.podscale.metric_exporters.append(lambda: "# TYPE a counter\na 1\n")
    app.state.podscale.metric_exporters.append(lambda: "b 2\n")
    assert client.get("/metrics").text == "# TYPE a counter\na 1\nb 2\n"
    assert client.post("/metrics").status_code == 405
