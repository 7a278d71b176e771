"""The push extension over HTTP: PUT/POST value lists at the URL a GET reads.

Backed by ``PushMetricsProvider`` on a ``FakeClock``: bodies are checked item by item (a 400
naming the item, nothing written), PUT replaces what the URL names, POST upserts, and the
answer is the list as stored (timestamps filled in with the write time).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.metrics.push import PushMetricsProvider
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
CUSTOM = "/apis/custom.metrics.k8s.io/v1beta2"
EXTERNAL = "/apis/external.metrics.k8s.io/v1beta1"
PODS = CUSTOM + "/namespaces/default/pods/*/rps"
START = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def provider() -> PushMetricsProvider:
    return PushMetricsProvider(FakeClock(START))


@pytest.fixture
def client(provider: PushMetricsProvider) -> TestClient:
    clock = FakeClock(START)
    app = create_app(
        MemoryStore(clock),
        clock=clock,
        custom_metrics_provider=provider,
        external_metrics_provider=provider,
    )
    return TestClient(app, raise_server_exceptions=False)


def _pod_value(name: str, value: Any, **extra: Any) -> JSON:
    return {"describedObject": {"name": name}, "value": value, **extra}


def _values(client: TestClient, path: str) -> dict[str, str]:
    response = client.get(path)
    assert response.status_code == 200, response.text
    return {i["describedObject"]["name"]: i["value"] for i in response.json()["items"]}


def test_put_then_get_round_trips_a_metric_value_list(client: TestClient) -> None:
    body = {
        "kind": "MetricValueList",
        "apiVersion": "custom.metrics.k8s.io/v1beta2",
        "items": [
            _pod_value("web-1", "1500m", windowSeconds=60),
            _pod_value("web-2", 2, timestamp="2025-12-31T23:59:30Z"),
        ],
    }
    response = client.put(PODS, json=body)
    assert response.status_code == 200, response.text
    assert response.json()["items"][0] == {
        "describedObject": {
            "kind": "Pod",
            "namespace": "default",
            "name": "web-1",
            "apiVersion": "v1",
        },
        "metric": {"name": "rps", "selector": None},
        "timestamp": "2026-01-01T00:00:00Z",
        "windowSeconds": 60,
        "value": "1500m",
    }
    items = client.get(PODS).json()["items"]
    assert [(i["describedObject"]["name"], i["value"], i["timestamp"]) for i in items] == [
        ("web-1", "1500m", "2026-01-01T00:00:00Z"),
        ("web-2", "2", "2025-12-31T23:59:30Z"),
    ]


def test_put_replaces_and_post_upserts(client: TestClient) -> None:
    client.put(PODS, json={"items": [_pod_value("a", 1), _pod_value("b", 2)]})
    client.post(PODS, json={"items": [_pod_value("b", 5), _pod_value("c", 3)]})
    assert _values(client, PODS) == {"a": "1", "b": "5", "c": "3"}
    client.put(PODS, json={"items": [_pod_value("c", 4)]})
    assert _values(client, PODS) == {"c": "4"}


def test_put_on_one_object_leaves_the_others(client: TestClient) -> None:
    client.put(PODS, json={"items": [_pod_value("a", 1), _pod_value("b", 2)]})
    one = CUSTOM + "/namespaces/default/pods/a/rps"
    assert client.put(one, json={"items": [{"value": "7"}]}).status_code == 200
    assert _values(client, PODS) == {"a": "7", "b": "2"}
    assert _values(client, one) == {"a": "7"}


def test_series_labels_come_from_match_labels(client: TestClient) -> None:
    series = [
        _pod_value("a", 1, metric={"name": "rps", "selector": {"matchLabels": {"verb": "GET"}}}),
        _pod_value("a", 2, metric={"selector": {"matchLabels": {"verb": "PUT"}}}),
    ]
    client.put(PODS, json={"items": series})
    assert _values(client, PODS + "?metricLabelSelector=verb%3DPUT") == {"a": "2"}
    assert _values(client, PODS) == {"a": "3"}


def test_root_scoped_and_namespace_metrics(client: TestClient) -> None:
    node = CUSTOM + "/nodes/node-1/temperature"
    assert client.put(node, json={"items": [{"value": "40"}]}).status_code == 200
    (item,) = client.get(CUSTOM + "/nodes/*/temperature").json()["items"]
    assert item["describedObject"] == {"kind": "Node", "name": "node-1", "apiVersion": "v1"}
    namespace = CUSTOM + "/namespaces/prod/metrics/queue"
    assert client.post(namespace, json={"items": [{"value": "9"}]}).status_code == 200
    (item,) = client.get(namespace).json()["items"]
    assert item["describedObject"] == {"kind": "Namespace", "name": "prod", "apiVersion": "v1"}


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        (PODS, {"items": [{"value": "1"}]}, "items[0].describedObject.name: Required value"),
        (
            PODS,
            {"items": [_pod_value("a", "1"), _pod_value("b", "x")]},
            "items[1].value: quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        (
            PODS,
            {"items": [_pod_value("a", None)]},
            "items[0].value: Required value: a quantity string or a number",
        ),
        (
            PODS,
            {"items": [_pod_value("a", True)]},
            "items[0].value: Required value: a quantity string or a number",
        ),
        (
            PODS,
            {"items": [_pod_value("a", 1, timestamp="yesterday")]},
            "items[0].timestamp: not an RFC 3339 time: 'yesterday'",
        ),
        (
            PODS,
            {"items": [_pod_value("a", 1, windowSeconds=-1)]},
            "items[0].windowSeconds: must be a non-negative integer",
        ),
        (
            PODS,
            {"items": [_pod_value("a", 1, metric={"name": "other"})]},
            "items[0].metric.name: 'other' does not match 'rps' from the URL",
        ),
        (
            PODS,
            {"items": [{"describedObject": {"name": "a", "namespace": "prod"}, "value": 1}]},
            "items[0].describedObject: 'prod' does not match 'default' from the URL",
        ),
        (
            CUSTOM + "/namespaces/default/pods/a/rps",
            {"items": [_pod_value("b", 1)]},
            "items[0].describedObject.name: 'b' does not match 'a' from the URL",
        ),
        (
            PODS,
            {"items": [_pod_value("a", 1, metric={"selector": {"matchExpressions": [{}]}})]},
            "items[0].metric.selector: series labels are matchLabels only",
        ),
        (
            PODS,
            {"kind": "PodList", "items": []},
            "the body must be a MetricValueList, not 'PodList'",
        ),
        (
            PODS,
            {"apiVersion": "v1", "items": []},
            "the body must be custom.metrics.k8s.io/v1beta2, not 'v1'",
        ),
        (PODS, {"items": {}}, "items: must be a list"),
        (PODS, {"items": [3]}, "items[0]: must be an object"),
        (
            EXTERNAL + "/namespaces/default/queue",
            {"items": [{"metricName": "other", "value": 1}]},
            "items[0].metricName: 'other' does not match 'queue' from the URL",
        ),
        (
            EXTERNAL + "/namespaces/default/queue",
            {"items": [{"metricLabels": {"a": 1}, "value": 1}]},
            "items[0].metricLabels: must map label names to string values",
        ),
        (
            EXTERNAL + "/namespaces/default/queue",
            {"items": [{"window": "60", "value": 1}]},
            "items[0].window: must be a non-negative integer",
        ),
    ],
    ids=[
        "no-name",
        "bad-quantity",
        "no-value",
        "bool-value",
        "bad-time",
        "negative-window",
        "metric-mismatch",
        "namespace-mismatch",
        "name-mismatch",
        "expressions",
        "wrong-kind",
        "wrong-version",
        "items-not-list",
        "item-not-object",
        "external-name-mismatch",
        "external-labels",
        "external-window",
    ],
)
def test_bad_bodies_are_400_and_write_nothing(
    client: TestClient, provider: PushMetricsProvider, path: str, body: JSON, message: str
) -> None:
    response = client.put(path, json=body)
    assert response.status_code == 400
    status = response.json()
    assert (status["reason"], status["message"]) == ("BadRequest", message)
    assert provider.list_custom_metrics() == []
    assert provider.list_external_metrics() == []


def test_body_that_is_not_json_is_400(client: TestClient) -> None:
    response = client.put(PODS, content=b"{", headers={"content-type": "application/json"})
    assert response.status_code == 400


def test_body_over_the_limit_is_413(client: TestClient) -> None:
    response = client.put(PODS, content=b" " * (3 * 1024 * 1024 + 1))
    assert response.status_code == 413


def test_pushed_metrics_appear_in_discovery(client: TestClient) -> None:
    client.put(PODS, json={"items": [_pod_value("a", 1)]})
    client.put(EXTERNAL + "/namespaces/default/queue", json={"items": [{"value": 1}]})
    assert [r["name"] for r in client.get(CUSTOM).json()["resources"]] == ["pods/rps"]
    assert [r["name"] for r in client.get(EXTERNAL).json()["resources"]] == ["queue"]
