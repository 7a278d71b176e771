"""Custom resources over HTTP: routing, verbs, subresources, versions and discovery."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.customresources.definitions import CRD_RESOURCE
from podscale.apiserver.http.app import create_app
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
BASE = "/apis/example.com/v1/namespaces/default/widgets"


def test_create_get_list_and_delete(
    client: TestClient, widget_factory: Callable[..., JSON]
) -> None:
    created = client.post(BASE, json=widget_factory())
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["apiVersion"] == "example.com/v1"
    assert body["metadata"]["generation"] == 1
    assert body["metadata"]["namespace"] == "default"
    got = client.get(f"{BASE}/w1").json()
    assert got["spec"] == {"replicas": 2, "size": "big", "color": "blue"}
    listed = client.get(BASE).json()
    assert listed["kind"] == "WidgetList"
    assert [item["metadata"]["name"] for item in listed["items"]] == ["w1"]
    everywhere = client.get("/apis/example.com/v1/widgets").json()
    assert len(everywhere["items"]) == 1
    deleted = client.delete(f"{BASE}/w1")
    assert deleted.status_code == 200
    assert deleted.json()["details"] == {
        "name": "w1",
        "group": "example.com",
        "kind": "widgets",
        "uid": body["metadata"]["uid"],
    }
    assert client.get(f"{BASE}/w1").status_code == 404


def test_unknown_resource_is_404(client: TestClient) -> None:
    response = client.get("/apis/example.com/v1/namespaces/default/gadgets")
    assert response.status_code == 404


def test_status_is_ignored_on_the_main_resource_and_generation_bumps_on_spec(
    client: TestClient, widget_factory: Callable[..., JSON]
) -> None:
    created = client.post(BASE, json=widget_factory(status={"replicas": 9})).json()
    assert "status" not in created
    update = dict(created, spec={"replicas": 3, "size": "big"}, status={"replicas": 7})
    updated = client.put(f"{BASE}/w1", json=update).json()
    assert updated["metadata"]["generation"] == 2
    assert "status" not in updated
    labelled = client.patch(
        f"{BASE}/w1",
        content=json.dumps({"metadata": {"labels": {"x": "y"}}}),
        headers={"content-type": "application/merge-patch+json"},
    ).json()
    assert labelled["metadata"]["generation"] == 2


def test_status_writes_change_only_status(
    client: TestClient, widget_factory: Callable[..., JSON]
) -> None:
    client.post(BASE, json=widget_factory())
    patched = client.patch(
        f"{BASE}/w1/status",
        content=json.dumps(
            {
                "status": {"replicas": 2},
                "spec": {"replicas": 50},
                "metadata": {"labels": {"a": "b"}},
            }
        ),
        headers={"content-type": "application/merge-patch+json"},
    )
    assert patched.status_code == 200, patched.text
    body = patched.json()
    assert body["status"] == {"replicas": 2}
    assert body["spec"]["replicas"] == 2
    assert body["metadata"]["labels"] == {"app": "w1"}
    assert body["metadata"]["generation"] == 1


def test_scale_subresource_reads_and_writes_the_paths(
    client: TestClient, widget_factory: Callable[..., JSON]
) -> None:
    client.post(BASE, json=widget_factory())
    client.patch(
        f"{BASE}/w1/status",
        content=json.dumps({"status": {"replicas": 2, "selector": "app=w1"}}),
        headers={"content-type": "application/merge-patch+json"},
    )
    scale = client.get(f"{BASE}/w1/scale").json()
    assert scale["kind"] == "Scale"
    assert scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 2}
    assert scale["status"] == {"replicas": 2, "selector": "app=w1"}
    scaled = client.patch(
        f"{BASE}/w1/scale",
        content=json.dumps({"spec": {"replicas": 5}}),
        headers={"content-type": "application/merge-patch+json"},
    )
    assert scaled.status_code == 200, scaled.text
    assert scaled.json()["spec"] == {"replicas": 5}
    parent = client.get(f"{BASE}/w1").json()
    assert parent["spec"]["replicas"] == 5
    assert parent["metadata"]["generation"] == 2


def test_negative_replicas_are_invalid(
    client: TestClient, widget_factory: Callable[..., JSON]
) -> None:
    response = client.post(BASE, json=widget_factory(replicas=-1))
    assert response.status_code == 422
    assert response.json()["message"] == (
        'Widget.example.com "w1" is invalid: .spec.replicas: Invalid value: -1: '
        "should be a non-negative integer"
    )


@pytest.mark.parametrize(
    ("content_type", "code"),
    [
        ("application/strategic-merge-patch+json", 415),
        ("application/merge-patch+json", 200),
    ],
    ids=["strategic-refused", "merge"],
)
def test_patch_formats(
    client: TestClient, widget_factory: Callable[..., JSON], content_type: str, code: int
) -> None:
    client.post(BASE, json=widget_factory())
    response = client.patch(
        f"{BASE}/w1",
        content=json.dumps({"spec": {"size": "small"}}),
        headers={"content-type": content_type},
    )
    assert response.status_code == code, response.text


def test_json_patch(client: TestClient, widget_factory: Callable[..., JSON]) -> None:
    client.post(BASE, json=widget_factory())
    response = client.patch(
        f"{BASE}/w1",
        content=json.dumps([{"op": "replace", "path": "/spec/size", "value": "tiny"}]),
        headers={"content-type": "application/json-patch+json"},
    )
    assert response.status_code == 200
    assert response.json()["spec"]["size"] == "tiny"


def test_versions_share_storage_with_apiversion_rewritten(
    client: TestClient, widget_factory: Callable[..., JSON], store: MemoryStore
) -> None:
    client.post(
        "/apis/example.com/v1beta1/namespaces/default/widgets",
        json=widget_factory(version="v1beta1"),
    )
    stored = store.get("widgets.example.com", "default", "w1")
    assert stored["apiVersion"] == "example.com/v1"
    served = client.get("/apis/example.com/v1beta1/namespaces/default/widgets/w1").json()
    assert served["apiVersion"] == "example.com/v1beta1"
    mismatch = client.post(BASE, json=widget_factory(name="w2", version="v1beta1"))
    assert mismatch.status_code == 400


def test_label_selectors_and_deletecollection(
    client: TestClient, widget_factory: Callable[..., JSON]
) -> None:
    for name in ("a", "b", "c"):
        client.post(BASE, json=widget_factory(name=name))
    selected = client.get(BASE, params={"labelSelector": "app in (a,b)"}).json()
    assert [i["metadata"]["name"] for i in selected["items"]] == ["a", "b"]
    by_name = client.get(BASE, params={"fieldSelector": "metadata.name=c"}).json()
    assert [i["metadata"]["name"] for i in by_name["items"]] == ["c"]
    gone = client.delete(BASE, params={"labelSelector": "app=a"})
    assert gone.status_code == 200
    assert gone.json()["kind"] == "WidgetList"
    left = client.get(BASE).json()
    assert [i["metadata"]["name"] for i in left["items"]] == ["b", "c"]


def test_watch_streams_custom_resources(
    client: TestClient, widget_factory: Callable[..., JSON]
) -> None:
    client.post(BASE, json=widget_factory())
    with client.stream("GET", BASE, params={"watch": "1", "timeoutSeconds": "1"}) as stream:
        first = json.loads(next(stream.iter_lines()))
    assert first["type"] == "ADDED"
    assert first["object"]["apiVersion"] == "example.com/v1"
    assert first["object"]["metadata"]["name"] == "w1"


def test_cluster_scoped_kind(
    client: TestClient, store: MemoryStore, crd_factory: Callable[..., JSON]
) -> None:
    store.create(
        CRD_RESOURCE,
        crd_factory(plural="clusters", kind="Cluster", scope="Cluster", short_names=()),
    )
    url = "/apis/example.com/v1/clusters"
    body = {"apiVersion": "example.com/v1", "kind": "Cluster", "metadata": {"name": "c1"}}
    assert client.post(url, json=body).status_code == 201
    assert client.get(f"{url}/c1").json()["metadata"].get("namespace") is None
    assert client.get("/apis/example.com/v1/namespaces/default/clusters/c1").status_code == 404


def test_owner_references_and_finalizers_work_as_for_built_ins(
    client: TestClient, widget_factory: Callable[..., JSON]
) -> None:
    body = widget_factory()
    body["metadata"]["finalizers"] = ["example.com/hold"]
    client.post(BASE, json=body)
    held = client.delete(f"{BASE}/w1")
    assert held.status_code == 202
    assert held.json()["metadata"]["deletionTimestamp"]
    client.patch(
        f"{BASE}/w1",
        content=json.dumps({"metadata": {"finalizers": None}}),
        headers={"content-type": "application/merge-patch+json"},
    )
    assert client.get(f"{BASE}/w1").status_code == 404


def test_discovery_lists_custom_group(client: TestClient) -> None:
    groups = client.get("/apis").json()["groups"]
    example = next(g for g in groups if g["name"] == "example.com")
    assert [v["version"] for v in example["versions"]] == ["v1", "v1beta1"]
    assert example["preferredVersion"]["version"] == "v1"
    resources = client.get("/apis/example.com/v1").json()["resources"]
    names = [r["name"] for r in resources]
    assert names == ["widgets", "widgets/scale", "widgets/status"]
    widgets = resources[0]
    assert widgets["shortNames"] == ["wd"]
    assert widgets["categories"] == ["all"]
    assert widgets["verbs"] == [
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "create",
        "update",
        "watch",
    ]
    assert resources[1]["group"] == "autoscaling"
    group = client.get("/apis/example.com").json()
    assert group["kind"] == "APIGroup"


def test_aggregated_discovery_lists_custom_group(client: TestClient) -> None:
    accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    body = client.get("/apis", headers={"accept": accept}).json()
    item = next(i for i in body["items"] if i["metadata"]["name"] == "example.com")
    version = item["versions"][0]
    assert version["version"] == "v1"
    resource = version["resources"][0]
    assert resource["resource"] == "widgets"
    assert resource["scope"] == "Namespaced"
    assert [s["subresource"] for s in resource["subresources"]] == ["scale", "status"]


def test_crd_status_is_maintained(client: TestClient, store: MemoryStore) -> None:
    client.get("/apis/example.com/v1")
    crd = store.get(CRD_RESOURCE, "", "widgets.example.com")
    conditions = {c["type"]: c for c in crd["status"]["conditions"]}
    assert conditions["NamesAccepted"]["reason"] == "NoConflicts"
    assert conditions["Established"]["status"] == "True"
    assert conditions["Established"]["reason"] == "InitialNamesAccepted"
    assert crd["status"]["acceptedNames"]["plural"] == "widgets"
    assert crd["status"]["storedVersions"] == ["v1"]


def test_validation_rules_are_enforced(
    client: TestClient, store: MemoryStore, crd_factory: Callable[..., JSON]
) -> None:
    crd = crd_factory(plural="gadgets", kind="Gadget", short_names=(), categories=())
    spec_schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec_schema["x-kubernetes-validations"] = [
        {"rule": "self.replicas <= 10", "message": "at most 10 replicas"}
    ]
    store.create(CRD_RESOURCE, crd)
    url = "/apis/example.com/v1/namespaces/default/gadgets"
    body = {
        "apiVersion": "example.com/v1",
        "kind": "Gadget",
        "metadata": {"name": "g"},
        "spec": {"replicas": 11},
    }
    refused = client.post(url, json=body)
    assert refused.status_code == 422
    assert refused.json()["message"] == (
        'Gadget.example.com "g" is invalid: spec: Invalid value: "object": at most 10 replicas'
    )
    body["spec"]["replicas"] = 3
    assert client.post(url, json=body).status_code == 201


@pytest.mark.parametrize(
    ("mode", "code", "warning"),
    [
        ("Strict", 400, None),
        ("Warn", 201, '299 - "unknown field \\"spec.extra\\""'),
        ("Ignore", 201, None),
    ],
    ids=["strict", "warn", "ignore"],
)
def test_unknown_fields_follow_field_validation(
    client: TestClient,
    widget_factory: Callable[..., JSON],
    mode: str,
    code: int,
    warning: str | None,
) -> None:
    body = widget_factory()
    body["spec"]["extra"] = 1
    response = client.post(BASE, json=body, params={"fieldValidation": mode})
    assert response.status_code == code, response.text
    if code == 400:
        assert response.json()["message"] == 'strict decoding error: unknown field "spec.extra"'
        return
    assert response.headers.get("warning") == warning
    assert "extra" not in response.json()["spec"]


def test_schema_errors_and_defaults(
    client: TestClient, widget_factory: Callable[..., JSON], store: MemoryStore
) -> None:
    bad = widget_factory()
    bad["spec"]["size"] = 5
    refused = client.post(BASE, json=bad)
    assert refused.status_code == 422
    assert "spec.size: Invalid value" in refused.json()["message"]
    created = client.post(BASE, json=widget_factory()).json()
    assert created["spec"]["color"] == "blue"
    # Defaults also apply on read: a stored object without the field is served with it.
    stored = store.get("widgets.example.com", "default", "w1")
    del stored["spec"]["color"]
    store.update("widgets.example.com", stored)
    assert client.get(f"{BASE}/w1").json()["spec"]["color"] == "blue"


def test_tables_use_printer_columns(client: TestClient, store: MemoryStore, kiln_crd: JSON) -> None:
    del kiln_crd["metadata"]["resourceVersion"]
    del kiln_crd["status"]
    store.create(CRD_RESOURCE, kiln_crd)
    url = "/apis/ceramics.podscale.test/v1/namespaces/default/kilns"
    body = {
        "apiVersion": "ceramics.podscale.test/v1",
        "kind": "Kiln",
        "metadata": {"name": "k"},
        "spec": {"cone": 6, "glaze": "celadon"},
    }
    assert client.post(url, json=body).status_code == 201, client.post(url, json=body).text
    table = client.get(url, headers={"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert table.status_code == 200
    names = [c["name"] for c in table.json()["columnDefinitions"]]
    assert names == ["Name", "Cone"]
    assert table.json()["rows"][0]["cells"] == ["k", 6]


def test_openapi_publishes_custom_group_versions(client: TestClient) -> None:
    client.get("/apis")  # establishes the CRD
    root = client.get("/openapi/v3").json()["paths"]
    assert "apis/example.com/v1" in root
    assert "api/v1" in root
    document = client.get("/openapi/v3/apis/example.com/v1").json()
    assert "com.example.v1.Widget" in document["components"]["schemas"]
    v2 = client.get("/openapi/v2", headers={"accept": "application/json"}).json()
    assert "com.example.v1.Widget" in v2["definitions"]
    assert "io.k8s.api.apps.v1.Deployment" in v2["definitions"]


def test_servers_in_one_process_keep_their_own_kinds(
    client: TestClient, clock: Any, widget_factory: Callable[..., JSON]
) -> None:
    other = TestClient(create_app(MemoryStore(clock), clock=clock))
    assert client.post(BASE, json=widget_factory()).status_code == 201
    assert other.post(BASE, json=widget_factory()).status_code == 404
    assert "example.com" not in [g["name"] for g in other.get("/apis").json()["groups"]]


@pytest.mark.parametrize(
    ("method", "subresource"),
    [("GET", "scale"), ("PUT", "scale"), ("GET", "status"), ("PATCH", "status")],
    ids=["get-scale", "put-scale", "get-status", "patch-status"],
)
def test_a_subresource_the_crd_does_not_define_is_the_resources_not_found(
    client: TestClient,
    store: MemoryStore,
    crd_factory: Callable[..., JSON],
    method: str,
    subresource: str,
) -> None:
    """Upstream's CRD handler answers the resource's NotFound, whatever the verb (the HPA
    reports its text when a target has no scale subresource)."""
    plain = crd_factory(plural="gizmos", kind="Gizmo", short_names=(), categories=())
    for version in plain["spec"]["versions"]:
        version["subresources"] = {}
    store.create(CRD_RESOURCE, plain)
    url = "/apis/example.com/v1/namespaces/default/gizmos"
    gizmo = {"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "g1"}}
    assert client.post(url, json=gizmo).status_code == 201
    response = client.request(method, f"{url}/g1/{subresource}", json={})
    assert response.status_code == 404
    body = response.json()
    assert (body["reason"], body["message"]) == ("NotFound", 'gizmos.example.com "g1" not found')
    assert body["details"] == {"name": "g1", "group": "example.com", "kind": "gizmos"}
