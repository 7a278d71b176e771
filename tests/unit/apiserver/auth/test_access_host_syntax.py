"""The access guard reads Host strictly: userinfo, paths or extra colons are a 400, so no
reading of ``127.0.0.1:6443@evil.example`` by a proxy or client can differ from ours."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from podscale.apiserver.auth.access import AccessGuard


async def echo(request: Request) -> JSONResponse:
    return JSONResponse({"path": request.url.path})


def client() -> TestClient:
    inner = Starlette(routes=[Route("/{path:path}", echo)])
    return TestClient(AccessGuard(inner, token=None), base_url="http://127.0.0.1:6443")


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:6443@evil.example",
        "user@127.0.0.1:6443",
        "127.0.0.1@evil.example",
        "127.0.0.1:6443/path",
        "127.0.0.1 :6443",
        "127.0.0.1:6443:1",
        "127.0.0.1:port",
        "[::1]x",
        "",
    ],
    ids=["userinfo-after", "userinfo-before", "userinfo-no-port", "path", "space",
         "two-ports", "named-port", "junk-after-ipv6", "empty"],
)  # fmt: skip
def test_malformed_host_headers_are_a_400(host: str) -> None:
    response = client().get("/healthz", headers={"Host": host})
    assert response.status_code == 400
    assert response.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "malformed Host header",
        "reason": "BadRequest",
        "code": 400,
    }


@pytest.mark.parametrize(
    "host", ["127.0.0.1:6443", "LOCALHOST:1", "[::1]:6443", "[::1]", "localhost"], ids=str
)
def test_well_formed_local_hosts_pass(host: str) -> None:
    assert client().get("/healthz", headers={"Host": host}).status_code == 200
