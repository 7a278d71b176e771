"""managedFields on every write and server-side apply, over HTTP (``create_app``) and
through ``InProcessApi``: create/update by apply, conflicts (409 body), force, shared
ownership, pruning, Update entries named by ``fieldManager`` or the User-Agent, ``/scale``
recorded on the parent's ``spec.replicas``, dryRun, and managedFields sent by a client."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from starlette.testclient import TestClient

from podscale.api.kinds import resource_for
from podscale.apiserver.fieldmanager.managed import decode_managed_fields, encode_managed_fields
from podscale.apiserver.operations.field_owners import decode_entries, store_entries
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi

JSON = dict[str, Any]
APPLY = "application/apply-patch+yaml"
CM_PATH = "/api/v1/namespaces/default/configmaps/cfg"
DEPLOY_PATH = "/apis/apps/v1/namespaces/default/deployments/web"


def configmap(**data: str) -> JSON:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": data}


def deployment(replicas: int = 2, image: str = "nginx") -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": image}]},
            },
        },
    }


def apply(client: TestClient, path: str, body: JSON, manager: str, **query: str) -> Any:
    params = {"fieldManager": manager, **query}
    return client.patch(
        path, content=orjson.dumps(body), headers={"content-type": APPLY}, params=params
    )


def owners(obj: JSON) -> dict[tuple[str, str, str], JSON]:
    """The entries by (manager, operation, subresource)."""
    return {
        (e["manager"], e["operation"], e.get("subresource", "")): e
        for e in obj["metadata"].get("managedFields", [])
    }


def fields(obj: JSON, manager: str, operation: str = "Apply", sub: str = "") -> JSON:
    entry: JSON = owners(obj)[(manager, operation, sub)]
    return entry["fieldsV1"]


def test_apply_creates_an_absent_object_with_201_and_an_apply_entry(client: TestClient) -> None:
    response = apply(client, CM_PATH, configmap(a="1"), "alice")
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["data"] == {"a": "1"}
    (entry,) = created["metadata"]["managedFields"]
    assert entry == {
        "manager": "alice",
        "operation": "Apply",
        "apiVersion": "v1",
        "time": "2026-01-02T03:04:05Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:data": {"f:a": {}}},
    }


def test_apply_requires_a_field_manager(client: TestClient) -> None:
    response = client.patch(
        CM_PATH, content=orjson.dumps(configmap(a="1")), headers={"content-type": APPLY}
    )
    assert response.status_code == 422
    assert "fieldManager: Required value: is required for apply patch" in response.json()["message"]


def test_conflict_is_a_409_naming_manager_and_field_and_force_takes_it(
    client: TestClient,
) -> None:
    assert apply(client, CM_PATH, configmap(a="1"), "alice").status_code == 201
    response = apply(client, CM_PATH, configmap(a="2"), "bob")
    assert response.status_code == 409
    status = response.json()
    assert status["reason"] == "Conflict"
    assert status["message"] == 'Apply failed with 1 conflict: conflict with "alice": .data.a'
    assert status["details"]["causes"] == [
        {"reason": "FieldManagerConflict", "message": 'conflict with "alice"', "field": ".data.a"}
    ]
    forced = apply(client, CM_PATH, configmap(a="2"), "bob", force="true")
    assert forced.status_code == 200, forced.text
    obj = forced.json()
    assert obj["data"] == {"a": "2"}
    assert fields(obj, "bob") == {"f:data": {"f:a": {}}}
    assert ("alice", "Apply", "") not in owners(obj)  # it owned nothing else


def test_same_value_is_shared_and_a_field_no_longer_applied_is_removed(
    client: TestClient,
) -> None:
    apply(client, CM_PATH, configmap(a="1", b="1"), "alice")
    shared = apply(client, CM_PATH, configmap(a="1"), "bob")
    assert shared.status_code == 200
    assert fields(shared.json(), "bob") == {"f:data": {"f:a": {}}}
    # alice stops applying both: b (hers alone) goes, a (shared with bob) stays.
    dropped = apply(client, CM_PATH, configmap(), "alice").json()
    assert dropped["data"] == {"a": "1"}


def test_put_and_patch_record_update_entries_by_field_manager_or_user_agent(
    client: TestClient,
) -> None:
    created = client.post(
        "/api/v1/namespaces/default/configmaps",
        json=configmap(a="1"),
        headers={"user-agent": "kubectl/v1.33.0 (linux/amd64) kubernetes/abc"},
    ).json()
    assert fields(created, "kubectl", "Update") == {"f:data": {".": {}, "f:a": {}}}
    created["data"]["b"] = "2"
    put = client.put(CM_PATH, json=created, params={"fieldManager": "editor"}).json()
    assert fields(put, "editor", "Update") == {"f:data": {"f:b": {}}}
    patched = client.patch(
        CM_PATH,
        json={"data": {"a": "3"}},
        headers={"content-type": "application/merge-patch+json"},
        params={"fieldManager": "kubectl-patch"},
    ).json()
    assert fields(patched, "kubectl-patch", "Update") == {"f:data": {"f:a": {}}}
    assert fields(patched, "kubectl", "Update") == {"f:data": {}}


def test_scale_writes_own_the_parents_replicas_with_subresource_scale(
    client: TestClient,
) -> None:
    assert apply(client, DEPLOY_PATH, deployment(2), "kubectl").status_code == 201
    response = client.patch(
        DEPLOY_PATH + "/scale",
        json={"spec": {"replicas": 5}},
        headers={"content-type": "application/merge-patch+json"},
        params={"fieldManager": "kube-controller-manager"},
    )
    assert response.status_code == 200, response.text
    obj = client.get(DEPLOY_PATH).json()
    entry = owners(obj)[("kube-controller-manager", "Update", "scale")]
    assert entry["apiVersion"] == "apps/v1"
    assert entry["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    assert "f:replicas" not in fields(obj, "kubectl")["f:spec"]
    # Re-applying the manifest's replicas is now a conflict with the scaler.
    conflict = apply(client, DEPLOY_PATH, deployment(2), "kubectl")
    assert conflict.status_code == 409
    assert conflict.json()["message"] == (
        'Apply failed with 1 conflict: conflict with "kube-controller-manager" with '
        'subresource "scale" using apps/v1: .spec.replicas'
    )


def test_dry_run_apply_writes_nothing(client: TestClient) -> None:
    response = apply(client, CM_PATH, configmap(a="1"), "alice", dryRun="All")
    assert response.status_code == 201
    assert response.json()["metadata"]["managedFields"][0]["manager"] == "alice"
    assert client.get(CM_PATH).status_code == 404


def test_status_apply_owns_status_only(client: TestClient) -> None:
    apply(client, DEPLOY_PATH, deployment(1), "kubectl")
    body = {**deployment(9), "status": {"observedGeneration": 1}}
    response = apply(client, DEPLOY_PATH + "/status", body, "status-writer")
    assert response.status_code == 200, response.text
    obj = response.json()
    assert obj["spec"]["replicas"] == 1
    assert fields(obj, "status-writer", "Apply", "status") == {
        "f:status": {"f:observedGeneration": {}}
    }


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ([{}], False),
        ([], False),
        (None, True),
    ],
    ids=["single-empty-entry-resets", "empty-list-resets", "absent-keeps-live"],
)
def test_managed_fields_sent_in_a_put(client: TestClient, sent: Any, kept: bool) -> None:
    created = apply(client, CM_PATH, configmap(a="1"), "alice").json()
    if sent is None:
        created["metadata"].pop("managedFields")
    else:
        created["metadata"]["managedFields"] = sent
    updated = client.put(CM_PATH, json=created, params={"fieldManager": "x"}).json()
    assert (
        ("alice", "Apply", "") in owners(updated)
        if kept
        else "managedFields" not in (updated["metadata"])
    )


def test_managed_fields_sent_in_a_patch_replace_the_live_ones(client: TestClient) -> None:
    apply(client, CM_PATH, configmap(a="1"), "kubectl-client-side-apply")
    migrated = [
        {
            "manager": "kubectl",
            "operation": "Apply",
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:a": {}}},
        }
    ]
    response = client.patch(
        CM_PATH,
        json={"metadata": {"managedFields": migrated}},
        headers={"content-type": "application/merge-patch+json"},
    )
    assert response.status_code == 200
    assert response.json()["metadata"]["managedFields"] == migrated


def test_store_entries_encodes_as_encode_managed_fields_does() -> None:
    raw = [
        {"manager": "b", "operation": "Update", "apiVersion": "v1", "time": "2026-01-02T03:04:05Z",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:x": {}}}, "subresource": "status"},
        {"manager": "a", "operation": "Apply", "apiVersion": "v1",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {".": {}, "f:y": {}}}},
    ]  # fmt: skip
    entries = decode_managed_fields(raw)
    meta: JSON = {}
    store_entries(meta, entries)
    assert meta["managedFields"] == encode_managed_fields(entries)
    assert decode_entries(meta["managedFields"]) == decode_managed_fields(meta["managedFields"])


def test_in_process_writes_record_their_field_manager(client: TestClient) -> None:
    api = InProcessApi.for_app(client.app)  # type: ignore[arg-type]
    cm = resource_for("", "v1", "configmaps")

    async def run() -> JSON:
        await api.create(cm, "default", configmap(a="1"))
        controllers = api.with_field_manager("kube-controller-manager")
        await controllers.patch(cm, "default", "cfg", {"data": {"b": "2"}})
        with pytest.raises(ApiError) as conflict:
            await api.patch(
                cm, "default", "cfg", configmap(b="3"), content_type=APPLY, field_manager="gitops"
            )
        assert (conflict.value.status, conflict.value.reason) == (409, "Conflict")
        return await api.patch(
            cm, "default", "cfg", configmap(b="3"), content_type=APPLY,
            field_manager="gitops", force=True,
        )  # fmt: skip

    obj = asyncio.run(run())
    assert set(owners(obj)) == {("podscale", "Update", ""), ("gitops", "Apply", "")}
    assert fields(obj, "gitops") == {"f:data": {"f:b": {}}}
