"""The access guard: token, Host and Origin checks in front of the API server."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from podscale.apiserver.auth.access import AccessGuard, new_token

TOKEN = "s3cret-token"


async def echo(request: Request) -> JSONResponse:
    return JSONResponse({"path": request.url.path})


INNER = Starlette(routes=[Route("/{path:path}", echo, methods=["GET", "POST"])])


def client(token: str | None = TOKEN) -> TestClient:
    return TestClient(AccessGuard(INNER, token=token), base_url="http://127.0.0.1:6443")


UNAUTHORIZED = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "Unauthorized",
    "reason": "Unauthorized",
    "code": 401,
}


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({"Authorization": f"Bearer {TOKEN}"}, 200),
        ({}, 401),
        ({"Authorization": "Bearer wrong"}, 401),
        ({"Authorization": f"Bearer {TOKEN}x"}, 401),
        ({"Authorization": TOKEN}, 401),
    ],
    ids=["right", "missing", "wrong", "prefix-match", "no-scheme"],
)
def test_token_is_required(headers: dict[str, str], code: int) -> None:
    response = client().get("/api/v1/pods", headers=headers)
    assert response.status_code == code
    if code == 401:
        assert response.json() == UNAUTHORIZED


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/livez", "/version"])
def test_probes_are_anonymous(path: str) -> None:
    assert client().get(path).status_code == 200


@pytest.mark.parametrize(
    ("host", "code"),
    [
        ("127.0.0.1:6443", 200),
        ("localhost", 200),
        ("[::1]:6443", 200),
        ("evil.example", 403),
        ("evil.example:6443", 403),
    ],
    ids=["ipv4", "localhost", "ipv6", "rebinding", "rebinding-port"],
)
def test_host_header_must_be_local(host: str, code: int) -> None:
    response = client().get("/healthz", headers={"Host": host})
    assert response.status_code == code
    if code == 403:
        assert response.json()["reason"] == "Forbidden"


def test_cross_site_browser_requests_are_refused() -> None:
    headers = {"Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}
    assert client().post("/api/v1/namespaces/default/pods", headers=headers).status_code == 403
    headers["Origin"] = "http://127.0.0.1:6443"
    assert client().post("/api/v1/namespaces/default/pods", headers=headers).status_code == 200


def test_no_token_means_open_but_still_host_checked() -> None:
    assert client(token=None).get("/api/v1/pods").status_code == 200
    assert (
        client(token=None).get("/api/v1/pods", headers={"Host": "evil.example"}).status_code == 403
    )


def test_new_tokens_are_long_and_distinct() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50
    assert all(len(t) >= 43 for t in tokens)
