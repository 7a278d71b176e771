"""The manifests of ``examples/crds/`` do through the API what docs/custom-resources.md says.

Each test installs ``workerpool-crd.yaml`` on a fresh API server (``create_app`` over a
memory store, through HTTP as kubectl would send it) and checks one section of the page:
the table columns, the defaults, every error of ``workerpool-invalid.yaml``, the scale and
status subresources, the immutable queue name, ``fieldValidation`` and the versions.
``tests/integration/kubectl/test_docs_crds.py`` runs the page's kubectl commands themselves.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]

EXAMPLES = Path(__file__).parents[2] / "examples" / "crds"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
POOLS = "/apis/demo.podscale.dev/v1/namespaces/default/workerpools"
TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
MERGE = {"content-type": "application/merge-patch+json"}


def example(name: str) -> JSON:
    loaded: JSON = yaml.safe_load((EXAMPLES / name).read_text(encoding="utf-8"))
    return loaded


class FixedClock:
    def now(self) -> datetime:
        return datetime(2026, 11, 26, 10, 0, tzinfo=UTC)


@pytest.fixture
def client() -> TestClient:
    client = TestClient(create_app(MemoryStore(FixedClock()), clock=FixedClock()))
    assert client.post(CRDS, json=example("workerpool-crd.yaml")).status_code == 201
    return client


@pytest.fixture
def pool(client: TestClient) -> JSON:
    response = client.post(POOLS, json=example("workerpool.yaml"))
    assert response.status_code == 201, response.text
    created: JSON = response.json()
    return created


def test_the_crd_is_established_and_discoverable(client: TestClient) -> None:
    crd = client.get(f"{CRDS}/workerpools.demo.podscale.dev").json()
    conditions = {c["type"]: c["status"] for c in crd["status"]["conditions"]}
    assert conditions["NamesAccepted"] == conditions["Established"] == "True"
    resources = client.get("/apis/demo.podscale.dev/v1").json()["resources"]
    pools = next(r for r in resources if r["name"] == "workerpools")
    assert (pools["shortNames"], pools["categories"]) == (["wp"], ["all"])
    assert {r["name"] for r in resources} >= {"workerpools/status", "workerpools/scale"}


def test_printer_columns(client: TestClient, pool: JSON) -> None:
    table = client.get(POOLS, headers=TABLE).json()
    columns = [(c["name"], c["priority"]) for c in table["columnDefinitions"]]
    assert columns == [
        ("Name", 0),
        ("Queue", 0),
        ("Replicas", 0),
        ("Ready", 0),
        ("Image", 1),
        ("Age", 0),
    ]
    cells = table["rows"][0]["cells"]
    assert cells[:5] == [
        "thumbnails",
        "thumbnails.high",
        2,
        None,
        "registry.example/thumbnailer:2.1",
    ]


def test_defaults_pruning_and_preserved_fields(client: TestClient, pool: JSON) -> None:
    spec = pool["spec"]
    assert (spec["maxReplicas"], spec["queue"]["batchSize"]) == (10, 10)
    assert spec["ports"] == [{"name": "metrics", "port": 9090, "protocol": "TCP"}]
    assert spec["config"] == {"sizes": [64, 256, 1024], "format": "webp"}
    assert pool["metadata"]["generation"] == 1


def test_the_invalid_pool_gets_every_error_at_once(client: TestClient) -> None:
    response = client.post(POOLS, json=example("workerpool-invalid.yaml"))
    assert response.status_code == 422
    causes = [(c["field"], c["message"]) for c in response.json()["details"]["causes"]]
    assert sorted(causes) == [
        ("spec.ports[0].protocol", 'Unsupported value: "HTTP": supported values: "TCP", "UDP"'),
        (
            "spec.queue.name",
            'Invalid value: "Thumbnails": spec.queue.name in body should match '
            "'^[a-z0-9][a-z0-9.-]*$'",
        ),
        ("spec.replicas", "Forbidden: replicas must be at most maxReplicas (5)"),
    ]


def test_scale_and_status_subresources(client: TestClient, pool: JSON) -> None:
    scale_url = f"{POOLS}/thumbnails/scale"
    scale = client.get(scale_url).json()
    assert (scale["kind"], scale["spec"]["replicas"]) == ("Scale", 2)
    scaled = client.patch(scale_url, json={"spec": {"replicas": 4}}, headers=MERGE)
    assert scaled.status_code == 200, scaled.text
    too_many = client.patch(scale_url, json={"spec": {"replicas": 40}}, headers=MERGE)
    assert too_many.status_code == 422
    assert too_many.json()["message"] == (
        'WorkerPool.demo.podscale.dev "thumbnails" is invalid: spec.replicas: Forbidden: '
        "replicas must be at most maxReplicas (10)"
    )
    status = {"status": {"replicas": 4, "readyReplicas": 3, "selector": "app=thumbnails"}}
    written = client.patch(f"{POOLS}/thumbnails/status", json=status, headers=MERGE)
    assert written.status_code == 200, written.text
    # The main resource ignores status; the scale reads it back through the paths.
    client.patch(f"{POOLS}/thumbnails", json={"status": {"replicas": 0}}, headers=MERGE)
    scale = client.get(scale_url).json()
    assert scale["status"] == {"replicas": 4, "selector": "app=thumbnails"}
    cells = client.get(POOLS, headers=TABLE).json()["rows"][0]["cells"]
    assert cells[2:4] == [4, 3]


def test_the_queue_name_is_immutable(client: TestClient, pool: JSON) -> None:
    renamed = {"spec": {"queue": {"name": "thumbnails.low"}}}
    response = client.patch(f"{POOLS}/thumbnails", json=renamed, headers=MERGE)
    assert response.status_code == 422
    assert response.json()["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: "string": queue name is immutable',
            "field": "spec.queue.name",
        }
    ]


@pytest.mark.parametrize(
    ("mode", "code", "warning"),
    [
        ("Strict", 400, None),
        ("Warn", 200, '299 - "unknown field \\"spec.replica\\""'),
        (None, 200, '299 - "unknown field \\"spec.replica\\""'),
        ("Ignore", 200, None),
    ],
    ids=["strict", "warn", "default-is-warn", "ignore"],
)
def test_unknown_fields_follow_field_validation(
    client: TestClient, pool: JSON, mode: str | None, code: int, warning: str | None
) -> None:
    params = {} if mode is None else {"fieldValidation": mode}
    typo = {"spec": {"replica": 3}}
    response = client.patch(f"{POOLS}/thumbnails", json=typo, headers=MERGE, params=params)
    assert response.status_code == code, response.text
    if code == 400:
        assert response.json()["message"] == 'strict decoding error: unknown field "spec.replica"'
        return
    assert response.headers.get("warning") == warning
    assert "replica" not in response.json()["spec"]


def test_versions_convert_with_none(client: TestClient, pool: JSON) -> None:
    beta = client.get("/apis/demo.podscale.dev/v1beta1/namespaces/default/workerpools/thumbnails")
    assert beta.status_code == 200
    assert beta.json()["apiVersion"] == "demo.podscale.dev/v1beta1"
    assert beta.json()["spec"] == pool["spec"]
    group = client.get("/apis/demo.podscale.dev").json()
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta1"]
    assert group["preferredVersion"]["version"] == "v1"


def test_strategic_merge_is_refused_and_deleting_the_crd_deletes_the_pools(
    client: TestClient, pool: JSON
) -> None:
    strategic = {"content-type": "application/strategic-merge-patch+json"}
    refused = client.patch(f"{POOLS}/thumbnails", json={"spec": {"replicas": 1}}, headers=strategic)
    assert refused.status_code == 415
    assert client.delete(f"{CRDS}/workerpools.demo.podscale.dev").status_code == 200
    assert client.get(f"{CRDS}/workerpools.demo.podscale.dev").status_code == 404
    assert client.get(POOLS).status_code == 404
