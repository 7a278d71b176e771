"""kubectl autoscale (1.32/1.33) POSTs a protobuf HPA: the server creates it, answers JSON."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

# `kubectl autoscale deployment web --min=2 --max=10 --cpu-percent=80`, as kubectl 1.33.1
# sends it (captured from the real binary; see test_protobuf.py for all captures).
V2_BODY = bytes.fromhex(
    "6b3873000a290a0e6175746f7363616c696e672f76321217486f72697a6f6e74616c506f64417574"
    "6f7363616c657212610a130a0377656212001a0022002a0032003800420012440a1a0a0a4465706c"
    "6f796d656e7412037765621a07617070732f76311002180a22220a085265736f7572636522160a03"
    "637075120f0a0b5574696c697a6174696f6e20501a04180020001a002200"
)
PROTOBUF = {"Content-Type": "application/vnd.kubernetes.protobuf"}
HPAS = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"


def test_protobuf_hpa_create_answers_json(client: TestClient) -> None:
    response = client.post(HPAS, content=V2_BODY, headers=PROTOBUF)
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["metadata"]["name"] == "web"  # generateName "" does not rename it
    assert created["spec"]["minReplicas"] == 2
    assert created["spec"]["maxReplicas"] == 10
    target = created["spec"]["metrics"][0]["resource"]["target"]
    assert target == {"type": "Utilization", "averageUtilization": 80}
    assert client.get(f"{HPAS}/web").status_code == 200


@pytest.mark.parametrize(
    ("path", "body", "code"),
    [
        (HPAS, b"k8s\x00\xff", 400),
        # An HPA sent to the Deployment endpoint: decoded, then refused as a JSON one is.
        ("/apis/apps/v1/namespaces/default/deployments", V2_BODY, 400),
        (HPAS, b"not protobuf", 400),
    ],
    ids=["truncated", "other-kind-url", "no-envelope"],
)
def test_protobuf_refusals(client: TestClient, path: str, body: bytes, code: int) -> None:
    response = client.post(path, content=body, headers=PROTOBUF)
    assert response.status_code == code
    assert response.json()["kind"] == "Status"
