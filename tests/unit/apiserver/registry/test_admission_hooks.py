"""Validating admission hooks (``registry.admission_hooks``): a hook registered for a kind
refuses its creates, updates and patches with the Status kube-apiserver makes of a webhook's
denial (``webhook/errors.ToStatusErr`` over controller-runtime's ``Denied``), sees dry runs
flagged and the old object on updates, never runs for other kinds or for subresources, and
a hook that fails is a failed webhook call (Ignore: allowed; Fail: the 500)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.http.app import create_app
from podscale.apiserver.registry.admission_hooks import (
    AdmissionHooks,
    AdmissionRequest,
    Denial,
    ValidatingHook,
    denial_status,
)
from podscale.apiserver.state import ServerState
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

JSON = dict[str, Any]
CMS = "/api/v1/namespaces/default/configmaps"
RSS = "/apis/apps/v1/namespaces/default/replicasets"
MERGE = {"content-type": "application/merge-patch+json"}


class Recorder:
    """A hook refusing ConfigMaps whose ``data.verdict`` is ``no``; it keeps its requests
    and what the store view showed it (the names of the namespace's ConfigMaps)."""

    def __init__(self) -> None:
        self.requests: list[AdmissionRequest] = []
        self.seen: list[list[str]] = []

    def __call__(self, request: AdmissionRequest) -> Denial | None:
        self.requests.append(request)
        stored = request.reader.list("configmaps", request.namespace)
        self.seen.append(sorted(item["metadata"]["name"] for item in stored))
        if (request.obj.get("data") or {}).get("verdict") == "no":
            return Denial("verdict is no")
        return None


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def app_state(recorder: Recorder) -> tuple[TestClient, ServerState]:
    clock = FakeClock(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    app = create_app(MemoryStore(clock), clock=clock)
    state: ServerState = app.state.podscale
    state.admission_hooks.register(
        ValidatingHook("verdicts.example.com", "", "ConfigMap", recorder)
    )
    return TestClient(app, raise_server_exceptions=False), state


@pytest.fixture
def client(app_state: tuple[TestClient, ServerState]) -> TestClient:
    return app_state[0]


def config_map(name: str, verdict: str) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name},
        "data": {"verdict": verdict},
    }


DENIED: JSON = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": 'admission webhook "verdicts.example.com" denied the request: verdict is no',
    "reason": "Forbidden",
    "code": 403,
}


def test_a_refused_create_is_the_webhook_denial(client: TestClient, recorder: Recorder) -> None:
    response = client.post(CMS, json=config_map("a", "no"))
    assert response.status_code == 403
    assert response.json() == DENIED
    assert client.get(f"{CMS}/a").status_code == 404
    (request,) = recorder.requests
    assert (request.operation, request.old, request.namespace, request.dry_run) == (
        "CREATE",
        None,
        "default",
        False,
    )
    assert client.post(CMS, json=config_map("b", "yes")).status_code == 201


def test_a_dry_run_is_checked_flagged_and_never_written(
    client: TestClient, recorder: Recorder
) -> None:
    refused = client.post(f"{CMS}?dryRun=All", json=config_map("a", "no"))
    assert (refused.status_code, refused.json()) == (403, DENIED)
    allowed = client.post(f"{CMS}?dryRun=All", json=config_map("a", "yes"))
    assert allowed.status_code == 201
    assert [r.dry_run for r in recorder.requests] == [True, True]
    assert client.get(f"{CMS}/a").status_code == 404


def test_updates_and_patches_see_the_old_object(client: TestClient, recorder: Recorder) -> None:
    created = client.post(CMS, json=config_map("a", "yes")).json()
    put = client.put(f"{CMS}/a", json={**created, "data": {"verdict": "no"}})
    assert (put.status_code, put.json()) == (403, DENIED)
    patched = client.patch(f"{CMS}/a", content=b'{"data":{"verdict":"no"}}', headers=MERGE)
    assert (patched.status_code, patched.json()) == (403, DENIED)
    assert client.get(f"{CMS}/a").json()["data"] == {"verdict": "yes"}
    updates = recorder.requests[1:]
    assert [r.operation for r in updates] == ["UPDATE", "UPDATE"]
    assert all(r.old is not None and r.old["data"] == {"verdict": "yes"} for r in updates)
    # The store view shows what is stored, the object under review not yet changed.
    assert recorder.seen == [[], ["a"], ["a"]]


def test_other_kinds_and_subresources_are_not_hooked(
    app_state: tuple[TestClient, ServerState], recorder: Recorder
) -> None:
    client, state = app_state
    state.admission_hooks.register(
        ValidatingHook("no-rs.example.com", "apps", "ReplicaSet", lambda _: Denial("no"))
    )
    rs = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
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
    assert client.post(RSS, json=rs).status_code == 403
    state.admission_hooks.register(
        ValidatingHook("no-rs.example.com", "apps", "ReplicaSet", lambda _: None)
    )
    assert client.post(RSS, json=rs).status_code == 201
    state.admission_hooks.register(
        ValidatingHook("no-rs.example.com", "apps", "ReplicaSet", lambda _: Denial("no"))
    )
    # A webhook rule for replicasets does not match replicasets/scale or /status.
    scaled = client.patch(f"{RSS}/web/scale", content=b'{"spec":{"replicas":3}}', headers=MERGE)
    assert scaled.status_code == 200, scaled.text
    status = client.patch(f"{RSS}/web/status", content=b'{"status":{"replicas":1}}', headers=MERGE)
    assert status.status_code == 200, status.text
    assert recorder.requests == []


def test_schema_validation_comes_first(client: TestClient, recorder: Recorder) -> None:
    bad = config_map("Not_A_Name", "no")
    assert client.post(CMS, json=bad).status_code == 422
    assert recorder.requests == []


def _boom(_: AdmissionRequest) -> Denial | None:
    raise RuntimeError("connection refused")


@pytest.mark.parametrize(
    ("policy", "code"), [("Ignore", 201), ("Fail", 500)], ids=["ignore-allows", "fail-is-500"]
)
def test_a_failing_hook_follows_its_failure_policy(
    app_state: tuple[TestClient, ServerState], policy: Any, code: int
) -> None:
    client, state = app_state
    state.admission_hooks.register(
        ValidatingHook("broken.example.com", "", "Secret", _boom, failure_policy=policy)
    )
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}
    response = client.post("/api/v1/namespaces/default/secrets", json=secret)
    assert response.status_code == code, response.text
    if code == 500:
        body = response.json()
        assert body["reason"] == "InternalError"
        assert body["message"] == (
            'Internal error occurred: failed calling webhook "broken.example.com": '
            "connection refused"
        )


@pytest.mark.parametrize(
    ("denial", "code", "reason", "message"),
    [
        (Denial("nope"), 403, "Forbidden", "denied the request: nope"),
        (Denial("", reason="Forbidden"), 403, "Forbidden", "denied the request: Forbidden"),
        (Denial("", reason=""), 403, None, "denied the request without explanation"),
        (Denial("low", code=200, reason=""), 400, None, "denied the request: low"),
        (Denial("gone", code=404, reason="NotFound"), 404, "NotFound", "denied the request: gone"),
    ],
    ids=["message", "reason-only", "without-explanation", "below-400-is-400", "code-kept"],
)
def test_the_denial_status_is_to_status_errs(
    denial: Denial, code: int, reason: str | None, message: str
) -> None:
    body = denial_status("hook.example.com", denial)
    assert body["code"] == code
    assert body["status"] == "Failure"
    assert body.get("reason") == reason
    assert body["message"] == f'admission webhook "hook.example.com" {message}'


def test_registering_a_name_again_replaces_the_hook() -> None:
    hooks = AdmissionHooks()
    first = ValidatingHook("a", "", "ConfigMap", lambda _: None)
    second = ValidatingHook("a", "", "ConfigMap", lambda _: Denial("x"))
    hooks.register(first)
    hooks.register(second)
    assert hooks.for_kind("", "ConfigMap") == (second,)
    assert hooks.for_kind("apps", "ConfigMap") == ()
