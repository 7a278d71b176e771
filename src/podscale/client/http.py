"""The HTTP transport: an async client for any Kubernetes-compatible API server.

``HttpApi`` speaks the REST API over httpx (JSON in, JSON out; watches as newline-delimited
JSON streams); this module has its transport (``request``, the discovery reads, the watch
stream) and its base class ``HttpVerbs`` (``client.http_verbs``) maps each REST verb to a
request. Failures raise ``ApiError`` carrying the server's ``Status``. A watch that
the server ends with a 410 (too old resourceVersion) raises ``podscale.client.informer.Gone``
so informers relist. ``HttpListWatcher`` adapts one resource to the informer's
``ListWatcher``. The same controllers run against podscale's embedded server or a real
cluster through this transport.

As client-go's REST client, every request but a watch first takes a token from the
client's bucket (``podscale.client.throttle``: ``qps``/``burst``, client-go's 5/10 when
unset; discovery reads may get a bucket of their own, as kubectl's discovery client has),
and an attempt answered 429 or 5xx with a ``Retry-After`` (or, for a GET, cut off by a
broken connection) is tried again after that many seconds, up to ``max_retries`` times,
each retry taking a token too (a watch's retries included).
"""

from __future__ import annotations

import asyncio
import builtins
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import orjson

from podscale.api.kinds import KindInfo
from podscale.client.connection import Connection
from podscale.client.discovery import ServedKinds, discover_kinds
from podscale.client.http_verbs import HttpVerbs, selector_params
from podscale.client.informer import Gone
from podscale.client.listwatch import ApiListWatcher
from podscale.client.paths import resource_path
from podscale.client.rest_mapping import group_root, mappings_in, versions_to_try
from podscale.client.throttle import (
    DEFAULT_MAX_RETRIES,
    TRANSPORT_ERROR_RETRY_AFTER,
    Limits,
    TokenBucket,
    resolve_limits,
    retry_after,
    retryable_transport_error,
)
from podscale.client.tls_context import ssl_verify, tls_extensions

__all__ = ["ApiError", "HttpApi", "HttpListWatcher"]

JSON = dict[str, Any]


class ApiError(Exception):
    """A non-2xx answer; ``status`` is the HTTP code, ``body`` the Status object (if any)."""

    def __init__(self, status: int, body: JSON) -> None:
        super().__init__(body.get("message") or f"HTTP {status}")
        self.status = status
        self.body = body

    @property
    def reason(self) -> str:
        return str(self.body.get("reason") or "")


def _raise_for(response: httpx.Response, content: bytes) -> None:
    if response.status_code < 400:
        return
    try:
        body = orjson.loads(content)
    except orjson.JSONDecodeError:
        body = {"message": content.decode("utf-8", "replace")}
    raise ApiError(response.status_code, body if isinstance(body, dict) else {})


# Discovery reads (what client-go's discovery client fetches): the group and version
# lists, the server version and the OpenAPI documents.
_DISCOVERY_PATH = re.compile(r"/(api(/[^/]+)?|apis(/[^/]+){0,2}|version|openapi(/.*)?)/?")


def _loop_time() -> float:
    return asyncio.get_running_loop().time()


class HttpApi(HttpVerbs):
    """Async REST client. Use as ``async with HttpApi(connection) as api: ...``; its REST
    verbs (get, list, create, update, patch, delete) are ``HttpVerbs``' (``client.http_verbs``)."""

    def __init__(
        self,
        connection: Connection,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        qps: float | None = None,
        burst: int | None = None,
        discovery_limits: Limits | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        now: Callable[[], float] = _loop_time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        user_agent: str = "podscale",
    ) -> None:
        """``transport`` replaces the network (e.g. ``httpx.ASGITransport(app)`` in-process).

        ``qps``/``burst`` as ``rest.Config``'s (None or 0: 5 and 10; ``qps < 0``: no
        throttling); ``discovery_limits`` gives discovery reads a bucket of their own
        (kubectl's 50/300), else they share the client's. ``now`` (monotonic seconds) and
        ``sleep`` are where the throttle and the retries read time and wait. ``user_agent``
        is sent on every request (the API server's audit log records it, so a program with
        several clients names each, as client-go's ``rest.Config.UserAgent``)."""
        limits = resolve_limits(qps, burst)
        self._throttle = None if limits is None else TokenBucket(limits, now=now, sleep=sleep)
        self._discovery_throttle = (
            self._throttle
            if discovery_limits is None
            else TokenBucket(discovery_limits, now=now, sleep=sleep)
        )
        if max_retries < 0:
            raise ValueError("max_retries must not be negative")
        self._max_retries = max_retries
        self._sleep = sleep
        headers = {"Accept": "application/json", "User-Agent": user_agent}
        if connection.authorization:
            headers["Authorization"] = connection.authorization
        self._extensions = tls_extensions(connection)
        self._client = httpx.AsyncClient(
            base_url=connection.server,
            headers=headers,
            verify=ssl_verify(connection),
            timeout=timeout,
            transport=transport,
        )

    async def __aenter__(self) -> HttpApi:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, str] | None = None,
        body: JSON | builtins.list[Any] | None = None,
        content_type: str = "application/json",
        accept: str | None = None,
    ) -> JSON:
        """One request; ``accept`` overrides the JSON Accept header (e.g. for Tables).
        Throttled, and retried as the module docstring says (the body is kept in memory,
        so any verb can be replayed, as client-go replays a buffered body)."""
        content = orjson.dumps(body) if body is not None else None
        headers = {"Content-Type": content_type} if content is not None else {}
        if accept is not None:
            headers["Accept"] = accept
        throttle = self._throttle_for(method, path)
        retries = 0
        while True:
            if throttle is not None:
                await throttle.wait()
            try:
                response = await self._client.request(
                    method,
                    path,
                    params=params,
                    content=content,
                    headers=headers or None,
                    extensions=self._extensions or None,
                )
            except httpx.TransportError as err:
                if retries >= self._max_retries or not retryable_transport_error(method, err):
                    raise
                wait = TRANSPORT_ERROR_RETRY_AFTER
            else:
                found = retry_after(response.status_code, response.headers)
                if found is None or retries >= self._max_retries:
                    _raise_for(response, response.content)
                    return orjson.loads(response.content) if response.content else {}
                wait = found
            retries += 1
            await self._sleep(float(wait))

    def _throttle_for(self, method: str, path: str) -> TokenBucket | None:
        if method.upper() == "GET" and _DISCOVERY_PATH.fullmatch(path):
            return self._discovery_throttle
        return self._throttle

    async def served_kinds(self) -> ServedKinds:
        """Every resource the server serves (built in or custom), from its discovery."""

        async def fetch(path: str) -> JSON | None:
            try:
                return await self.request("GET", path)
            except (ApiError, httpx.HTTPError, orjson.JSONDecodeError):
                return None

        return await discover_kinds(fetch)

    async def rest_mappings(self, group: str, kind: str) -> builtins.list[KindInfo]:
        """Every version of ``group`` serving ``kind``, preferred first, from the server's
        discovery documents (``rest_mapping``); none when the group or kind is not served."""
        root = group_root(group)
        try:
            document = await self.request("GET", root)
        except ApiError as err:
            if err.status == 404:
                return []
            raise
        versions, preferred = versions_to_try(group, document)
        mappings: builtins.list[KindInfo] = []
        for version in versions:
            try:
                resources = await self.request("GET", f"{root}/{version}")
            except ApiError as err:
                if err.status == 404:  # dropped between the two reads
                    continue
                raise
            mappings += mappings_in(group, version, kind, resources, preferred=version == preferred)
        return mappings

    async def watch(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        resource_version: str = "",
        label_selector: str | None = None,
        field_selector: str | None = None,
        timeout_seconds: int | None = None,
        send_initial_events: bool | None = None,
    ) -> AsyncIterator[tuple[str, JSON]]:
        """``(type, object)`` pairs until the server ends the stream; ``Gone`` on 410.
        ``send_initial_events`` asks for a watch-list stream (``resourceVersionMatch`` is
        then NotOlderThan, as upstream requires)."""
        params = selector_params(label_selector, field_selector)
        params["watch"] = "true"
        params["allowWatchBookmarks"] = "true"
        if resource_version:
            params["resourceVersion"] = resource_version
        if timeout_seconds is not None:
            params["timeoutSeconds"] = str(timeout_seconds)
        if send_initial_events is not None:
            params["sendInitialEvents"] = "true" if send_initial_events else "false"
            params["resourceVersionMatch"] = "NotOlderThan"
        path = resource_path(kind, namespace)
        response = await self._open_watch(path, params)
        try:
            async for line in _lines_until_broken(response):
                if not line.strip():
                    continue
                event = orjson.loads(line)
                obj = event.get("object") or {}
                if event.get("type") == "ERROR":
                    if obj.get("code") == 410:
                        raise Gone(str(obj.get("message") or "resource version too old"))
                    raise ApiError(int(obj.get("code") or 500), obj)
                yield str(event.get("type")), obj
        finally:
            await response.aclose()

    async def _open_watch(self, path: str, params: dict[str, str]) -> httpx.Response:
        """The watch's streaming response once the server accepted it.

        client-go never throttles a watch's first attempt (a watch is long-lived, not a
        burst of load) but retries it as any request, with a token per retry; a broken
        connection or a timeout counts as retryable for a watch."""
        request = self._client.build_request(
            "GET", path, params=params, timeout=None, extensions=self._extensions or None
        )
        retries = 0
        while True:
            if retries and self._throttle is not None:
                await self._throttle.wait()
            try:
                response = await self._client.send(request, stream=True)
            except httpx.TransportError as err:
                if retries >= self._max_retries or not retryable_transport_error(
                    "GET", err, watch=True
                ):
                    raise
                wait = TRANSPORT_ERROR_RETRY_AFTER
            else:
                if response.status_code < 400:
                    return response
                content = await response.aread()
                await response.aclose()
                found = retry_after(response.status_code, response.headers)
                if found is None or retries >= self._max_retries:
                    if response.status_code == 410:
                        raise Gone(content.decode("utf-8", "replace"))
                    _raise_for(response, content)
                wait = found if found is not None else 0
            retries += 1
            await self._sleep(float(wait))


async def _lines_until_broken(response: httpx.Response) -> AsyncIterator[str]:
    """The stream's lines; a connection that breaks mid-stream ends them as the server's
    close would. client-go's stream watcher treats an EOF, an unexpected EOF or a reset
    connection as the watch closing, so the informer simply watches again from the last
    resourceVersion it saw (no relist)."""
    try:
        async for line in response.aiter_lines():
            yield line
    except (httpx.ReadError, httpx.RemoteProtocolError):
        return


# Kept under this name for callers; one implementation serves both transports.
HttpListWatcher = ApiListWatcher
