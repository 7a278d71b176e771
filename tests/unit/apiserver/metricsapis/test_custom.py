"""custom.metrics.k8s.io/v1beta2 over HTTP: URL shapes, selectors, Statuses, discovery.

A recording provider shows exactly what each URL hands to ``CustomMetricsProvider`` (the
layouts of upstream's ``custom_metrics/versioned_client.go``); errors and discovery follow
custom-metrics-apiserver (``provider/errors.go``, ``provider/resource_lister.go``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.api import Selector
from podscale.apiserver.http.app import create_app
from podscale.apiserver.metricsapis.providers import (
    CustomMetricInfo,
    metric_not_found,
    metric_not_found_for,
)
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
BASE = "/apis/custom.metrics.k8s.io/v1beta2"
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


class RecordingProvider:
    """Answers every read with one value and records the call."""

    def __init__(self, infos: Sequence[CustomMetricInfo] = ()) -> None:
        self.infos = list(infos)
        self.calls: list[tuple[Any, ...]] = []

    def list_custom_metrics(self) -> Sequence[CustomMetricInfo]:
        return self.infos

    async def get_metric_by_name(
        self, namespace: str | None, name: str, info: CustomMetricInfo, metric_selector: Selector
    ) -> JSON:
        self.calls.append(("name", namespace, name, info, str(metric_selector)))
        if info.metric == "missing":
            raise metric_not_found_for(info.group_resource, info.metric, name)
        return {"describedObject": {"name": name}, "value": "1"}

    async def get_metric_by_selector(
        self,
        namespace: str | None,
        selector: Selector,
        info: CustomMetricInfo,
        metric_selector: Selector,
    ) -> list[JSON]:
        self.calls.append(("selector", namespace, str(selector), info, str(metric_selector)))
        if info.metric == "missing":
            raise metric_not_found(info.group_resource, info.metric)
        return [{"describedObject": {"name": "a"}, "value": "1"}]


def _client(provider: RecordingProvider | None) -> TestClient:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    app = create_app(MemoryStore(clock), clock=clock, custom_metrics_provider=provider)
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (
            "/namespaces/default/pods/*/rps?labelSelector=app%3Dweb&metricLabelSelector=verb%3DGET",
            (
                "selector",
                "default",
                "app=web",
                CustomMetricInfo("pods", True, "rps"),
                "verb=GET",
            ),
        ),
        (
            "/namespaces/default/pods/%2A/rps",
            ("selector", "default", "", CustomMetricInfo("pods", True, "rps"), ""),
        ),
        (
            "/namespaces/prod/deployments.apps/web/hits?labelSelector=ignored%3Dyes",
            ("name", "prod", "web", CustomMetricInfo("deployments.apps", True, "hits"), ""),
        ),
        (
            "/nodes/node-1/temperature?metricLabelSelector=zone+in+%28a%2Cb%29",
            (
                "name",
                None,
                "node-1",
                CustomMetricInfo("nodes", False, "temperature"),
                "zone in (a,b)",
            ),
        ),
        (
            "/nodes/*/temperature?labelSelector=role",
            ("selector", None, "role", CustomMetricInfo("nodes", False, "temperature"), ""),
        ),
        (
            "/namespaces/prod/metrics/queue-length",
            ("name", None, "prod", CustomMetricInfo("namespaces", False, "queue-length"), ""),
        ),
    ],
    ids=["pods-wildcard", "escaped-star", "named-object", "root-scoped", "root-wildcard", "ns"],
)
def test_urls_reach_the_provider_as_upstream_lays_them_out(
    path: str, expected: tuple[Any, ...]
) -> None:
    provider = RecordingProvider()
    response = _client(provider).get(BASE + path)
    assert response.status_code == 200, response.text
    assert provider.calls == [expected]
    body = response.json()
    assert (body["kind"], body["apiVersion"], body["metadata"]) == (
        "MetricValueList",
        "custom.metrics.k8s.io/v1beta2",
        {},
    )
    assert len(body["items"]) == 1


@pytest.mark.parametrize(
    ("path", "code", "message"),
    [
        (
            "/namespaces/default/pods/*/rps?labelSelector=a%3D%28",
            400,
            "unable to parse requirement: found '(', expected: identifier",
        ),
        (
            "/namespaces/default/pods/web/rps?metricLabelSelector=%21%21",
            400,
            None,
        ),
        (
            "/namespaces/default/pods/*/missing",
            404,
            "the server could not find the metric missing for pods",
        ),
        (
            "/namespaces/default/pods/web-1/missing",
            404,
            "the server could not find the metric missing for pods web-1",
        ),
        ("/namespaces/default/pods/web", 404, "the server could not find the requested resource"),
        ("/namespaces/default", 404, "the server could not find the requested resource"),
        ("/a/b/c/d", 404, "the server could not find the requested resource"),
        ("/namespaces//pods/*/rps", 404, "the server could not find the requested resource"),
    ],
    ids=[
        "bad-label-selector",
        "bad-metric-selector",
        "unknown",
        "unknown-for",
        "short",
        "ns",
        "odd",
        "empty",
    ],
)
def test_failures_are_upstream_statuses(path: str, code: int, message: str | None) -> None:
    response = _client(RecordingProvider()).get(BASE + path)
    assert response.status_code == code
    status = response.json()
    assert (status["kind"], status["status"], status["code"]) == ("Status", "Failure", code)
    assert status["reason"] == ("BadRequest" if code == 400 else "NotFound")
    if message is not None:
        assert status["message"] == message


def test_metric_not_found_status_has_no_details() -> None:
    status = _client(RecordingProvider()).get(BASE + "/namespaces/d/pods/*/missing").json()
    assert status == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "the server could not find the metric missing for pods",
        "reason": "NotFound",
        "code": 404,
    }


@pytest.mark.parametrize("method", ["DELETE", "PATCH", "PUT", "POST"], ids=str.lower)
def test_only_get_without_a_writer(method: str) -> None:
    response = _client(RecordingProvider()).request(
        method, BASE + "/namespaces/default/pods/*/rps", json={"items": []}
    )
    assert response.status_code == 405
    assert response.json()["reason"] == "MethodNotAllowed"


def test_group_not_served_without_a_provider() -> None:
    client = _client(None)
    assert client.get(BASE + "/namespaces/default/pods/*/rps").status_code == 404
    assert client.get(BASE).status_code == 404
    assert client.get("/apis/custom.metrics.k8s.io").status_code == 404
    names = [g["name"] for g in client.get("/apis").json()["groups"]]
    assert "custom.metrics.k8s.io" not in names


INFOS = [
    CustomMetricInfo("pods", True, "rps"),
    CustomMetricInfo("deployments.apps", True, "hits"),
    CustomMetricInfo("pods", True, "latency"),
    CustomMetricInfo("nodes", False, "temperature"),
]


def test_legacy_discovery_lists_resource_slash_metric() -> None:
    client = _client(RecordingProvider(INFOS))
    group = client.get("/apis/custom.metrics.k8s.io").json()
    assert group["preferredVersion"] == {
        "groupVersion": "custom.metrics.k8s.io/v1beta2",
        "version": "v1beta2",
    }
    listing = client.get(BASE).json()
    assert listing["groupVersion"] == "custom.metrics.k8s.io/v1beta2"
    assert listing["resources"] == [
        {
            "name": "deployments.apps/hits",
            "singularName": "",
            "namespaced": True,
            "kind": "MetricValueList",
            "verbs": ["get"],
        },
        {
            "name": "nodes/temperature",
            "singularName": "",
            "namespaced": False,
            "kind": "MetricValueList",
            "verbs": ["get"],
        },
        {
            "name": "pods/latency",
            "singularName": "",
            "namespaced": True,
            "kind": "MetricValueList",
            "verbs": ["get"],
        },
        {
            "name": "pods/rps",
            "singularName": "",
            "namespaced": True,
            "kind": "MetricValueList",
            "verbs": ["get"],
        },
    ]
    assert "custom.metrics.k8s.io" in [g["name"] for g in client.get("/apis").json()["groups"]]


def test_aggregated_discovery_nests_metrics_under_a_bare_parent() -> None:
    response = _client(RecordingProvider(INFOS)).get("/apis", headers={"accept": AGGREGATED})
    assert response.headers["content-type"] == AGGREGATED
    (item,) = [
        i for i in response.json()["items"] if i["metadata"]["name"] == "custom.metrics.k8s.io"
    ]
    (version,) = item["versions"]
    assert version["version"] == "v1beta2"
    parents = {r["resource"]: r for r in version["resources"]}
    assert sorted(parents) == ["deployments.apps", "nodes", "pods"]
    pods = parents["pods"]
    assert (pods["scope"], pods["responseKind"], pods["verbs"]) == (
        "Namespaced",
        {"group": "", "version": "", "kind": ""},
        [],
    )
    assert [s["subresource"] for s in pods["subresources"]] == ["latency", "rps"]
    assert pods["subresources"][0]["responseKind"]["kind"] == "MetricValueList"
    assert parents["nodes"]["scope"] == "Cluster"


def test_discovery_follows_the_provider_listing() -> None:
    provider = RecordingProvider()
    client = _client(provider)
    assert client.get(BASE).json()["resources"] == []
    provider.infos.append(CustomMetricInfo("pods", True, "rps"))
    assert [r["name"] for r in client.get(BASE).json()["resources"]] == ["pods/rps"]
