"""Request-level behaviour: body limits, media types, fieldValidation, authentication, the
500 safety net (and proof that bad input never reaches it), and the metrics API."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.requests import Request
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.apiserver.http.limits import MAX_BODY_BYTES
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
RS = "/apis/apps/v1/namespaces/default/replicasets"


def test_body_over_3_mib_is_413(client: TestClient) -> None:
    body = b'{"a":"' + b"x" * MAX_BODY_BYTES + b'"}'
    response = client.post(RS, content=body)
    assert response.status_code == 413
    assert response.json()["message"] == "Request entity too large: limit is 3145728"


def test_streamed_body_without_length_is_limited(client: TestClient) -> None:
    def chunks() -> Any:
        for _ in range(4):
            yield b" " * (1024 * 1024)

    response = client.post(RS, content=chunks())
    assert response.status_code == 413


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"[" * 100_000, "exceeded max depth"),
        (b'{"a":' * 2000 + b"1" + b"}" * 2000, "exceeded max depth"),
        (b'{"apiVersion":', "json parse error"),
        (b"\xff\xfe", "json parse error"),
        (b"[1,2]", "cannot unmarshal array"),
    ],
    ids=["deep-array", "deep-object", "truncated", "not-utf8", "not-an-object"],
)
def test_bad_bodies_are_400(client: TestClient, body: bytes, fragment: str) -> None:
    response = client.post(RS, content=body)
    assert response.status_code == 400
    assert response.json()["reason"] == "BadRequest"
    assert fragment in response.json()["message"]


def test_unsupported_media_type(client: TestClient, make_rs: Callable[..., JSON]) -> None:
    response = client.post(RS, content=json.dumps(make_rs()), headers={"content-type": "text/yaml"})
    assert response.status_code == 415
    assert response.json()["reason"] == "UnsupportedMediaType"


@pytest.mark.parametrize(
    ("mode", "status", "warning"),
    [
        ("Strict", 400, None),
        ("Warn", 201, '299 - "unknown field \\"spec.foo\\""'),
        ("Ignore", 201, None),
        ("", 201, '299 - "unknown field \\"spec.foo\\""'),
    ],
    ids=["strict", "warn", "ignore", "default-warn"],
)
def test_field_validation(
    client: TestClient, make_rs: Callable[..., JSON], mode: str, status: int, warning: str | None
) -> None:
    obj = make_rs()
    obj["spec"]["foo"] = 1
    query = f"?fieldValidation={mode}" if mode else ""
    response = client.post(f"{RS}{query}", json=obj)
    assert response.status_code == status
    assert response.headers.get("warning") == warning
    if status == 400:
        assert response.json()["message"] == 'strict decoding error: unknown field "spec.foo"'


def test_authentication_hook(store: Any, clock: Any) -> None:
    def allow(request: Request) -> bool:
        return request.headers.get("authorization") == "Bearer good"

    client = TestClient(create_app(store, clock=clock, authenticate=allow))
    denied = client.get("/api/v1/pods")
    assert denied.status_code == 401
    assert denied.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Unauthorized",
        "reason": "Unauthorized",
        "code": 401,
    }
    assert client.get("/api/v1/pods", headers={"authorization": "Bearer good"}).status_code == 200


class _BrokenStore:
    """Every call fails: the app must answer a generic 500 Status, never a traceback."""

    revision = 0

    def __getattr__(self, name: str) -> Any:
        def fail(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("secret /var/lib/db path")

        return fail


def test_unexpected_errors_become_a_generic_500(clock: Any) -> None:
    app = create_app(MemoryStore(clock), clock=clock)
    app.state.podscale.store = _BrokenStore()  # the store starts failing once serving
    client = TestClient(app, raise_server_exceptions=False)
    response = client.get(f"{RS}/web")
    assert response.status_code == 500
    body = response.json()
    assert (body["kind"], body["reason"], body["code"]) == ("Status", "InternalError", 500)
    assert "secret" not in response.text


class _Clock:
    def now(self) -> datetime:
        return datetime(2026, 1, 2, tzinfo=UTC)


_RS: JSON = {
    "apiVersion": "apps/v1",
    "kind": "ReplicaSet",
    "metadata": {"name": "web"},
    "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        },
    },
}

_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_PATHS = st.sampled_from(
    [
        RS,
        f"{RS}/web",
        f"{RS}/web/scale",
        f"{RS}/web/status",
        "/api/v1/namespaces/default/pods",
        "/api/v1/nodes/n",
        "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web",
        "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
        "/api/v1/namespaces/default/events",
    ]
)
_TOP = st.fixed_dictionaries(
    {},
    optional={
        "apiVersion": st.sampled_from(["apps/v1", "v1", "autoscaling/v1", "autoscaling/v2", 3]),
        "kind": st.sampled_from(["ReplicaSet", "Pod", "HorizontalPodAutoscaler", "Node", "Event"]),
        "metadata": st.one_of(_JSONISH, st.just({"name": "web"})),
        "spec": _JSONISH,
        "status": _JSONISH,
        "involvedObject": _JSONISH,
    },
)


@settings(max_examples=150)
@given(
    method=st.sampled_from(["POST", "PUT", "PATCH", "DELETE", "GET"]),
    path=_PATHS,
    body=st.one_of(_TOP, _JSONISH),
    query=st.sampled_from(
        [
            "",
            "?fieldSelector=a%3Db",
            "?labelSelector=%21%21",
            "?limit=x",
            "?watch=1&resourceVersion=-1",
        ]
    ),
    content_type=st.sampled_from(
        [
            "application/json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
            "application/json-patch+json",
        ]
    ),
)
def test_fuzzed_requests_never_reach_the_500_net(
    method: str, path: str, body: Any, query: str, content_type: str
) -> None:
    clock = _Clock()
    client = TestClient(create_app(MemoryStore(clock), clock=clock))
    # An object to update, patch and delete, so fuzzed writes reach validation.
    assert client.post(RS, json=_RS).status_code == 201
    response = client.request(
        method,
        path + query,
        content=json.dumps(body).encode(),
        headers={"content-type": content_type},
    )
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert response.json()["kind"] == "Status"


class _Metrics:
    def pod_metrics(self, namespace: str | None) -> list[JSON]:
        pods = [
            {
                "metadata": {"name": "p1", "namespace": "default", "labels": {"app": "web"}},
                "timestamp": "2026-01-02T03:04:05Z",
                "window": "30s",
                "containers": [{"name": "c", "usage": {"cpu": "250m", "memory": "64Mi"}}],
            },
            {
                "metadata": {"name": "p2", "namespace": "other", "labels": {}},
                "timestamp": "2026-01-02T03:04:05Z",
                "window": "30s",
                "containers": [],
            },
        ]
        return [p for p in pods if namespace is None or p["metadata"]["namespace"] == namespace]

    def node_metrics(self) -> list[JSON]:
        return [
            {
                "metadata": {"name": "n1"},
                "timestamp": "2026-01-02T03:04:05Z",
                "window": "30s",
                "usage": {"cpu": "1", "memory": "1Gi"},
            }
        ]


def test_metrics_api_routes(store: Any, clock: Any) -> None:
    client = TestClient(create_app(store, clock=clock, metrics_provider=_Metrics()))
    base = "/apis/metrics.k8s.io/v1beta1"
    pods = client.get(f"{base}/namespaces/default/pods").json()
    assert (pods["kind"], pods["apiVersion"], pods["metadata"]) == (
        "PodMetricsList",
        "metrics.k8s.io/v1beta1",
        {},
    )
    assert [p["metadata"]["name"] for p in pods["items"]] == ["p1"]
    assert len(client.get(f"{base}/pods").json()["items"]) == 2
    assert (
        client.get(f"{base}/pods?labelSelector=app%3Dweb").json()["items"][0]["metadata"]["name"]
        == "p1"
    )
    one = client.get(f"{base}/namespaces/default/pods/p1").json()
    assert (one["kind"], one["containers"][0]["usage"]["cpu"]) == ("PodMetrics", "250m")
    assert client.get(f"{base}/nodes").json()["items"][0]["usage"]["cpu"] == "1"
    assert client.get(f"{base}/nodes/n1").json()["kind"] == "NodeMetrics"
    missing = client.get(f"{base}/namespaces/default/pods/nope")
    assert missing.status_code == 404
    assert missing.json()["message"] == 'pods.metrics.k8s.io "nope" not found'
    assert client.post(f"{base}/namespaces/default/pods", json={}).status_code == 405
