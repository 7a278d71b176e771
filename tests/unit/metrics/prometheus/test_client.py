"""The HTTP client against scripted answers: parameters, errors, time and size bounds."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from podscale.metrics.prometheus.client import PrometheusClient
from podscale.metrics.prometheus.errors import (
    PrometheusError,
    PrometheusTimeout,
    ResponseTooLarge,
)
from podscale.metrics.prometheus.results import Sample

NOW = datetime(2026, 1, 2, 3, 4, 5, 250000, tzinfo=UTC)
Handler = Callable[[httpx.Request], Coroutine[Any, Any, httpx.Response]]


def _ok(data: Any) -> httpx.Response:
    return httpx.Response(200, json={"status": "success", "data": data})


def _run(
    handler: Handler, call: Callable[[PrometheusClient], Awaitable[Any]], **options: Any
) -> Any:
    async def main() -> Any:
        transport = httpx.MockTransport(handler)
        async with PrometheusClient("http://prom:9090/", transport=transport, **options) as client:
            return await call(client)

    return asyncio.run(main())


def test_query_sends_time_and_timeout_and_reads_the_vector() -> None:
    seen: list[httpx.Request] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        result = [{"metric": {"pod": "a"}, "value": [NOW.timestamp(), "3"]}]
        return _ok({"resultType": "vector", "result": result})

    samples = _run(handler, lambda c: c.query('up{job="x"}', NOW), timeout=2.5)
    assert samples == [Sample({"pod": "a"}, 3000, NOW)]
    (request,) = seen
    assert request.url.path == "/api/v1/query"
    assert dict(request.url.params) == {
        "query": 'up{job="x"}',
        "time": f"{NOW.timestamp():.3f}",
        "timeout": "2.5",
    }


def test_series_sends_every_match_and_the_range() -> None:
    seen: list[httpx.Request] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return _ok([{"__name__": "up", "job": "x"}])

    start = NOW - timedelta(minutes=10)
    series = _run(handler, lambda c: c.series(["{a!=''}", "up"], start, NOW))
    assert series == [{"__name__": "up", "job": "x"}]
    params = seen[0].url.params
    assert params.get_list("match[]") == ["{a!=''}", "up"]
    assert (params["start"], params["end"]) == (
        f"{start.timestamp():.3f}",
        f"{NOW.timestamp():.3f}",
    )


async def _refuse(request: httpx.Request) -> httpx.Response:
    body = {"status": "error", "errorType": "bad_data", "error": "parse error at char 5"}
    return httpx.Response(400, json=body)


async def _html(request: httpx.Request) -> httpx.Response:
    return httpx.Response(502, text="<html>bad gateway</html>")


async def _not_success(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"status": "weird"})


async def _unreachable(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("connection refused", request=request)


async def _read_timeout(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadTimeout("timed out", request=request)


async def _never(request: httpx.Request) -> httpx.Response:
    await asyncio.Event().wait()  # no answer, ever: only the client's deadline ends this
    raise AssertionError("unreachable")


async def _declared_large(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, content=b"x" * 2048)


async def _streamed_large(request: httpx.Request) -> httpx.Response:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(100):
            yield b"y" * 512

    return httpx.Response(200, content=chunks())


@pytest.mark.parametrize(
    ("handler", "error", "message"),
    [
        (
            _refuse,
            PrometheusError,
            r"refused query up \(HTTP 400, bad_data\): parse error at char 5",
        ),
        (
            _html,
            PrometheusError,
            r"unexpected response to query up \(HTTP 502\): <html>bad gateway",
        ),
        (_not_success, PrometheusError, "status 'weird'"),
        (_unreachable, PrometheusError, "unable to reach Prometheus at http://prom:9090"),
        (_read_timeout, PrometheusTimeout, r"did not answer query up within 0\.2s"),
        (_never, PrometheusTimeout, r"did not answer query up within 0\.2s"),
        (_declared_large, ResponseTooLarge, "exceeds 1024 bytes"),
        (_streamed_large, ResponseTooLarge, "exceeds 1024 bytes"),
    ],
    ids=[
        "refused",
        "not-json",
        "not-success",
        "unreachable",
        "read-timeout",
        "no-answer",
        "declared-too-large",
        "streamed-too-large",
    ],
)
def test_failures_are_clear_errors(handler: Handler, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        _run(handler, lambda c: c.query("up", NOW), timeout=0.2, max_response_bytes=1024)


def test_malformed_series_answer() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        return _ok({"not": "a list"})

    with pytest.raises(PrometheusError, match="malformed series response"):
        _run(handler, lambda c: c.series(["up"], NOW, NOW))


def test_naive_times_are_refused() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        return _ok(json.loads("[]"))

    with pytest.raises(ValueError, match="timezone-aware"):
        _run(handler, lambda c: c.query("up", datetime(2026, 1, 1)))


@pytest.mark.parametrize(
    "options",
    [{"timeout": 0}, {"max_response_bytes": 0}],
    ids=["timeout", "max-bytes"],
)
def test_bounds_must_be_positive(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must be positive"):
        PrometheusClient("http://prom", **options)
