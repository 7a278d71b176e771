"""An async client for Prometheus's HTTP API: instant and range queries, series discovery.

Bounded in both time and space, because it sits on the HPA's path: every call has a total
deadline (``timeout`` seconds from connect to the last body byte, so a server trickling bytes
cannot stall a sync), and a body larger than ``max_response_bytes`` is refused after reading
at most that many bytes. Instant queries also pass ``timeout`` to Prometheus so it gives up on
its side too. Answers with ``status != "success"`` become ``PrometheusError`` carrying
Prometheus's ``errorType`` and ``error``.

``now``/``at`` are always parameters: the client never reads a clock.
Neighbours: ``results`` turns ``query`` data into samples; ``registry`` uses ``series``;
``history`` reads ``query_range`` matrices.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Final

import httpx

from podscale.metrics.prometheus.errors import (
    PrometheusError,
    PrometheusTimeout,
    ResponseTooLarge,
)
from podscale.metrics.prometheus.results import Sample, parse_query_data

__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "DEFAULT_TIMEOUT", "PrometheusClient"]

DEFAULT_TIMEOUT: Final = 10.0
DEFAULT_MAX_RESPONSE_BYTES: Final = 16 * 1024 * 1024


def _unix(at: datetime) -> str:
    if at.tzinfo is None:
        raise ValueError("Prometheus times must be timezone-aware")
    return f"{at.timestamp():.3f}"


class PrometheusClient:
    """Talks to one Prometheus at ``base_url`` (e.g. ``http://127.0.0.1:9090``).

    Use as ``async with PrometheusClient(url) as client`` or call ``aclose()``. ``transport``
    lets tests substitute an ``httpx.MockTransport``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        if max_response_bytes <= 0:
            raise ValueError("max_response_bytes must be positive")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self._http = httpx.AsyncClient(
            base_url=self.base_url, timeout=httpx.Timeout(timeout), transport=transport
        )

    async def __aenter__(self) -> PrometheusClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def query(self, expr: str, at: datetime) -> list[Sample]:
        """Evaluate ``expr`` at ``at`` (``/api/v1/query``); see ``results`` for what is refused."""
        params = {"query": expr, "time": _unix(at), "timeout": f"{self.timeout:g}"}
        data = await self._get("/api/v1/query", params, what=f"query {expr}")
        return parse_query_data(data, expr)

    async def query_range(self, expr: str, start: datetime, end: datetime, step: timedelta) -> Any:
        """Evaluate ``expr`` at ``start``, ``start + step``, ... up to ``end``
        (``/api/v1/query_range``); the answer's ``data`` (a ``matrix``), undecoded."""
        params = {
            "query": expr,
            "start": _unix(start),
            "end": _unix(end),
            "step": f"{step.total_seconds():g}",
            "timeout": f"{self.timeout:g}",
        }
        return await self._get("/api/v1/query_range", params, what=f"query_range {expr}")

    async def series(
        self, matches: Sequence[str], start: datetime, end: datetime
    ) -> list[dict[str, str]]:
        """Label sets of the series matching any of ``matches`` between ``start`` and ``end``."""
        params: list[tuple[str, str]] = [("match[]", m) for m in matches]
        params += [("start", _unix(start)), ("end", _unix(end))]
        data = await self._get("/api/v1/series", params, what=f"series {list(matches)}")
        if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
            raise PrometheusError(f"malformed series response for {list(matches)}")
        return [{str(k): str(v) for k, v in item.items()} for item in data]

    async def _get(self, path: str, params: Any, what: str) -> Any:
        try:
            async with asyncio.timeout(self.timeout):
                status, body = await self._fetch(path, params)
        except TimeoutError:
            raise PrometheusTimeout(
                f"Prometheus at {self.base_url} did not answer {what} within {self.timeout:g}s"
            ) from None
        except httpx.TimeoutException:
            raise PrometheusTimeout(
                f"Prometheus at {self.base_url} did not answer {what} within {self.timeout:g}s"
            ) from None
        except httpx.HTTPError as err:
            raise PrometheusError(f"unable to reach Prometheus at {self.base_url}: {err}") from err
        return _decode(status, body, what)

    async def _fetch(self, path: str, params: Any) -> tuple[int, bytes]:
        async with self._http.stream("GET", path, params=params) as response:
            declared = response.headers.get("content-length")
            if (
                declared is not None
                and declared.isdigit()
                and int(declared) > self.max_response_bytes
            ):
                raise self._too_large()
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self.max_response_bytes:
                    raise self._too_large()
                chunks.append(chunk)
            return response.status_code, b"".join(chunks)

    def _too_large(self) -> ResponseTooLarge:
        return ResponseTooLarge(
            f"response from Prometheus at {self.base_url} exceeds "
            f"{self.max_response_bytes} bytes; refusing to read it"
        )


def _decode(status: int, body: bytes, what: str) -> Any:
    try:
        document = json.loads(body)
    except ValueError:
        snippet = body[:200].decode("utf-8", "replace")
        raise PrometheusError(f"unexpected response to {what} (HTTP {status}): {snippet}") from None
    if not isinstance(document, dict):
        raise PrometheusError(f"unexpected response to {what} (HTTP {status})")
    if document.get("status") != "success":
        kind = document.get("errorType") or "unknown"
        message = document.get("error") or f"status {document.get('status')!r}"
        raise PrometheusError(f"Prometheus refused {what} (HTTP {status}, {kind}): {message}")
    if "data" not in document:
        raise PrometheusError(f"unexpected response to {what}: no data")
    return document["data"]
