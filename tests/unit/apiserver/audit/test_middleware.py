"""AuditMiddleware around the access guard and the real API server app: one event per
request with the verb, object, user and answer kube-apiserver's audit log would record."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.audit.middleware import AuditMiddleware
from podscale.apiserver.auth.access import AccessGuard
from podscale.apiserver.http.app import create_app
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
TOKEN = "secret-token"
AUTH = {"authorization": f"Bearer {TOKEN}"}
NOW = datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC)
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
DEPLOYMENT: JSON = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx"}]},
        },
    },
}


class Sink:
    def __init__(self) -> None:
        self.events: list[JSON] = []

    def emit(self, event: JSON) -> None:
        self.events.append(event)


class Clock:
    def now(self) -> datetime:
        return NOW


@pytest.fixture
def sink() -> Sink:
    return Sink()


@pytest.fixture
def client(sink: Sink) -> Iterator[TestClient]:
    ids = iter(f"id-{n}" for n in range(1000))
    app = create_app(MemoryStore(Clock()), clock=Clock())
    guarded = AccessGuard(app, token=TOKEN)
    audited = AuditMiddleware(
        guarded, sink, now=Clock().now, authenticated=True, new_id=lambda: next(ids)
    )
    with TestClient(audited, base_url="http://127.0.0.1:6443") as test_client:
        yield test_client


def test_a_scale_update_is_audited_with_its_subresource_and_user(
    client: TestClient, sink: Sink
) -> None:
    assert client.post(DEPLOYMENTS, json=DEPLOYMENT, headers=AUTH).status_code == 201
    scale = client.get(f"{DEPLOYMENTS}/web/scale", headers=AUTH).json()
    scale["spec"]["replicas"] = 3
    answer = client.put(f"{DEPLOYMENTS}/web/scale", json=scale, headers=AUTH)
    assert answer.status_code == 200
    create, _get, update = sink.events
    assert answer.headers["audit-id"] == update["auditID"] == "id-2"
    assert [e["verb"] for e in sink.events] == ["create", "get", "update"]
    assert {e["stage"] for e in sink.events} == {"ResponseComplete"}
    assert create["objectRef"]["name"] == "web"  # from the body, as upstream's LogRequestObject
    assert update["objectRef"] == {
        "resource": "deployments",
        "namespace": "default",
        "name": "web",
        "uid": scale["metadata"]["uid"],
        "apiGroup": "apps",
        "apiVersion": "v1",
        "resourceVersion": scale["metadata"]["resourceVersion"],
        "subresource": "scale",
    }
    assert update["user"]["username"] == "podscale-admin"
    assert update["responseStatus"] == {"metadata": {}, "code": 200}
    assert update["userAgent"] == "testclient"
    assert update["requestURI"] == f"{DEPLOYMENTS}/web/scale"
    assert update["stageTimestamp"] == "2026-01-02T03:04:05.000006Z"


def test_patch_delete_and_deletecollection(client: TestClient, sink: Sink) -> None:
    client.post(DEPLOYMENTS, json=DEPLOYMENT, headers=AUTH)
    merge = {**AUTH, "content-type": "application/merge-patch+json"}
    assert (
        client.patch(
            f"{DEPLOYMENTS}/web/scale", content=b'{"spec":{"replicas":2}}', headers=merge
        ).status_code
        == 200
    )
    assert client.delete(f"{DEPLOYMENTS}/web", headers=AUTH).status_code == 200
    assert client.delete(DEPLOYMENTS, headers=AUTH).status_code == 200
    patch, delete, collection = sink.events[1:]
    assert (patch["verb"], patch["objectRef"]["subresource"]) == ("patch", "scale")
    assert delete["verb"] == "delete"
    assert delete["responseStatus"]["status"] == "Success"  # the Status the server answered
    assert collection["verb"] == "deletecollection"
    assert "name" not in collection["objectRef"]


def test_a_failure_records_the_status_code_reason_and_message(
    client: TestClient, sink: Sink
) -> None:
    assert client.get(f"{DEPLOYMENTS}/missing", headers=AUTH).status_code == 404
    (event,) = sink.events
    assert event["responseStatus"] == {
        "metadata": {},
        "status": "Failure",
        "message": 'deployments.apps "missing" not found',
        "reason": "NotFound",
        "details": {"name": "missing", "group": "apps", "kind": "deployments"},
        "code": 404,
    }


def test_list_and_a_non_resource_probe(client: TestClient, sink: Sink) -> None:
    client.get("/api/v1/pods?limit=500", headers=AUTH)
    client.get("/healthz")
    listing, probe = sink.events
    assert (listing["verb"], listing["requestURI"]) == ("list", "/api/v1/pods?limit=500")
    assert listing["objectRef"] == {"resource": "pods", "apiVersion": "v1"}
    assert probe["verb"] == "get"
    assert "objectRef" not in probe
    assert probe["user"] == {"username": "system:anonymous", "groups": ["system:unauthenticated"]}


def test_a_failed_authentication_is_one_response_started_event(
    client: TestClient, sink: Sink
) -> None:
    assert client.get("/api/v1/pods", headers={"authorization": "Bearer nope"}).status_code == 401
    (event,) = sink.events
    assert event["stage"] == "ResponseStarted"
    assert event["user"] == {}
    assert event["responseStatus"] == {
        "metadata": {},
        "message": "Authentication failed, attempted: bearer",
        "code": 401,
    }
    assert "annotations" not in event


def test_a_client_supplied_audit_id_is_kept(client: TestClient, sink: Sink) -> None:
    answer = client.get("/api/v1/pods", headers={**AUTH, "audit-id": "mine"})
    assert answer.headers["audit-id"] == "mine"
    assert sink.events[0]["auditID"] == "mine"


# -- streaming and failing apps, to see the stages ------------------------------------------


async def _watch_app(scope: JSON, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b'{"type":"ADDED"}\n', "more_body": True})
    await send({"type": "http.response.body", "body": b""})


async def _silent_app(scope: JSON, receive: Any, send: Any) -> None:
    await asyncio.sleep(0)  # the client went away before any answer


async def _broken_app(scope: JSON, receive: Any, send: Any) -> None:
    raise RuntimeError("boom")


def _run(app: Any, sink: Sink, path: str, query: bytes = b"") -> None:
    audited = AuditMiddleware(app, sink, now=Clock().now, authenticated=False)
    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query,
        "headers": [(b"user-agent", b"kubectl")],
        "client": ("127.0.0.1", 5000),
    }

    async def receive() -> JSON:
        return {"type": "http.disconnect"}

    async def send(message: JSON) -> None:
        pass

    asyncio.run(audited(scope, receive, send))


def test_a_watch_has_response_started_then_response_complete() -> None:
    sink = Sink()
    _run(_watch_app, sink, "/api/v1/pods", b"watch=true")
    started, complete = sink.events
    assert (started["stage"], complete["stage"]) == ("ResponseStarted", "ResponseComplete")
    assert started["auditID"] == complete["auditID"]
    assert started["verb"] == "watch"
    assert started["sourceIPs"] == ["127.0.0.1"]
    assert started["user"]["username"] == "system:anonymous"


def test_a_watch_closed_before_any_answer_is_faked_as_upstream() -> None:
    sink = Sink()
    _run(_silent_app, sink, "/api/v1/pods", b"watch=true")
    assert [e["stage"] for e in sink.events] == ["ResponseStarted", "ResponseComplete"]
    assert sink.events[1]["responseStatus"] == {
        "metadata": {},
        "status": "Success",
        "message": "Connection closed early",
        "code": 200,
    }


def test_an_app_that_raises_is_a_panic_event() -> None:
    sink = Sink()
    with pytest.raises(RuntimeError):
        _run(_broken_app, sink, "/api/v1/pods")
    (event,) = sink.events
    assert event["stage"] == "Panic"
    assert event["responseStatus"]["code"] == 500
    assert event["responseStatus"]["message"] == "APIServer panic'd: boom"
