"""Custom and external metrics read by the official ``kubernetes`` client over real HTTP.

A uvicorn server on 127.0.0.1:0 with a ``PushMetricsProvider`` (filtering objects through the
same store): values are pushed with PUT through ``ApiClient`` and in-process, then read the
way an HPA would (``pods/*`` with a ``labelSelector``, one object, the namespace metric, an
external metric with a metric ``labelSelector``) via ``CustomObjectsApi`` and
``ApiClient.call_api``; typed discovery models deserialise both groups; failures come back
as ``ApiException`` carrying upstream's Status.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.server import RunningServer, start_in_thread
from podscale.metrics.object_labels import StoreObjectLabels
from podscale.metrics.push import PushMetricsProvider
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
NS = "default"
CUSTOM = ("custom.metrics.k8s.io", "v1beta2")
EXTERNAL = ("external.metrics.k8s.io", "v1beta1")
PODS_PATH = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/{namespace}/pods/*/{metric}"


@dataclass
class Cluster:
    server: RunningServer
    provider: PushMetricsProvider


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    clock = FakeClock()
    store = MemoryStore(clock)
    provider = PushMetricsProvider(clock, objects=StoreObjectLabels(store))
    app = create_app(
        store, clock=clock, custom_metrics_provider=provider, external_metrics_provider=provider
    )
    running = start_in_thread(app)
    try:
        yield Cluster(running, provider)
    finally:
        running.stop()


@pytest.fixture(scope="module")
def api(cluster: Cluster) -> Iterator[k8s.ApiClient]:
    configuration = k8s.Configuration()
    configuration.host = cluster.server.url
    with k8s.ApiClient(configuration) as api_client:
        core = k8s.CoreV1Api(api_client)
        for name, app in (("web-1", "web"), ("web-2", "web"), ("db-1", "db")):
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "labels": {"app": app}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]},
            }
            core.create_namespaced_pod(NS, pod)
        yield api_client


def _call(
    api: k8s.ApiClient,
    method: str,
    path: str,
    path_params: dict[str, str],
    query: list[tuple[str, str]] | None = None,
    body: JSON | None = None,
) -> JSON:
    serialized = api.param_serialize(
        method=method,
        resource_path=path,
        path_params=path_params,
        query_params=query or [],
        header_params={"Accept": "application/json", "Content-Type": "application/json"},
        body=body,
    )
    response = api.call_api(*serialized[:4])
    response.read()
    if not 200 <= response.status < 300:
        raise AssertionError(f"{response.status}: {response.data!r}")
    decoded: JSON = json.loads(response.data)
    return decoded


def _values(listing: JSON) -> dict[str, str]:
    return {i["describedObject"]["name"]: i["value"] for i in listing["items"]}


def test_put_then_read_pods_metric_like_the_hpa(api: k8s.ApiClient) -> None:
    params = {"namespace": NS, "metric": "requests_per_second"}
    items = [
        {"describedObject": {"name": name}, "value": value}
        for name, value in (("web-1", "1500m"), ("web-2", "500m"), ("db-1", "9"), ("gone", "7"))
    ]
    written = _call(api, "PUT", PODS_PATH, params, body={"items": items})
    assert len(written["items"]) == 4
    selected = _call(api, "GET", PODS_PATH, params, query=[("labelSelector", "app=web")])
    assert selected["kind"] == "MetricValueList"
    assert _values(selected) == {"web-1": "1500m", "web-2": "500m"}
    everything = _call(api, "GET", PODS_PATH, params)
    assert _values(everything) == {"db-1": "9", "web-1": "1500m", "web-2": "500m"}


def test_named_object_and_namespace_metric_through_custom_objects_api(
    api: k8s.ApiClient, cluster: Cluster
) -> None:
    cluster.provider.set_custom_metric("namespaces", None, NS, "queue_length", 12)
    objects = k8s.CustomObjectsApi(api)
    listing = objects.get_namespaced_custom_object(*CUSTOM, NS, "metrics", "queue_length")
    assert isinstance(listing, dict)
    (item,) = listing["items"]
    assert item["describedObject"] == {"kind": "Namespace", "name": NS, "apiVersion": "v1"}
    assert item["value"] == "12"
    cluster.provider.set_custom_metric("nodes", None, "node-1", "temperature", "41.5")
    node = objects.get_cluster_custom_object(*CUSTOM, "nodes", "node-1/temperature")
    assert [i["value"] for i in node["items"]] == ["41500m"]


def test_external_metric_with_a_metric_selector(api: k8s.ApiClient, cluster: Cluster) -> None:
    provider = cluster.provider
    provider.set_external_metric(NS, "queue_messages_ready", 30, labels={"queue": "jobs"})
    provider.set_external_metric(NS, "queue_messages_ready", 5, labels={"queue": "mail"})
    objects = k8s.CustomObjectsApi(api)
    listing = objects.list_namespaced_custom_object(
        *EXTERNAL, NS, "queue_messages_ready", label_selector="queue=jobs"
    )
    assert listing["kind"] == "ExternalMetricValueList"
    assert [(i["metricLabels"], i["value"]) for i in listing["items"]] == [
        ({"queue": "jobs"}, "30")
    ]
    everything = objects.list_namespaced_custom_object(*EXTERNAL, NS, "queue_messages_ready")
    assert sorted(i["value"] for i in everything["items"]) == ["30", "5"]


def test_push_external_over_http(api: k8s.ApiClient) -> None:
    path = "/apis/external.metrics.k8s.io/v1beta1/namespaces/{namespace}/{metric}"
    params = {"namespace": "prod", "metric": "lag"}
    body = {
        "kind": "ExternalMetricValueList",
        "items": [{"metricLabels": {"topic": "a"}, "value": 3}],
    }
    _call(api, "POST", path, params, body=body)
    listing = k8s.CustomObjectsApi(api).list_namespaced_custom_object(*EXTERNAL, "prod", "lag")
    assert [i["value"] for i in listing["items"]] == ["3"]


@pytest.mark.parametrize(
    ("group", "plural", "selector", "code", "message"),
    [
        (CUSTOM, "metrics", None, 404, "the server could not find the metric nope for namespaces"),
        (EXTERNAL, "nope", None, 404, "the server could not find the metric nope for namespaces"),
        (
            EXTERNAL,
            "queue_messages_ready",
            "queue=(",
            400,
            "unable to parse requirement: found '(', expected: identifier",
        ),
    ],
    ids=["custom-unknown", "external-unknown", "bad-selector"],
)
def test_errors_reach_the_client_as_statuses(
    api: k8s.ApiClient,
    group: tuple[str, str],
    plural: str,
    selector: str | None,
    code: int,
    message: str,
) -> None:
    objects = k8s.CustomObjectsApi(api)

    def read() -> object:
        if plural == "metrics":
            return objects.get_namespaced_custom_object(*group, NS, plural, "nope")
        return objects.list_namespaced_custom_object(*group, NS, plural, label_selector=selector)

    with pytest.raises(ApiException) as caught:
        read()
    assert caught.value.status == code
    status = json.loads(caught.value.body)
    assert (status["kind"], status["code"], status["message"]) == ("Status", code, message)


def test_typed_discovery_models_accept_both_groups(api: k8s.ApiClient, cluster: Cluster) -> None:
    # Discovery lists the metrics that have values: push one of each here, so the test
    # does not depend on the tests that ran before it.
    cluster.provider.set_custom_metric("pods", NS, "web-1", "requests_per_second", "1500m")
    cluster.provider.set_external_metric(NS, "queue_messages_ready", 30, labels={"queue": "jobs"})
    groups = {g.name: g for g in k8s.ApisApi(api).get_api_versions().groups}
    assert groups["custom.metrics.k8s.io"].preferred_version.version == "v1beta2"
    assert groups["external.metrics.k8s.io"].preferred_version.version == "v1beta1"
    objects = k8s.CustomObjectsApi(api)
    custom = objects.get_api_resources(*CUSTOM)
    assert "pods/requests_per_second" in [r.name for r in custom.resources]
    assert {r.kind for r in custom.resources} == {"MetricValueList"}
    external = objects.get_api_resources(*EXTERNAL)
    assert "queue_messages_ready" in [r.name for r in external.resources]
