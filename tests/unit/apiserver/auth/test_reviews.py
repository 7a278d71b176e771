"""Self reviews (``kubectl auth whoami|can-i``): answered for the caller, never stored."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from podscale.apiserver.auth.identity import ADMIN_USER, ANONYMOUS_USER, USER_SCOPE_KEY, UserInfo
from podscale.apiserver.http.app import create_app
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
SSRR = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews"


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = _field(1, api_version.encode()) + _field(2, kind.encode())
    return b"k8s\x00" + _field(1, type_meta) + _field(2, raw)


def _as_user(app: Any, user: UserInfo | None) -> Any:
    """The app behind a stand-in for the token guard: it records ``user`` in the scope."""

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if user is not None:
            scope = {**scope, USER_SCOPE_KEY: user}
        await app(scope, receive, send)

    return guarded


def _client(store: MemoryStore, clock: Any, user: UserInfo | None = None) -> TestClient:
    return TestClient(_as_user(create_app(store, clock=clock), user))


@pytest.mark.parametrize(
    ("user", "expected"),
    [(ADMIN_USER, ADMIN_USER), (None, ANONYMOUS_USER)],
    ids=["token-holder", "no-auth"],
)
def test_self_subject_review_reports_the_caller(
    store: MemoryStore, clock: Any, user: UserInfo | None, expected: UserInfo
) -> None:
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    response = _client(store, clock, user).post(SSR, json=body)
    assert response.status_code == 201
    assert response.json()["status"]["userInfo"] == {
        "username": expected.username,
        "groups": list(expected.groups),
    }


@pytest.mark.parametrize(
    "spec",
    [
        {"resourceAttributes": {"verb": "create", "group": "apps", "resource": "deployments"}},
        {"nonResourceAttributes": {"verb": "get", "path": "/healthz"}},
    ],
    ids=["resource", "non-resource"],
)
def test_access_review_allows(store: MemoryStore, clock: Any, spec: JSON) -> None:
    body = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": spec,
    }
    response = _client(store, clock, ADMIN_USER).post(SSAR, json=body)
    assert response.status_code == 201
    reply = response.json()
    assert reply["status"] == {"allowed": True}
    assert reply["spec"] == spec
    assert reply["kind"] == "SelfSubjectAccessReview"


@pytest.mark.parametrize(
    ("spec", "message", "field"),
    [
        (
            {},
            "spec.resourceAttributes: Invalid value: null: exactly one of "
            "nonResourceAttributes or resourceAttributes must be specified",
            "spec.resourceAttributes",
        ),
        (
            {"resourceAttributes": {"verb": "get"}, "nonResourceAttributes": {"verb": "get"}},
            'spec.nonResourceAttributes: Invalid value: {"verb":"get"}: cannot be specified '
            "in combination with resourceAttributes",
            "spec.nonResourceAttributes",
        ),
    ],
    ids=["neither", "both"],
)
def test_access_review_validation_as_upstream(
    store: MemoryStore, clock: Any, spec: JSON, message: str, field: str
) -> None:
    body = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": spec,
    }
    response = _client(store, clock).post(SSAR, json=body)
    assert response.status_code == 422
    status = response.json()
    assert status["reason"] == "Invalid"
    assert status["message"] == (
        f'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: {message}'
    )
    assert [cause["field"] for cause in status["details"]["causes"]] == [field]


def test_rules_review_lists_cluster_admin_rules(store: MemoryStore, clock: Any) -> None:
    body = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectRulesReview",
        "spec": {"namespace": "default"},
    }
    response = _client(store, clock, ADMIN_USER).post(SSRR, json=body)
    assert response.status_code == 201
    assert response.json()["status"] == {
        "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
        "incomplete": False,
    }


def test_protobuf_access_review_as_kubectl_sends_it(store: MemoryStore, clock: Any) -> None:
    attributes = _field(2, b"create") + _field(3, b"apps") + _field(5, b"deployments")
    raw = _field(1, b"") + _field(2, _field(1, attributes))
    body = _envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", raw)
    response = _client(store, clock).post(
        SSAR, content=body, headers={"content-type": "application/vnd.kubernetes.protobuf"}
    )
    assert response.status_code == 201, response.text
    reply = response.json()
    assert reply["spec"]["resourceAttributes"] == {
        "verb": "create",
        "group": "apps",
        "resource": "deployments",
    }
    assert reply["status"]["allowed"] is True


@pytest.mark.parametrize(
    ("method", "path", "code"),
    [
        ("GET", SSAR, 405),
        ("DELETE", SSRR, 405),
        ("POST", SSAR + "/x", 404),
        ("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", 404),
    ],
    ids=["get", "delete", "named", "unserved-kind"],
)
def test_only_create_on_the_collection(
    store: MemoryStore, clock: Any, method: str, path: str, code: int
) -> None:
    assert _client(store, clock).request(method, path, json={}).status_code == code


def test_wrong_kind_is_a_bad_request(store: MemoryStore, clock: Any) -> None:
    body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview"}
    response = _client(store, clock).post(SSAR, json=body)
    assert response.status_code == 400
    assert (
        "does not match the expected kind (SelfSubjectAccessReview)" in response.json()["message"]
    )


def test_reviews_are_not_stored(store: MemoryStore, clock: Any) -> None:
    client = _client(store, clock)  # the app creates the system namespaces first
    before = store.revision
    body = {"spec": {"nonResourceAttributes": {"verb": "get", "path": "/"}}}
    assert client.post(SSAR, json=body).status_code == 201
    assert store.revision == before


@pytest.mark.parametrize(
    ("group", "resources"),
    [
        ("authentication.k8s.io", ["selfsubjectreviews"]),
        ("authorization.k8s.io", ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
    ],
    ids=["authentication", "authorization"],
)
def test_discovery_lists_the_reviews(
    store: MemoryStore, clock: Any, group: str, resources: list[str]
) -> None:
    client = _client(store, clock)
    listed = client.get(f"/apis/{group}/v1").json()["resources"]
    assert [entry["name"] for entry in listed] == resources
    assert all(entry["verbs"] == ["create"] for entry in listed)
    groups = [entry["name"] for entry in client.get("/apis").json()["groups"]]
    assert group in groups
