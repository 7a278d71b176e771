"""/version, health, legacy and aggregated discovery, negotiated on Accept."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
KUBECTL_130 = f"{V2},{V2BETA1},application/json"


class _Provider:
    def pod_metrics(self, namespace: str | None) -> list[dict[str, Any]]:
        return []

    def node_metrics(self) -> list[dict[str, Any]]:
        return []


def test_version_reports_minor_32(client: TestClient) -> None:
    body = client.get("/version?timeout=5s").json()
    assert (body["major"], body["minor"], body["gitVersion"]) == ("1", "32", "v1.32.0")
    assert body["platform"] == "linux/amd64"


@pytest.mark.parametrize(
    "path", ["/healthz", "/readyz", "/livez"], ids=["healthz", "readyz", "livez"]
)
def test_health(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert (response.status_code, response.text) == (200, "ok")


@pytest.mark.parametrize(
    ("accept", "content_type", "api_version"),
    [
        (KUBECTL_130, V2, "apidiscovery.k8s.io/v2"),
        (f"{V2BETA1},application/json", V2BETA1, "apidiscovery.k8s.io/v2beta1"),
    ],
    ids=["kubectl-1.30-gets-v2", "kubectl-1.28-gets-v2beta1"],
)
def test_aggregated_discovery_negotiation(
    client: TestClient, accept: str, content_type: str, api_version: str
) -> None:
    response = client.get("/apis", headers={"accept": accept})
    assert response.headers["content-type"] == content_type
    body = response.json()
    assert (body["kind"], body["apiVersion"]) == ("APIGroupDiscoveryList", api_version)
    groups = {item["metadata"]["name"]: item for item in body["items"]}
    assert list(groups)[:2] == ["apps", "autoscaling"]
    assert {"authentication.k8s.io", "authorization.k8s.io"} <= set(groups)
    assert [v["version"] for v in groups["autoscaling"]["versions"]] == ["v2", "v1"]
    rs = next(
        r for r in groups["apps"]["versions"][0]["resources"] if r["resource"] == "replicasets"
    )
    assert rs["responseKind"] == {"group": "apps", "version": "v1", "kind": "ReplicaSet"}
    assert (rs["scope"], rs["shortNames"], rs["categories"]) == ("Namespaced", ["rs"], ["all"])
    assert rs["verbs"] == [
        "create",
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "update",
        "watch",
    ]
    assert [s["subresource"] for s in rs["subresources"]] == ["scale", "status"]
    assert rs["subresources"][0]["responseKind"] == {
        "group": "autoscaling",
        "version": "v1",
        "kind": "Scale",
    }


def test_core_aggregated_discovery(client: TestClient) -> None:
    body = client.get("/api", headers={"accept": KUBECTL_130}).json()
    (core,) = body["items"]
    assert core["metadata"]["name"] == ""
    resources = {r["resource"]: r for r in core["versions"][0]["resources"]}
    assert sorted(resources) == [
        "configmaps",
        "events",
        "namespaces",
        "nodes",
        "pods",
        "secrets",
        "serviceaccounts",
        "services",
    ]
    assert resources["nodes"]["scope"] == "Cluster"


@pytest.mark.parametrize(
    "accept", ["application/json", "application/json, */*", ""], ids=["json", "json-any", "none"]
)
def test_legacy_discovery(client: TestClient, accept: str) -> None:
    headers = {"accept": accept} if accept else {}
    api = client.get("/api", headers=headers)
    assert api.headers["content-type"] == "application/json"
    assert api.json()["kind"] == "APIVersions"
    assert api.json()["versions"] == ["v1"]
    groups = client.get("/apis", headers=headers).json()
    assert groups["kind"] == "APIGroupList"
    autoscaling = next(g for g in groups["groups"] if g["name"] == "autoscaling")
    assert autoscaling["preferredVersion"] == {"groupVersion": "autoscaling/v2", "version": "v2"}


def test_resource_list_includes_subresources(client: TestClient) -> None:
    body = client.get("/apis/apps/v1").json()
    assert (body["kind"], body["groupVersion"]) == ("APIResourceList", "apps/v1")
    by_name = {r["name"]: r for r in body["resources"]}
    assert by_name["replicasets"]["singularName"] == "replicaset"
    assert by_name["replicasets/scale"] == {
        "name": "replicasets/scale",
        "singularName": "",
        "namespaced": True,
        "group": "autoscaling",
        "version": "v1",
        "kind": "Scale",
        "verbs": ["get", "patch", "update"],
    }
    assert "group" not in by_name["replicasets/status"]
    core = client.get("/api/v1").json()
    assert core["groupVersion"] == "v1"
    assert {r["name"] for r in core["resources"]} >= {"pods", "pods/status", "nodes", "events"}


def test_api_group_document(client: TestClient) -> None:
    body = client.get("/apis/autoscaling").json()
    assert body["kind"] == "APIGroup"
    assert [v["version"] for v in body["versions"]] == ["v2", "v1"]


def test_metrics_group_only_with_provider(store: Any, clock: Any) -> None:
    from podscale.apiserver.http.app import create_app

    plain = TestClient(create_app(store, clock=clock))
    with_metrics = TestClient(create_app(store, clock=clock, metrics_provider=_Provider()))
    assert "metrics.k8s.io" not in str(plain.get("/apis").json())
    assert plain.get("/apis/metrics.k8s.io/v1beta1").status_code == 404
    names = [
        g["metadata"]["name"]
        for g in with_metrics.get("/apis", headers={"accept": KUBECTL_130}).json()["items"]
    ]
    assert names[-1] == "metrics.k8s.io"
    resources = with_metrics.get("/apis/metrics.k8s.io/v1beta1").json()["resources"]
    assert [(r["name"], r["kind"], r["verbs"]) for r in resources] == [
        ("nodes", "NodeMetrics", ["get", "list"]),
        ("pods", "PodMetrics", ["get", "list"]),
    ]


def test_openapi_v3_is_served(client: TestClient) -> None:
    root = client.get("/openapi/v3").json()
    assert "apis/apps/v1" in root["paths"]
    url = root["paths"]["apis/apps/v1"]["serverRelativeURL"]
    document = client.get(url).json()
    assert "io.k8s.api.apps.v1.ReplicaSet" in document["components"]["schemas"]
    assert client.get("/openapi/v3/apis/nogroup/v1").status_code == 404
    assert client.get("/openapi/v2/apis").status_code == 404
