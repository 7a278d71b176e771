"""A Scale (PUT, or after a PATCH) with the wrong JSON types is a 400, never a 500."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

RS = {
    "apiVersion": "apps/v1",
    "kind": "ReplicaSet",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "a", "image": "nginx"}]},
        },
    },
}
SCALE = "/apis/apps/v1/namespaces/default/replicasets/web/scale"
MERGE = {"Content-Type": "application/merge-patch+json"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '{"metadata":{"name":"web"},"spec":[null]}',
            "cannot unmarshal array into Go struct field Scale.spec",
        ),
        ('{"spec":"x"}', "cannot unmarshal string into Go struct field Scale.spec"),
        ('{"status":[1]}', "cannot unmarshal array into Go struct field Scale.status"),
        (
            '{"spec":{"replicas":"3"}}',
            "cannot unmarshal string into Go struct field ScaleSpec.spec.replicas",
        ),
        (
            '{"spec":{"replicas":2.5}}',
            "cannot unmarshal number 2.5 into Go struct field ScaleSpec.spec.replicas",
        ),
        (
            '{"spec":{"replicas":true}}',
            "cannot unmarshal bool into Go struct field ScaleSpec.spec.replicas",
        ),
    ],
    ids=[
        "spec-array",
        "spec-string",
        "status-array",
        "replicas-string",
        "replicas-float",
        "replicas-bool",
    ],
)
def test_patched_scale_with_wrong_types_is_a_bad_request(
    client: TestClient, body: str, message: str
) -> None:
    assert client.post("/apis/apps/v1/namespaces/default/replicasets", json=RS).status_code == 201
    response = client.patch(SCALE, content=body, headers=MERGE)
    assert response.status_code == 400, response.text
    status: dict[str, Any] = response.json()
    assert status["reason"] == "BadRequest"
    assert message in status["message"]
    assert client.get(SCALE).json()["spec"]["replicas"] == 1  # nothing was written


def test_put_scale_with_a_string_replicas_is_a_bad_request(client: TestClient) -> None:
    assert client.post("/apis/apps/v1/namespaces/default/replicasets", json=RS).status_code == 201
    scale = client.get(SCALE).json()
    scale["spec"]["replicas"] = "4"
    assert client.put(SCALE, json=scale).status_code == 400
    scale["spec"]["replicas"] = 4
    assert client.put(SCALE, json=scale).json()["spec"]["replicas"] == 4
