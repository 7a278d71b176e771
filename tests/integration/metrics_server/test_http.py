"""metrics.k8s.io/v1beta1 served by the metrics server through the API server.

``create_app(..., metrics_provider=server)`` over a MemoryStore on a FakeClock; pods and
nodes are created through the HTTP API, the fake kubelets report them, two scrapes run, and
the bodies of the endpoints ``kubectl top`` and the HPA read are checked as whole documents
(kubectl-wire.md, ``top pods``). The official ``kubernetes`` client reads the same over real
HTTP (uvicorn on a thread).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest
from kubernetes import client as k8s
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import start_in_thread
from podscale.metrics.object_labels import StoreObjectLabels
from podscale.metrics.server import FakeKubeletStats, MetricsServer
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
START = datetime(2026, 4, 1, 8, 0, tzinfo=UTC)
MI = 1024**2
GROUP = "/apis/metrics.k8s.io/v1beta1"


@dataclass
class Cluster:
    clock: FakeClock
    kubelets: FakeKubeletStats
    server: MetricsServer
    http: TestClient

    def scrape(self) -> None:
        asyncio.run(self.server.scrape())


def pod(name: str, labels: dict[str, str], namespace: str = "default") -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": {"containers": [{"name": "web", "image": "nginx"}]},
    }


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    clock = FakeClock(START)
    store = MemoryStore(clock)
    kubelets = FakeKubeletStats(clock)
    server = MetricsServer(kubelets, clock, objects=StoreObjectLabels(store))
    app = create_app(store, clock=clock, metrics_provider=server)
    with TestClient(app) as http:
        for name, labels in (("web-1", {"app": "web"}), ("web-2", {"app": "web"}), ("db-0", {})):
            assert http.post("/api/v1/namespaces/default/pods", json=pod(name, labels)).is_success
        other = pod("job-0", {"app": "job"}, "batch")
        assert http.post("/api/v1/namespaces", json={"metadata": {"name": "batch"}}).is_success
        assert http.post("/api/v1/namespaces/batch/pods", json=other).is_success
        node = {"metadata": {"name": "node-a", "labels": {"zone": "a"}}}
        assert http.post("/api/v1/nodes", json=node).is_success
        long_ago = START - timedelta(hours=1)
        kubelets.add_node("node-a", started=long_ago, cpu_millicores=200, memory_bytes=512 * MI)
        kubelets.add_pod(
            "node-a", "default", "web-1", {"web": (250, 64 * MI), "side": (5, MI)}, started=long_ago
        )
        kubelets.add_pod("node-a", "default", "web-2", {"web": (1500, 2048 * MI)}, started=long_ago)
        kubelets.add_pod("node-a", "default", "db-0", {"db": (20, 300 * MI)}, started=long_ago)
        kubelets.add_pod("node-a", "batch", "job-0", {"job": (100, 128 * MI)}, started=long_ago)
        kubelets.add_pod("node-a", "default", "ghost", {"web": (1, MI)}, started=long_ago)
        yield Cluster(clock, kubelets, server, http)


def scraped_twice(cluster: Cluster) -> None:
    cluster.scrape()
    cluster.clock.advance(15)
    cluster.scrape()
    cluster.clock.advance(2)


def item(name: str, containers: list[JSON], labels: dict[str, str] | None = None) -> JSON:
    metadata: JSON = {
        "name": name,
        "namespace": "default",
        "creationTimestamp": "2026-04-01T08:00:17Z",
    }
    if labels:
        metadata["labels"] = labels
    return {
        "metadata": metadata,
        "timestamp": "2026-04-01T08:00:15Z",
        "window": "15s",
        "containers": containers,
    }


WEB_1 = item(
    "web-1",
    [
        {"name": "web", "usage": {"cpu": "250m", "memory": "64Mi"}},
        {"name": "side", "usage": {"cpu": "5m", "memory": "1Mi"}},
    ],
    {"app": "web"},
)
WEB_2 = item("web-2", [{"name": "web", "usage": {"cpu": "1500m", "memory": "2Gi"}}], {"app": "web"})
DB_0 = item("db-0", [{"name": "db", "usage": {"cpu": "20m", "memory": "300Mi"}}])


def test_namespace_pods_list_is_the_metrics_server_document(cluster: Cluster) -> None:
    scraped_twice(cluster)
    response = cluster.http.get(f"{GROUP}/namespaces/default/pods")
    assert response.status_code == 200
    assert response.json() == {
        "kind": "PodMetricsList",
        "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {},
        "items": [DB_0, WEB_1, WEB_2],
    }


def test_before_the_second_scrape_the_list_is_empty(cluster: Cluster) -> None:
    cluster.scrape()
    cluster.clock.advance(1)
    assert cluster.http.get(f"{GROUP}/namespaces/default/pods").json()["items"] == []
    assert cluster.http.get(f"{GROUP}/namespaces/default/pods/web-1").status_code == 404


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (f"{GROUP}/namespaces/default/pods?labelSelector=app%3Dweb", ["web-1", "web-2"]),
        (f"{GROUP}/pods", ["job-0", "db-0", "web-1", "web-2"]),
        (f"{GROUP}/namespaces/batch/pods", ["job-0"]),
        (f"{GROUP}/namespaces/empty/pods", []),
    ],
    ids=["label-selector", "all-namespaces", "other-namespace", "no-such-namespace"],
)
def test_pod_lists(cluster: Cluster, path: str, expected: list[str]) -> None:
    scraped_twice(cluster)
    items = cluster.http.get(path).json()["items"]
    assert [i["metadata"]["name"] for i in items] == expected


def test_one_pod(cluster: Cluster) -> None:
    scraped_twice(cluster)
    response = cluster.http.get(f"{GROUP}/namespaces/default/pods/web-1")
    assert response.status_code == 200
    assert response.json() == {
        "kind": "PodMetrics",
        "apiVersion": "metrics.k8s.io/v1beta1",
        **WEB_1,
    }


def test_a_pod_only_the_kubelet_knows_is_not_found(cluster: Cluster) -> None:
    scraped_twice(cluster)
    response = cluster.http.get(f"{GROUP}/namespaces/default/pods/ghost")
    assert response.status_code == 404


def test_nodes(cluster: Cluster) -> None:
    scraped_twice(cluster)
    assert cluster.http.get(f"{GROUP}/nodes").json() == {
        "kind": "NodeMetricsList",
        "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {},
        "items": [
            {
                "metadata": {
                    "name": "node-a",
                    "creationTimestamp": "2026-04-01T08:00:17Z",
                    "labels": {"zone": "a"},
                },
                "timestamp": "2026-04-01T08:00:15Z",
                "window": "15s",
                # 200m + 250m + 5m + 1500m + 20m + 100m + 1m; 512 + 64 + 1 + 2048 + 300 + 128 + 1 Mi
                "usage": {"cpu": "2076m", "memory": "3054Mi"},
            }
        ],
    }


def test_discovery_lists_the_group(cluster: Cluster) -> None:
    groups = cluster.http.get("/apis").json()["groups"]
    assert "metrics.k8s.io" in [g["name"] for g in groups]


def test_the_official_client_reads_pod_and_node_metrics(cluster: Cluster) -> None:
    scraped_twice(cluster)
    running = start_in_thread(cluster.http.app)
    try:
        configuration = k8s.Configuration()
        configuration.host = running.url
        with k8s.ApiClient(configuration) as api_client:
            custom = k8s.CustomObjectsApi(api_client)
            pods = custom.list_namespaced_custom_object(
                "metrics.k8s.io", "v1beta1", "default", "pods", label_selector="app=web"
            )
            one = custom.get_namespaced_custom_object(
                "metrics.k8s.io", "v1beta1", "default", "pods", "web-2"
            )
            nodes = custom.list_cluster_custom_object("metrics.k8s.io", "v1beta1", "nodes")
    finally:
        running.stop()
    listed, single, node_list = (cast(JSON, body) for body in (pods, one, nodes))
    assert listed["items"] == [WEB_1, WEB_2]
    assert single["containers"] == WEB_2["containers"]
    assert [n["usage"]["cpu"] for n in node_list["items"]] == ["2076m"]
