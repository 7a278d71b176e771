"""CustomResourceDefinition as a built-in kind over HTTP: create, get, list, watch, status and
delete, discovery and the OpenAPI document, with the server's strategy fields."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

JSON = dict[str, Any]
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
NAME = "cacheclusters.caching.podscale.dev"


def test_create_get_list_delete_round_trip(
    client: TestClient, make_crd: Callable[[], JSON]
) -> None:
    created = client.post(CRDS, json=make_crd())
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["metadata"]["name"] == NAME
    assert "namespace" not in body["metadata"]
    assert body["metadata"]["generation"] == 1
    fetched = client.get(f"{CRDS}/{NAME}").json()
    assert fetched["spec"] == body["spec"]
    # Arbitrary JSON in default/enum/example survives the round trip unchanged.
    spec_props = fetched["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
    assert spec_props["spec"]["properties"]["tier"]["enum"] == ["hot", "warm", "cold"]
    listed = client.get(CRDS).json()
    assert listed["kind"] == "CustomResourceDefinitionList"
    assert [item["metadata"]["name"] for item in listed["items"]] == [NAME]
    deleted = client.delete(f"{CRDS}/{NAME}")
    assert deleted.status_code == 200
    missing = client.get(f"{CRDS}/{NAME}")
    assert missing.status_code == 404
    assert missing.json()["message"] == (
        f'customresourcedefinitions.apiextensions.k8s.io "{NAME}" not found'
    )


def test_is_cluster_scoped(client: TestClient, make_crd: Callable[[], JSON]) -> None:
    namespaced = client.post(
        "/apis/apiextensions.k8s.io/v1/namespaces/default/customresourcedefinitions",
        json=make_crd(),
    )
    assert namespaced.status_code == 404


def test_discovery_lists_the_group_and_resource(client: TestClient) -> None:
    groups = client.get("/apis").json()["groups"]
    names = [group["name"] for group in groups]
    assert "apiextensions.k8s.io" in names
    resources = client.get("/apis/apiextensions.k8s.io/v1").json()["resources"]
    crd = next(r for r in resources if r["name"] == "customresourcedefinitions")
    assert crd["kind"] == "CustomResourceDefinition"
    assert crd["namespaced"] is False
    assert crd["shortNames"] == ["crd", "crds"]
    assert crd["categories"] == ["api-extensions"]
    assert crd["singularName"] == "customresourcedefinition"
    assert any(r["name"] == "customresourcedefinitions/status" for r in resources)


def test_openapi_v3_document_describes_the_kind(client: TestClient) -> None:
    index = client.get("/openapi/v3").json()["paths"]
    url = index["apis/apiextensions.k8s.io/v1"]["serverRelativeURL"]
    schemas = client.get(url).json()["components"]["schemas"]
    crd = schemas[
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"
    ]
    assert crd["x-kubernetes-group-version-kind"] == [
        {"group": "apiextensions.k8s.io", "kind": "CustomResourceDefinition", "version": "v1"}
    ]


def test_wrong_value_type_deep_in_a_schema_is_a_400(
    client: TestClient, make_crd: Callable[[], JSON]
) -> None:
    crd = make_crd()
    items = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
        "properties"
    ]["shards"]["items"]
    items["properties"]["zone"]["maxLength"] = "ten"
    response = client.post(CRDS, json=crd)
    assert response.status_code == 400
    assert (
        "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.shards"
        in (response.json()["message"])
    )


def test_unknown_schema_keyword_is_refused_under_strict_validation(
    client: TestClient, make_crd: Callable[[], JSON]
) -> None:
    crd = make_crd()
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["propertiess"] = {}
    response = client.post(f"{CRDS}?fieldValidation=Strict", json=crd)
    assert response.status_code == 400
    assert response.json()["message"] == (
        'strict decoding error: unknown field "spec.versions[0].schema.openAPIV3Schema.propertiess"'
    )


def test_watch_sees_the_create(client: TestClient, make_crd: Callable[[], JSON]) -> None:
    client.post(CRDS, json=make_crd())
    with client.stream("GET", f"{CRDS}?watch=true&resourceVersion=0&timeoutSeconds=1") as stream:
        first = json.loads(next(stream.iter_lines()))
    assert first["type"] == "ADDED"
    assert first["object"]["metadata"]["name"] == NAME


def test_invalid_crd_is_a_422_with_upstream_causes(
    client: TestClient, make_crd: Callable[[], JSON]
) -> None:
    crd = make_crd()
    crd["metadata"]["name"] = "caches.caching.podscale.dev"
    response = client.post(CRDS, json=crd)
    assert response.status_code == 422
    body = response.json()
    assert body["reason"] == "Invalid"
    assert body["message"] == (
        'CustomResourceDefinition.apiextensions.k8s.io "caches.caching.podscale.dev" is invalid: '
        'metadata.name: Invalid value: "caches.caching.podscale.dev": '
        'must be spec.names.plural+"."+spec.group'
    )


def test_created_crd_is_defaulted_and_records_its_storage_version(
    client: TestClient, make_crd: Callable[[], JSON]
) -> None:
    crd = make_crd()
    del crd["spec"]["names"]["singular"], crd["spec"]["names"]["listKind"]
    crd["status"] = {"storedVersions": ["v0"], "conditions": [{"type": "Established"}]}
    body = client.post(CRDS, json=crd).json()
    assert body["spec"]["names"]["singular"] == "cachecluster"
    assert body["spec"]["names"]["listKind"] == "CacheClusterList"
    assert body["spec"]["conversion"] == {"strategy": "None"}
    # The status is the server's: reset on create, then the storage version recorded.
    assert body["status"] == {
        "storedVersions": ["v1"],
        "acceptedNames": {"plural": "", "kind": ""},
    }


def test_update_bumps_generation_and_keeps_status(
    client: TestClient, make_crd: Callable[[], JSON]
) -> None:
    assert client.post(CRDS, json=make_crd()).status_code == 201
    # The CRD's status controller wrote its conditions since: work from the current object.
    created = client.get(f"{CRDS}/{NAME}").json()
    status = {
        "storedVersions": ["v1"],
        "acceptedNames": {"plural": "cacheclusters", "kind": "CacheCluster"},
    }
    written = client.put(f"{CRDS}/{NAME}/status", json={**created, "status": status})
    assert written.status_code == 200, written.text
    current = client.get(f"{CRDS}/{NAME}").json()  # the status controller answered again
    current["spec"]["versions"][1]["storage"] = True
    current["spec"]["versions"][0]["storage"] = False
    current["status"] = {}
    updated = client.put(f"{CRDS}/{NAME}", json=current)
    assert updated.status_code == 200, updated.text
    body = updated.json()
    assert body["metadata"]["generation"] == 2
    assert body["status"]["acceptedNames"]["kind"] == "CacheCluster"
    # Both versions have now been storage versions: neither may be dropped from spec.
    assert body["status"]["storedVersions"] == ["v1", "v1beta1"]
    body["spec"]["versions"] = body["spec"]["versions"][1:]
    refused = client.put(f"{CRDS}/{NAME}", json=body)
    assert refused.status_code == 422
    assert (
        'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions'
        in (refused.json()["message"])
    )


def test_immutable_group_on_update(client: TestClient, make_crd: Callable[[], JSON]) -> None:
    assert client.post(CRDS, json=make_crd()).status_code == 201
    created = client.get(f"{CRDS}/{NAME}").json()  # as conditioned by the status controller
    created["spec"]["group"] = "other.podscale.dev"
    response = client.put(f"{CRDS}/{NAME}", json=created)
    assert response.status_code == 422
    assert (
        'spec.group: Invalid value: "other.podscale.dev": field is immutable'
        in (response.json()["message"])
    )


def test_table_has_name_and_created_at(client: TestClient, make_crd: Callable[[], JSON]) -> None:
    client.post(CRDS, json=make_crd())
    table = client.get(CRDS, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    body = table.json()
    assert body["kind"] == "Table"
    columns = [(c["name"], c["type"], c["format"]) for c in body["columnDefinitions"]]
    assert columns == [("Name", "string", "name"), ("Created At", "date", "")]
    assert body["rows"][0]["cells"] == [NAME, "2026-01-02T03:04:05Z"]


def test_official_client_models_read_the_responses(
    client: TestClient, make_crd: Callable[[], JSON]
) -> None:
    kubernetes = pytest.importorskip("kubernetes", reason="the official kubernetes client")
    api = kubernetes.client.ApiClient()
    created = client.post(CRDS, json=make_crd())
    crd = api.deserialize(created.text, "V1CustomResourceDefinition", "application/json")
    assert crd.spec.names.short_names == ["cc"]
    assert crd.status.stored_versions == ["v1"]
    assert crd.status.accepted_names.kind == ""
    schema = crd.spec.versions[0].schema.open_apiv3_schema
    assert schema.properties["spec"].properties["memory"].x_kubernetes_int_or_string is True
    listed = client.get(CRDS)
    items = api.deserialize(listed.text, "V1CustomResourceDefinitionList", "application/json")
    assert [item.metadata.name for item in items.items] == [NAME]
