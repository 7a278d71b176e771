"""``AuditMiddleware``: the ASGI layer that records every request in the audit log.

It sits outside ``podscale.apiserver.auth.access.AccessGuard`` (``podscale.plane.serve``
wraps it so), as kube-apiserver's audit filter sits outside authorization: it sees every
request, reads what it is from the URL (``requestinfo``), who sent it from the user the
guard put in the scope (``USER_SCOPE_KEY``), and the answer from the response it relays,
then hands ``event`` dicts to an ``EventSink`` (``writer.AuditLog``). Stages: streaming
requests (watches, logs) get ``ResponseStarted`` when their headers go out; every request
gets ``ResponseComplete`` when its response ends (or ``Panic`` if the app raised); a request
that failed authentication gets only ``ResponseStarted`` with an empty user, as upstream's
failed-authentication audit writes it. ``RequestReceived`` is not written (podscale's
default, as the common ``omitStages: [RequestReceived]`` policy). Every response carries the
event's ID in ``Audit-Id``; a client's own ``Audit-ID`` header is honoured as upstream does.
Bodies are peeked at, never altered: a create or update's metadata (JSON or protobuf) fills
the objectRef, and a small JSON ``Status`` answer becomes the responseStatus.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from datetime import datetime
from typing import Any, Final, Protocol

import orjson

from podscale.apiserver.audit.event import (
    RequestFacts,
    at_stage,
    authentication_failure,
    new_event,
    response_status,
    source_ips,
    with_request_object,
)
from podscale.apiserver.audit.requestinfo import RequestInfo, is_long_running, request_info
from podscale.apiserver.auth.access import ANONYMOUS_PATHS
from podscale.apiserver.auth.identity import ANONYMOUS_USER, USER_SCOPE_KEY, UserInfo
from podscale.apiserver.protobuf.bodies import (
    PROTOBUF_MEDIA_TYPE,
    ProtobufError,
    decode_protobuf_object,
)

__all__ = ["AuditMiddleware", "EventSink"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Bodies larger than this are not peeked at (upstream's request size limit is 3 MiB).
_MAX_REQUEST_PEEK: Final = 3 * 1024 * 1024
_MAX_STATUS_PEEK: Final = 64 * 1024
_CLOSED_EARLY: Final = {"status": "Success", "message": "Connection closed early"}


class EventSink(Protocol):
    """Where events go (``writer.AuditLog``); ``emit`` must not block."""

    def emit(self, event: dict[str, Any]) -> None: ...


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def _request_uri(scope: Scope) -> str:
    raw = scope.get("raw_path")
    path = raw.decode("latin-1") if isinstance(raw, bytes) and raw else scope.get("path", "/")
    query = scope.get("query_string", b"").decode("latin-1")
    return f"{path}?{query}" if query else path


class _Exchange:
    """One request's audit state while it is served."""

    def __init__(self, scope: Scope, info: RequestInfo, audit_id: str, received: datetime) -> None:
        self.scope = scope
        self.info = info
        self.audit_id = audit_id
        self.received = received
        self.headers = _headers(scope)
        self.code: int | None = None
        content_type = self.headers.get("content-type", "json")
        self.protobuf_request = PROTOBUF_MEDIA_TYPE in content_type
        self.peek_request = (
            info.is_resource_request
            and scope.get("method") in ("POST", "PUT")
            and ("json" in content_type or self.protobuf_request)
        )
        self.request_body = bytearray()
        self.response_body = bytearray()
        self.peek_response = False

    def facts(self, authenticated: bool) -> RequestFacts:
        user: UserInfo | None = self.scope.get(USER_SCOPE_KEY)
        if not isinstance(user, UserInfo):
            guarded = authenticated and self.scope.get("path") not in ANONYMOUS_PATHS
            user = None if guarded else ANONYMOUS_USER
        client = self.scope.get("client")
        remote = str(client[0]) if client else None
        ips = source_ips(self.headers.get("x-forwarded-for"), self.headers.get("x-real-ip"), remote)
        return RequestFacts(
            info=self.info,
            request_uri=_request_uri(self.scope),
            user=user,
            source_ips=ips,
            user_agent=self.headers.get("user-agent", ""),
            received=self.received,
        )

    def event(self, authenticated: bool) -> dict[str, Any]:
        event = new_event(self.facts(authenticated), self.audit_id)
        if self.peek_request and self.request_body:
            body = self.request_object()
            if body is not None:
                event = with_request_object(event, body)
        return event

    def request_object(self) -> dict[str, Any] | None:
        """The object a create or update sent (JSON, or protobuf as kubectl 1.32+ sends
        its generated objects), None when it does not decode (the server says why)."""
        try:
            if self.protobuf_request:
                # The envelope names its apiVersion and kind; a body without them is refused.
                return decode_protobuf_object(bytes(self.request_body), "", "")
            body = orjson.loads(self.request_body)
        except (orjson.JSONDecodeError, ProtobufError):
            return None
        return body if isinstance(body, dict) else None

    def status_body(self) -> dict[str, Any] | None:
        if not self.peek_response or b'"Status"' not in self.response_body:
            return None
        try:
            body = orjson.loads(self.response_body)
        except orjson.JSONDecodeError:
            return None
        return body if isinstance(body, dict) else None


class AuditMiddleware:
    """Audits every HTTP request to ``app`` into ``sink``. ``authenticated``: whether the
    guard inside requires a token (a request it let through without a user then failed
    authentication). ``now`` gives event timestamps; ``new_id`` the audit IDs."""

    def __init__(
        self,
        app: ASGIApp,
        sink: EventSink,
        *,
        now: Callable[[], datetime],
        authenticated: bool,
        new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        self._app = app
        self._sink = sink
        self._now = now
        self._authenticated = authenticated
        self._new_id = new_id

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        received = self._now()
        query = scope.get("query_string", b"").decode("latin-1")
        info = request_info(scope.get("method", "GET"), scope.get("path", "/"), query)
        supplied = _headers(scope).get("audit-id", "").strip()
        exchange = _Exchange(scope, info, supplied or self._new_id(), received)
        streaming = is_long_running(info)

        async def tee_receive() -> Message:
            message = await receive()
            if exchange.peek_request and message.get("type") == "http.request":
                exchange.request_body += message.get("body", b"")
                if len(exchange.request_body) > _MAX_REQUEST_PEEK:
                    exchange.peek_request = False
                    exchange.request_body.clear()
            return message

        async def audited_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                exchange.code = int(message["status"])
                headers = list(message.get("headers", []))
                headers.append((b"audit-id", exchange.audit_id.encode("latin-1")))
                message = {**message, "headers": headers}
                content_type = dict(headers).get(b"content-type", b"")
                exchange.peek_response = not streaming and b"json" in content_type
                if streaming or self._failed_authentication(exchange):
                    self._emit(exchange, "ResponseStarted")
            elif message["type"] == "http.response.body" and exchange.peek_response:
                exchange.response_body += message.get("body", b"")
                if len(exchange.response_body) > _MAX_STATUS_PEEK:
                    exchange.peek_response = False
                    exchange.response_body.clear()
            await send(message)

        panicked = False
        try:
            await self._app(scope, tee_receive, audited_send)
        except Exception as err:
            panicked = True
            self._panic(exchange, err)
            raise
        finally:
            if not panicked and not self._failed_authentication(exchange):
                self._complete(exchange, streaming)

    def _panic(self, exchange: _Exchange, err: Exception) -> None:
        """The app raised (it renders its own errors, so this is a bug): upstream's Panic."""
        message = f"APIServer panic'd: {err}"
        status = {
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": "InternalError",
        }
        event = exchange.event(self._authenticated)
        self._sink.emit(at_stage(event, "Panic", self._now(), {**status, "code": 500}))

    def _failed_authentication(self, exchange: _Exchange) -> bool:
        return exchange.code == 401 and exchange.facts(self._authenticated).user is None

    def _emit(self, exchange: _Exchange, stage: str) -> None:
        if self._failed_authentication(exchange):
            failure = authentication_failure(exchange.headers.get("authorization"))
            event = exchange.event(self._authenticated)
            self._sink.emit(at_stage(event, stage, self._now(), failure))
            return
        code = exchange.code if exchange.code is not None else 200
        body = exchange.status_body() if stage == "ResponseComplete" else None
        status = response_status(code, body)
        event = exchange.event(self._authenticated)
        self._sink.emit(at_stage(event, stage, self._now(), status))

    def _complete(self, exchange: _Exchange, streaming: bool) -> None:
        if exchange.code is None:
            # The client went away before any answer: upstream fakes a success for it.
            status = {"metadata": {}, **_CLOSED_EARLY, "code": 200}
            event = exchange.event(self._authenticated)
            if streaming:
                self._sink.emit(at_stage(event, "ResponseStarted", self._now(), status))
            self._sink.emit(at_stage(event, "ResponseComplete", self._now(), status))
            return
        self._emit(exchange, "ResponseComplete")
