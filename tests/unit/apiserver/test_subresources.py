"""status and scale subresources, PATCH of whole objects, and HPA v1/v2 served from one storage."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

JSON = dict[str, Any]
RS = "/apis/apps/v1/namespaces/default/replicasets"
HPA_V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
HPA_V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
SMP = {"content-type": "application/strategic-merge-patch+json"}
MERGE = {"content-type": "application/merge-patch+json"}


def test_scale_get(client: TestClient, created_rs: JSON) -> None:
    body = client.get(f"{RS}/web/scale").json()
    assert body == {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "uid": created_rs["metadata"]["uid"],
            "resourceVersion": created_rs["metadata"]["resourceVersion"],
            "creationTimestamp": "2026-01-02T03:04:05Z",
        },
        "spec": {"replicas": 2},
        "status": {"replicas": 0, "selector": "app=web"},
    }


@pytest.mark.parametrize("headers", [MERGE, SMP], ids=["merge-patch", "strategic-merge-patch"])
def test_scale_patch_writes_parent_replicas(
    client: TestClient, created_rs: JSON, headers: dict[str, str]
) -> None:
    response = client.patch(f"{RS}/web/scale", content=b'{"spec":{"replicas":3}}', headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["spec"]["replicas"] == 3
    assert client.get(f"{RS}/web").json()["spec"]["replicas"] == 3


def test_scale_put_with_stale_resource_version_conflicts(
    client: TestClient, created_rs: JSON
) -> None:
    scale = client.get(f"{RS}/web/scale").json()
    scale["spec"]["replicas"] = 4
    assert client.put(f"{RS}/web/scale", json=scale).status_code == 200
    scale["spec"]["replicas"] = 5
    stale = client.put(f"{RS}/web/scale", json=scale)
    assert stale.status_code == 409
    assert stale.json()["message"].startswith(
        'Operation cannot be fulfilled on replicasets.apps "web"'
    )
    assert client.get(f"{RS}/web").json()["spec"]["replicas"] == 4


def test_scale_negative_replicas_is_invalid(client: TestClient, created_rs: JSON) -> None:
    scale = client.get(f"{RS}/web/scale").json()
    scale["spec"]["replicas"] = -1
    response = client.put(f"{RS}/web/scale", json=scale)
    assert response.status_code == 422
    assert response.json()["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: -1: must be greater than or equal to 0",
            "field": "spec.replicas",
        }
    ]


def test_scale_of_deployment_and_missing_parent(
    client: TestClient, make_rs: Callable[..., JSON]
) -> None:
    deploy = make_rs("d", kind="Deployment")
    assert (
        client.post("/apis/apps/v1/namespaces/default/deployments", json=deploy).status_code == 201
    )
    assert (
        client.get("/apis/apps/v1/namespaces/default/deployments/d/scale").json()["status"][
            "selector"
        ]
        == "app=d"
    )
    missing = client.get(f"{RS}/nosuch/scale")
    assert missing.json()["message"] == 'replicasets.apps "nosuch" not found'


def test_status_update_keeps_the_spec(client: TestClient, created_rs: JSON) -> None:
    obj = json.loads(json.dumps(created_rs))
    obj["status"] = {"replicas": 2, "readyReplicas": 1}
    obj["spec"]["replicas"] = 7
    obj["metadata"]["labels"] = {"changed": "yes"}
    response = client.put(f"{RS}/web/status", json=obj)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == {"replicas": 2, "readyReplicas": 1}
    assert body["spec"]["replicas"] == 2
    assert body["metadata"]["labels"] == {"changed": "yes"}  # as upstream's RS strategy
    assert client.get(f"{RS}/web/status").json()["status"]["readyReplicas"] == 1


def test_status_patch_and_validation(client: TestClient, created_rs: JSON) -> None:
    ok = client.patch(f"{RS}/web/status", content=b'{"status":{"replicas":3}}', headers=MERGE)
    assert ok.status_code == 200
    assert ok.json()["status"]["replicas"] == 3
    bad = client.patch(
        f"{RS}/web/status", content=b'{"status":{"replicas":1,"readyReplicas":2}}', headers=MERGE
    )
    assert bad.status_code == 422
    assert bad.json()["details"]["causes"][0]["field"] == "status.readyReplicas"


def test_patch_object_strategic_merge(client: TestClient, created_rs: JSON) -> None:
    patch = {"metadata": {"labels": {"tier": "front"}}, "spec": {"replicas": 4}}
    response = client.patch(f"{RS}/web", content=json.dumps(patch).encode(), headers=SMP)
    assert response.status_code == 200, response.text
    assert response.json()["metadata"]["labels"] == {"app": "web", "tier": "front"}
    assert response.json()["spec"]["replicas"] == 4


def test_patch_json_patch_and_errors(client: TestClient, created_rs: JSON) -> None:
    ops = [{"op": "replace", "path": "/spec/replicas", "value": 6}]
    ok = client.patch(
        f"{RS}/web", json=ops, headers={"content-type": "application/json-patch+json"}
    )
    assert ok.json()["spec"]["replicas"] == 6
    missing = client.patch(f"{RS}/nosuch", content=b"{}", headers=MERGE)
    assert missing.status_code == 404
    invalid = client.patch(f"{RS}/web", content=b'{"spec":{"replicas":-3}}', headers=MERGE)
    assert invalid.status_code == 422
    unsupported = client.patch(f"{RS}/web", content=b"{}", headers={"content-type": "text/plain"})
    assert unsupported.status_code == 415
    stale = client.patch(
        f"{RS}/web",
        content=b'{"metadata":{"resourceVersion":"1"},"spec":{"replicas":1}}',
        headers=MERGE,
    )
    assert stale.status_code == 409


def test_hpa_created_in_v1_reads_in_v2_and_back(client: TestClient) -> None:
    v1 = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web"},
            "maxReplicas": 5,
            "targetCPUUtilizationPercentage": 70,
        },
        "status": {"currentReplicas": 0, "desiredReplicas": 0},
    }
    created = client.post(HPA_V1, json=v1)
    assert created.status_code == 201, created.text
    assert created.json()["spec"]["minReplicas"] == 1
    v2 = client.get(f"{HPA_V2}/web").json()
    assert v2["apiVersion"] == "autoscaling/v2"
    assert v2["spec"]["metrics"] == [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 70},
            },
        }
    ]
    assert v2["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    v2["spec"]["maxReplicas"] = 8
    assert client.put(f"{HPA_V2}/web", json=v2).status_code == 200
    back = client.get(f"{HPA_V1}/web").json()
    assert (back["spec"]["maxReplicas"], back["spec"]["targetCPUUtilizationPercentage"]) == (8, 70)
    listed = client.get(HPA_V1).json()
    assert listed["kind"] == "HorizontalPodAutoscalerList"
    assert listed["apiVersion"] == "autoscaling/v1"
    assert listed["items"][0]["apiVersion"] == "autoscaling/v1"


def test_hpa_v2_behavior_survives_a_v1_update(
    client: TestClient, make_hpa: Callable[..., JSON]
) -> None:
    hpa = make_hpa()
    hpa["spec"]["behavior"] = {"scaleDown": {"stabilizationWindowSeconds": 60}}
    assert client.post(HPA_V2, json=hpa).status_code == 201
    v1 = client.get(f"{HPA_V1}/web").json()
    v1["spec"]["maxReplicas"] = 9
    assert client.put(f"{HPA_V1}/web", json=v1).status_code == 200
    v2 = client.get(f"{HPA_V2}/web").json()
    assert v2["spec"]["maxReplicas"] == 9
    assert v2["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] == 60


def test_hpa_invalid_and_status_subresource(
    client: TestClient, make_hpa: Callable[..., JSON]
) -> None:
    bad = client.post(HPA_V2, json=make_hpa(max_replicas=0))
    assert bad.status_code == 422
    assert bad.json()["message"].startswith(
        'HorizontalPodAutoscaler.autoscaling "web" is invalid: '
    )
    assert client.post(HPA_V2, json=make_hpa()).status_code == 201
    patch = b'{"status":{"currentReplicas":2,"desiredReplicas":3}}'
    response = client.patch(f"{HPA_V2}/web/status", content=patch, headers=MERGE)
    assert response.status_code == 200, response.text
    assert client.get(f"{HPA_V1}/web").json()["status"]["desiredReplicas"] == 3
    assert client.get(f"{HPA_V2}/web/scale").status_code == 404
