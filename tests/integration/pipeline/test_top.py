"""``kubectl top``-shaped answers from the simulated cluster: PodMetricsList and
NodeMetricsList through the API server's metrics.k8s.io, read over ASGI on the virtual
clock, reflect the load the scenario offers; pods without a load idle at their baseline."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from podscale.api.quantity import parse_quantity
from podscale.apiserver.http.app import create_app
from podscale.client.inprocess import InProcessApi
from podscale.runtime.clocks import VirtualClock
from podscale.scenario.run import ScenarioRun
from podscale.store.memory import MemoryStore

from .pipeline import START, deployment, on_plane, scenario, sleep_until

JSON = dict[str, Any]
GROUP = "/apis/metrics.k8s.io/v1beta1"


def web_scenario(rate: float | None) -> Any:
    workloads = []
    if rate is not None:
        workloads.append(
            {
                "target": {"kind": "Deployment", "name": "web"},
                "load": {"type": "constant", "rate": rate},
                "noise": {"stddev": 0},
                "containers": [
                    {
                        "name": "web",
                        "baseline": {"cpu": "5m", "memory": "20Mi"},
                        "perRequest": {"cpu": "10m"},
                    }
                ],
            }
        )
    web = deployment("web")
    web["spec"]["replicas"] = 2
    return scenario("top", [web], workloads)


def served(rate: float | None, path: str) -> JSON:
    """Run the scenario over an API server's own in-process API (as ``podscale up`` does)
    and GET ``path`` from that server two minutes in."""
    scn = web_scenario(rate)
    clock = VirtualClock(START)
    app = create_app(MemoryStore(clock), clock=clock)

    async def body(run: ScenarioRun) -> JSON:
        await sleep_until(run, timedelta(minutes=2))
        return await read(app, path)

    return on_plane(scn, body, clock=clock, api=InProcessApi.for_app(app))


async def read(app: Starlette, path: str) -> JSON:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://podscale") as client:
        response = await client.get(path)
    assert response.status_code == 200, response.text
    body: JSON = response.json()
    return body


def cpu_milli(item: JSON) -> int:
    return sum(parse_quantity(c["usage"]["cpu"]).milli_value() for c in item["containers"])


@pytest.mark.parametrize(
    ("rate", "per_pod_milli"),
    [(20.0, 105), (None, 1)],
    ids=["loaded-10-rps-per-pod", "idle-baseline"],
)
def test_top_pods_reflects_the_load(rate: float | None, per_pod_milli: int) -> None:
    listing = served(rate, f"{GROUP}/namespaces/default/pods")
    assert listing["kind"] == "PodMetricsList"
    items = listing["items"]
    assert len(items) == 2
    for item in items:
        assert item["metadata"]["labels"] == {
            "app": "web",
            "pod-template-hash": item["metadata"]["labels"]["pod-template-hash"],
        }
        assert item["window"] == "15s"
        assert abs(cpu_milli(item) - per_pod_milli) <= 1
        memory = parse_quantity(item["containers"][0]["usage"]["memory"]).value()
        assert memory > 0


def test_top_nodes_counts_the_pods_and_the_system() -> None:
    listing = served(20.0, f"{GROUP}/nodes")
    assert listing["kind"] == "NodeMetricsList"
    assert sorted(i["metadata"]["name"] for i in listing["items"]) == ["node-1", "node-2", "node-3"]
    total = sum(parse_quantity(i["usage"]["cpu"]).milli_value() for i in listing["items"])
    # Three nodes' system usage (50m each) plus two pods of 105m.
    assert abs(total - (3 * 50 + 2 * 105)) <= 3
