"""Create, get, list, update and delete through the HTTP API, with upstream's Status errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

JSON = dict[str, Any]
RS = "/apis/apps/v1/namespaces/default/replicasets"


def test_create_returns_201_with_server_fields_and_defaults(
    client: TestClient, make_rs: Callable[..., JSON]
) -> None:
    response = client.post(RS, json=make_rs())
    assert response.status_code == 201
    body = response.json()
    meta = body["metadata"]
    assert meta["namespace"] == "default"
    assert meta["resourceVersion"]
    assert meta["uid"]
    assert meta["generation"] == 1
    assert meta["creationTimestamp"] == "2026-01-02T03:04:05Z"
    # Defaulting ran (upstream's container defaults), and status starts as Go's zero value.
    container = body["spec"]["template"]["spec"]["containers"][0]
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert body["status"] == {"replicas": 0}


def test_create_without_content_type_is_json(
    client: TestClient, make_rs: Callable[..., JSON]
) -> None:
    import json

    response = client.post(RS, content=json.dumps(make_rs()).encode())
    assert response.status_code == 201


def test_get_missing_is_upstream_not_found(client: TestClient) -> None:
    response = client.get(f"{RS}/nosuch")
    assert response.status_code == 404
    assert response.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'replicasets.apps "nosuch" not found',
        "reason": "NotFound",
        "details": {"name": "nosuch", "group": "apps", "kind": "replicasets"},
        "code": 404,
    }


def test_core_not_found_has_no_group(client: TestClient) -> None:
    body = client.get("/api/v1/namespaces/default/pods/x").json()
    assert body["message"] == 'pods "x" not found'
    assert body["details"] == {"name": "x", "kind": "pods"}


def test_duplicate_create_is_already_exists(
    client: TestClient, created_rs: JSON, make_rs: Callable[..., JSON]
) -> None:
    response = client.post(RS, json=make_rs())
    assert response.status_code == 409
    body = response.json()
    assert body["reason"] == "AlreadyExists"
    assert body["message"] == 'replicasets.apps "web" already exists'
    assert body["details"] == {"name": "web", "group": "apps", "kind": "replicasets"}


def test_invalid_object_is_422_with_causes(
    client: TestClient, make_rs: Callable[..., JSON]
) -> None:
    response = client.post(RS, json=make_rs(name="neg", replicas=-1))
    assert response.status_code == 422
    body = response.json()
    assert body["reason"] == "Invalid"
    assert body["details"]["kind"] == "ReplicaSet"
    assert body["details"]["name"] == "neg"
    assert {
        "reason": "FieldValueInvalid",
        "message": "Invalid value: -1: must be greater than or equal to 0",
        "field": "spec.replicas",
    } in body["details"]["causes"]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda o: o["metadata"].update(namespace="other"),
            "the namespace of the provided object does not match the namespace sent on the request",
        ),
        (
            lambda o: o.update(apiVersion="autoscaling/v2"),
            "the API version in the data (autoscaling/v2) does not match the expected API "
            "version (apps/v1)",
        ),
        (
            lambda o: o["metadata"].update(resourceVersion="5"),
            "resourceVersion should not be set on objects to be created",
        ),
    ],
    ids=["namespace-mismatch", "api-version-mismatch", "resource-version-set"],
)
def test_create_request_checks(
    client: TestClient, make_rs: Callable[..., JSON], mutate: Callable[[JSON], None], message: str
) -> None:
    obj = make_rs()
    mutate(obj)
    response = client.post(RS, json=obj)
    assert response.status_code == 400
    assert response.json()["message"] == message
    assert response.json()["reason"] == "BadRequest"


def test_generate_name(client: TestClient, make_rs: Callable[..., JSON]) -> None:
    obj = make_rs()
    del obj["metadata"]["name"]
    obj["metadata"]["generateName"] = "web-"
    name = client.post(RS, json=obj).json()["metadata"]["name"]
    assert name.startswith("web-")
    assert len(name) == len("web-") + 5


def test_dry_run_validates_without_storing(
    client: TestClient, make_rs: Callable[..., JSON]
) -> None:
    response = client.post(f"{RS}?dryRun=All", json=make_rs())
    assert response.status_code == 201
    assert client.get(f"{RS}/web").status_code == 404
    assert client.post(f"{RS}?dryRun=All", json=make_rs(replicas=-1)).status_code == 422


def test_list_shape_and_empty_items(client: TestClient) -> None:
    body = client.get(RS).json()
    assert body["kind"] == "ReplicaSetList"
    assert body["apiVersion"] == "apps/v1"
    assert body["items"] == []
    assert body["metadata"]["resourceVersion"].isdigit()


def test_list_all_namespaces_and_label_selector(
    client: TestClient, make_rs: Callable[..., JSON]
) -> None:
    client.post("/api/v1/namespaces", json={"metadata": {"name": "other"}})
    client.post(RS, json=make_rs("a", tier="front"))
    client.post("/apis/apps/v1/namespaces/other/replicasets", json=make_rs("b", tier="back"))
    names = [i["metadata"]["name"] for i in client.get("/apis/apps/v1/replicasets").json()["items"]]
    assert names == ["a", "b"]
    selected = client.get("/apis/apps/v1/replicasets?labelSelector=tier%3Dback").json()["items"]
    assert [i["metadata"]["name"] for i in selected] == ["b"]


def test_list_limit_and_continue(client: TestClient, make_rs: Callable[..., JSON]) -> None:
    for name in ("a", "b", "c"):
        client.post(RS, json=make_rs(name))
    first = client.get(f"{RS}?limit=2").json()
    assert [i["metadata"]["name"] for i in first["items"]] == ["a", "b"]
    token = first["metadata"]["continue"]
    second = client.get(RS, params={"limit": "2", "continue": token}).json()
    assert [i["metadata"]["name"] for i in second["items"]] == ["c"]
    assert "continue" not in second["metadata"]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("status.phase=Running", ["a"]),
        ("spec.nodeName=n2", ["b"]),
        ("metadata.name!=a", ["b"]),
        ("metadata.namespace=default,status.phase==Pending", ["b"]),
    ],
    ids=["phase", "node", "not-name", "namespace-and-phase"],
)
def test_pod_field_selectors(
    client: TestClient, make_pod: Callable[..., JSON], selector: str, expected: list[str]
) -> None:
    pods = "/api/v1/namespaces/default/pods"
    client.post(pods, json=make_pod("a", "Running", "n1"))
    client.post(pods, json=make_pod("b", "Pending", "n2"))
    # A new Pod starts Pending (upstream's PrepareForCreate); its phase moves through /status.
    running = client.patch(
        f"{pods}/a/status",
        content=b'{"status":{"phase":"Running"}}',
        headers={"content-type": "application/merge-patch+json"},
    )
    assert running.status_code == 200, running.text
    body = client.get("/api/v1/namespaces/default/pods", params={"fieldSelector": selector}).json()
    assert [i["metadata"]["name"] for i in body["items"]] == expected


def test_unsupported_field_label_is_400(client: TestClient) -> None:
    response = client.get(f"{RS}?fieldSelector=spec.foo%3Dx")
    assert response.status_code == 400
    assert response.json()["message"] == "field label not supported: spec.foo"


def test_events_filtered_by_involved_object(client: TestClient) -> None:
    def event(name: str, target: str) -> JSON:
        return {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name},
            "involvedObject": {
                "kind": "HorizontalPodAutoscaler",
                "name": target,
                "namespace": "default",
            },
            "reason": "SuccessfulRescale",
            "message": "New size: 3",
            "type": "Normal",
            "source": {"component": "horizontal-pod-autoscaler"},
            "count": 1,
        }

    path = "/api/v1/namespaces/default/events"
    assert client.post(path, json=event("e1", "web")).status_code == 201
    assert client.post(path, json=event("e2", "api")).status_code == 201
    selector = (
        "involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=web,"
        "involvedObject.namespace=default"
    )
    items = client.get(path, params={"fieldSelector": selector}).json()["items"]
    assert [i["metadata"]["name"] for i in items] == ["e1"]


def test_update_and_stale_resource_version(client: TestClient, created_rs: JSON) -> None:
    obj = dict(created_rs)
    obj["spec"] = {**created_rs["spec"], "replicas": 4}
    response = client.put(f"{RS}/web", json=obj)
    assert response.status_code == 200
    assert response.json()["spec"]["replicas"] == 4
    assert response.json()["metadata"]["generation"] == 2
    stale = client.put(f"{RS}/web", json=obj)
    assert stale.status_code == 409
    assert stale.json()["reason"] == "Conflict"
    assert stale.json()["message"] == (
        'Operation cannot be fulfilled on replicasets.apps "web": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )


def test_update_ignores_status_and_checks_name(client: TestClient, created_rs: JSON) -> None:
    obj = {**created_rs, "status": {"replicas": 9}}
    assert client.put(f"{RS}/web", json=obj).json()["status"] == {"replicas": 0}
    renamed = client.put(f"{RS}/other", json=obj)
    assert renamed.status_code == 400
    assert renamed.json()["message"] == (
        "the name of the object (web) does not match the name on the URL (other)"
    )


def test_update_missing_is_404(client: TestClient, make_rs: Callable[..., JSON]) -> None:
    assert client.put(f"{RS}/web", json=make_rs()).status_code == 404


def test_delete_returns_status_success_then_404(client: TestClient, created_rs: JSON) -> None:
    response = client.delete(f"{RS}/web")
    assert response.status_code == 200
    assert response.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {
            "name": "web",
            "group": "apps",
            "kind": "replicasets",
            "uid": created_rs["metadata"]["uid"],
        },
    }
    assert client.delete(f"{RS}/web").json()["message"] == 'replicasets.apps "web" not found'


@pytest.mark.parametrize(
    ("body", "query", "finalizer"),
    [
        ({"propagationPolicy": "Foreground"}, "", "foregroundDeletion"),
        ({"propagationPolicy": "Orphan"}, "", "orphan"),
        ({}, "?propagationPolicy=Orphan", "orphan"),
        ({"orphanDependents": True}, "", "orphan"),
    ],
    ids=["foreground-body", "orphan-body", "orphan-query", "orphan-dependents"],
)
def test_delete_propagation_waits_on_finalizer(
    client: TestClient, created_rs: JSON, body: JSON, query: str, finalizer: str
) -> None:
    response = client.request("DELETE", f"{RS}/web{query}", json=body)
    assert response.status_code == 202
    assert response.json()["metadata"]["finalizers"] == [finalizer]
    assert "deletionTimestamp" in response.json()["metadata"]
    assert client.get(f"{RS}/web").status_code == 200


def test_delete_background_deletes_now(client: TestClient, created_rs: JSON) -> None:
    response = client.request("DELETE", f"{RS}/web", json={"propagationPolicy": "Background"})
    assert response.status_code == 200
    assert client.get(f"{RS}/web").status_code == 404


def test_delete_bad_policy_is_invalid(client: TestClient, created_rs: JSON) -> None:
    response = client.request("DELETE", f"{RS}/web", json={"propagationPolicy": "Foo"})
    assert response.status_code == 422
    assert response.json()["message"] == (
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Foo": '
        'supported values: "Background", "Foreground", "Orphan"'
    )


def test_delete_precondition_conflict(client: TestClient, created_rs: JSON) -> None:
    response = client.request("DELETE", f"{RS}/web", json={"preconditions": {"uid": "not-the-uid"}})
    assert response.status_code == 409
    assert response.json()["reason"] == "Conflict"
    assert "Precondition failed: UID in precondition: not-the-uid" in response.json()["message"]


def test_pod_delete_returns_the_object(client: TestClient, make_pod: Callable[..., JSON]) -> None:
    client.post("/api/v1/namespaces/default/pods", json=make_pod("a"))
    response = client.delete("/api/v1/namespaces/default/pods/a")
    assert response.status_code == 200
    assert response.json()["kind"] == "Pod"


def test_delete_collection_with_selector(client: TestClient, make_rs: Callable[..., JSON]) -> None:
    for name in ("a", "b"):
        client.post(RS, json=make_rs(name))
    response = client.delete(f"{RS}?labelSelector=app%3Da")
    assert response.status_code == 200
    assert [i["metadata"]["name"] for i in response.json()["items"]] == ["a"]
    remaining = client.get(RS).json()["items"]
    assert [i["metadata"]["name"] for i in remaining] == ["b"]


def test_cluster_scoped_nodes_and_namespaces(client: TestClient) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "namespace": "x"}}
    created = client.post("/api/v1/nodes", json=node)
    assert created.status_code == 201
    assert "namespace" not in created.json()["metadata"]
    assert client.get("/api/v1/nodes/n1").json()["metadata"]["name"] == "n1"
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
    assert client.post("/api/v1/namespaces", json=ns).status_code == 201
    assert client.get("/api/v1/namespaces/team").status_code == 200
    # Namespaces have no deletecollection upstream.
    assert client.delete("/api/v1/namespaces").status_code == 405


@pytest.mark.parametrize(
    ("method", "path", "code"),
    [
        ("POST", "/apis/apps/v1/replicasets", 405),
        ("POST", f"{RS}/web", 405),
        ("GET", "/apis/apps/v1/namespaces/default/nosuch", 404),
        ("GET", "/apis/apps/v1/replicasets/web", 404),
        ("GET", "/api/v1/namespaces/default/nodes", 404),
        ("GET", f"{RS}/web/exec", 404),
        ("DELETE", f"{RS}/web/scale", 405),
        ("GET", "/apis/nogroup/v1", 404),
        ("GET", "/totally/unknown", 404),
    ],
    ids=[
        "create-all-namespaces",
        "post-object",
        "unknown-resource",
        "object-without-namespace",
        "namespaced-cluster-resource",
        "unknown-subresource",
        "delete-scale",
        "unknown-group",
        "unknown-path",
    ],
)
def test_path_and_verb_errors_are_status(
    client: TestClient, method: str, path: str, code: int
) -> None:
    response = client.request(method, path)
    assert response.status_code == code
    body = response.json()
    assert body["kind"] == "Status"
    assert body["code"] == code
    expected_reason = "NotFound" if code == 404 else "MethodNotAllowed"
    assert body["reason"] == expected_reason
