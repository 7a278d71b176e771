"""Who may talk to the embedded API server: bearer token, Host and Origin checks.

Security defaults for a local control plane (``../shared/reference/upstream-behavior.md``
§4): a random token is required on every request except health and version probes;
``Host`` must name this machine (blocks DNS rebinding) and be well formed, ``host[:port]``
and nothing else (``127.0.0.1:6443@evil.example`` is a 400, as Go's server answers a
malformed Host); a browser ``Origin`` from elsewhere is refused (no CORS). ``AccessGuard``
is an ASGI middleware wrapped around the API server app by ``podscale.plane.serve``.
Tokens are compared in constant time and never logged. A request whose token matched
carries ``identity.ADMIN_USER`` in its scope (``kubectl auth whoami``).
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, Final

import orjson

from podscale.apiserver.auth.identity import ADMIN_USER, USER_SCOPE_KEY

__all__ = ["ANONYMOUS_PATHS", "AccessGuard", "new_token"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Probes that upstream's default RBAC grants to anyone (system:public-info-viewer).
ANONYMOUS_PATHS: Final = frozenset({"/healthz", "/readyz", "/livez", "/version"})
LOOPBACK_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
# host[:port], lower-cased: a DNS name or IPv4 address, or a bracketed IPv6 literal. No
# userinfo, path or spaces: a reverse proxy or a lax client could route on another reading.
_HOST_HEADER: Final = re.compile(r"(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::[0-9]{1,5})?")


def new_token() -> str:
    """A bearer token with 256 bits of randomness."""
    return secrets.token_urlsafe(32)


def _status(code: int, reason: str, message: str) -> bytes:
    return orjson.dumps(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": reason,
            "code": code,
        }
    )


def _host_name(value: str) -> str:
    """The host part of a Host header (``127.0.0.1:6443`` -> ``127.0.0.1``)."""
    if value.startswith("["):
        return value[: value.find("]") + 1]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class AccessGuard:
    """ASGI middleware enforcing the token (if any) and the Host/Origin allow-lists."""

    def __init__(
        self, app: ASGIApp, *, token: str | None, allowed_hosts: Iterable[str] = LOOPBACK_HOSTS
    ) -> None:
        self._app = app
        self._token = token.encode() if token else None
        self._hosts = frozenset(h.lower() for h in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        raw_host = headers.get("host", b"").decode("latin-1").lower()
        if not _HOST_HEADER.fullmatch(raw_host):
            await self._reject(send, 400, "BadRequest", "malformed Host header")
            return
        host = _host_name(raw_host)
        if host not in self._hosts:
            await self._reject(send, 403, "Forbidden", f"host {host!r} is not allowed")
            return
        origin = headers.get("origin")
        if origin is not None and not self._origin_allowed(origin.decode("latin-1")):
            await self._reject(send, 403, "Forbidden", "cross-origin requests are not allowed")
            return
        if self._token is not None and scope.get("path") not in ANONYMOUS_PATHS:
            supplied = headers.get("authorization", b"")
            expected = b"Bearer " + self._token
            if not hmac.compare_digest(supplied, expected):
                await self._reject(send, 401, "Unauthorized", "Unauthorized")
                return
            # In place: the audit middleware around the guard reads the user from this scope.
            scope[USER_SCOPE_KEY] = ADMIN_USER
        await self._app(scope, receive, send)

    def _origin_allowed(self, origin: str) -> bool:
        rest = origin.split("://", 1)[-1]
        return _host_name(rest.split("/", 1)[0].lower()) in self._hosts

    @staticmethod
    async def _reject(send: Send, code: int, reason: str, message: str) -> None:
        body = _status(code, reason, message)
        await send(
            {
                "type": "http.response.start",
                "status": code,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
