"""The HTTP transport: an async client for any Kubernetes-compatible API server.

``HttpApi`` speaks the REST API over httpx (JSON in, JSON out; watches as newline-delimited
JSON streams). Failures raise ``ApiError`` carrying the server's ``Status``. A watch that
the server ends with a 410 (too old resourceVersion) raises ``podscale.client.informer.Gone``
so informers relist. ``HttpListWatcher`` adapts one resource to the informer's
``ListWatcher``. The same controllers run against podscale's embedded server or a real
cluster through this transport.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson

from podscale.api.kinds import KindInfo
from podscale.client.connection import Connection
from podscale.client.discovery import ServedKinds, discover_kinds
from podscale.client.informer import Gone
from podscale.client.listwatch import ApiListWatcher
from podscale.client.paths import resource_path
from podscale.client.rest_mapping import group_root, mappings_in, versions_to_try
from podscale.client.tls_context import ssl_verify, tls_extensions
from podscale.store.interface import Preconditions

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


class HttpApi:
    """Async REST client. Use as ``async with HttpApi(connection) as api: ...``."""

    def __init__(
        self,
        connection: Connection,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """``transport`` replaces the network (e.g. ``httpx.ASGITransport(app)`` in-process)."""
        headers = {"Accept": "application/json", "User-Agent": "podscale"}
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
        """One request; ``accept`` overrides the JSON Accept header (e.g. for Tables)."""
        content = orjson.dumps(body) if body is not None else None
        headers = {"Content-Type": content_type} if content is not None else {}
        if accept is not None:
            headers["Accept"] = accept
        response = await self._client.request(
            method,
            path,
            params=params,
            content=content,
            headers=headers or None,
            extensions=self._extensions or None,
        )
        _raise_for(response, response.content)
        return orjson.loads(response.content) if response.content else {}

    async def served_kinds(self) -> ServedKinds:
        """Every resource the server serves (built in or custom), from its discovery."""

        async def fetch(path: str) -> JSON | None:
            try:
                return await self.request("GET", path)
            except (ApiError, httpx.HTTPError, orjson.JSONDecodeError):
                return None

        return await discover_kinds(fetch)

    async def get(
        self, kind: KindInfo, namespace: str | None, name: str, subresource: str | None = None
    ) -> JSON:
        return await self.request("GET", resource_path(kind, namespace, name, subresource))

    async def list(
        self,
        kind: KindInfo,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        limit: int | None = None,
        continue_token: str | None = None,
        resource_version: str | None = None,
        resource_version_match: str | None = None,
    ) -> JSON:
        """A list (one page with ``limit``); ``resource_version`` and
        ``resource_version_match`` pick the snapshot as upstream's ListOptions do."""
        params = _selectors(label_selector, field_selector)
        optional = {
            "limit": str(limit) if limit else None,
            "continue": continue_token,
            "resourceVersion": resource_version,
            "resourceVersionMatch": resource_version_match,
        }
        params.update({key: value for key, value in optional.items() if value})
        return await self.request("GET", resource_path(kind, namespace), params=params)

    async def create(
        self, kind: KindInfo, namespace: str | None, obj: JSON, *, subresource: str | None = None
    ) -> JSON:
        """POST a new object; with ``subresource`` (``binding``) POST ``obj`` to the
        subresource of the object its ``metadata.name`` names, as client-go's ``Bind``."""
        if subresource is None:
            return await self.request("POST", resource_path(kind, namespace), body=obj)
        name = str((obj.get("metadata") or {}).get("name") or "")
        path = resource_path(kind, namespace, name, subresource)
        return await self.request("POST", path, body=obj)

    async def update(
        self, kind: KindInfo, namespace: str | None, obj: JSON, subresource: str | None = None
    ) -> JSON:
        name = str(obj["metadata"]["name"])
        return await self.request(
            "PUT", resource_path(kind, namespace, name, subresource), body=obj
        )

    async def patch(
        self,
        kind: KindInfo,
        namespace: str | None,
        name: str,
        patch: JSON | builtins.list[Any],
        *,
        content_type: str = "application/merge-patch+json",
        subresource: str | None = None,
    ) -> JSON:
        path = resource_path(kind, namespace, name, subresource)
        return await self.request("PATCH", path, body=patch, content_type=content_type)

    async def delete(
        self,
        kind: KindInfo,
        namespace: str | None,
        name: str,
        *,
        propagation: str | None = None,
        preconditions: Preconditions | None = None,
        grace_period_seconds: int | None = None,
    ) -> JSON:
        options: JSON = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if propagation:
            options["propagationPolicy"] = propagation
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        if preconditions is not None:
            wanted = {"uid": preconditions.uid, "resourceVersion": preconditions.resource_version}
            options["preconditions"] = {k: v for k, v in wanted.items() if v is not None}
        return await self.request("DELETE", resource_path(kind, namespace, name), body=options)

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

    async def delete_collection(
        self,
        kind: KindInfo,
        namespace: str | None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        propagation: str | None = None,
        grace_period_seconds: int | None = None,
    ) -> JSON:
        """DELETE on the collection: the objects the selectors match; the reply lists them."""
        options: JSON = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if propagation:
            options["propagationPolicy"] = propagation
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        params = _selectors(label_selector, field_selector)
        return await self.request(
            "DELETE", resource_path(kind, namespace), params=params, body=options
        )

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
        params = _selectors(label_selector, field_selector)
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
        stream = self._client.stream(
            "GET", path, params=params, timeout=None, extensions=self._extensions or None
        )
        async with stream as response:
            if response.status_code >= 400:
                content = await response.aread()
                if response.status_code == 410:
                    raise Gone(content.decode("utf-8", "replace"))
                _raise_for(response, content)
            async for line in response.aiter_lines():
                if not line.strip():
                    continue
                event = orjson.loads(line)
                obj = event.get("object") or {}
                if event.get("type") == "ERROR":
                    if obj.get("code") == 410:
                        raise Gone(str(obj.get("message") or "resource version too old"))
                    raise ApiError(int(obj.get("code") or 500), obj)
                yield str(event.get("type")), obj


def _selectors(label_selector: str | None, field_selector: str | None) -> dict[str, str]:
    params: dict[str, str] = {}
    if label_selector:
        params["labelSelector"] = label_selector
    if field_selector:
        params["fieldSelector"] = field_selector
    return params


# Kept under this name for callers; one implementation serves both transports.
HttpListWatcher = ApiListWatcher
