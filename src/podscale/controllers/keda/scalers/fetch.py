"""A bounded HTTP GET for the scalers that read over HTTP (prometheus, metrics-api).

KEDA's scalers use a Go `http.Client` whose `Timeout` (the global
`KEDA_HTTP_DEFAULT_TIMEOUT`, 3 s, or the trigger's `timeout`) bounds the whole exchange,
body included. `bounded_get` does the same with one total deadline and also refuses a
body over `max_bytes` after reading at most that many (KEDA reads any size; podscale
shares one event loop with the control plane, so a scaler must not buffer without
bound). Transport failures read as Go's client wraps them: `Get "<url>": <cause>`.
The scalers' own status and decoding rules live in their modules.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import httpx

from podscale.controllers.keda.scalers.base import ScalerError

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_TIMEOUT", "HttpAnswer", "bounded_get", "make_client"]

DEFAULT_TIMEOUT: Final = 3.0  # KEDA's KEDA_HTTP_DEFAULT_TIMEOUT default, 3000 ms
DEFAULT_MAX_BYTES: Final = 4 * 1024 * 1024
# Go's net/http text when Client.Timeout expires.
_DEADLINE: Final = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    path: str  # the final request's URL path (after redirects), as Go's r.Request.URL.Path
    body: bytes


async def _read(
    client: httpx.AsyncClient, url: str, headers: Mapping[str, str], max_bytes: int
) -> HttpAnswer:
    async with client.stream("GET", url, headers=dict(headers)) as response:
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            raise _too_large(url, max_bytes)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise _too_large(url, max_bytes)
            chunks.append(chunk)
        return HttpAnswer(response.status_code, response.url.path, b"".join(chunks))


def _too_large(url: str, max_bytes: int) -> ScalerError:
    return ScalerError(f'Get "{url}": response body exceeds {max_bytes} bytes (podscale limit)')


async def bounded_get(
    client: httpx.AsyncClient,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> HttpAnswer:
    """GET `url` within `timeout` seconds in all; `ScalerError` on any transport failure."""
    try:
        async with asyncio.timeout(timeout):
            return await _read(client, url, headers or {}, max_bytes)
    except (TimeoutError, httpx.TimeoutException):
        raise ScalerError(f'Get "{url}": {_DEADLINE}') from None
    except httpx.InvalidURL as err:
        raise ScalerError(f'parse "{url}": {err}') from None
    except httpx.HTTPError as err:
        raise ScalerError(f'Get "{url}": {err or type(err).__name__}') from None


def make_client(
    transport: httpx.AsyncBaseTransport | None, *, timeout: float, verify: bool = True
) -> httpx.AsyncClient:
    """One scaler's client: redirects followed as Go's client follows them."""
    return httpx.AsyncClient(
        transport=transport,
        timeout=httpx.Timeout(timeout),
        verify=verify,
        follow_redirects=True,
    )
