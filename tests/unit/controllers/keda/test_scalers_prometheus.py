"""KEDA's prometheus scaler over a MockTransport: the URL it requests and how it reads
the answer (one series, empty results, NaN/Inf and null under ignoreNullValues)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from podscale.controllers.keda.scalers.base import ScalerError, ScalerReading
from podscale.controllers.keda.scalers.prometheus import PrometheusScaler, query_url
from podscale.controllers.keda.triggers.prometheus import PrometheusTrigger
from podscale.controllers.keda.triggers.registry import parse_trigger

NOW = datetime(2026, 1, 1, 12, 30, 5, 250000, tzinfo=UTC)
BASE = {"serverAddress": "http://prom:9090", "query": "sum(queue_depth)", "threshold": "10"}


def _trigger(**metadata: str) -> PrometheusTrigger:
    spec = parse_trigger(0, {"type": "prometheus", "metadata": {**BASE, **metadata}})
    assert isinstance(spec.details, PrometheusTrigger)
    return spec.details


def _vector(*values: Any) -> dict[str, Any]:
    result = [{"metric": {"i": str(i)}, "value": [1767270605, v]} for i, v in enumerate(values)]
    return {"status": "success", "data": {"resultType": "vector", "result": result}}


def _read(trigger: PrometheusTrigger, status: int, body: Any) -> ScalerReading:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=content)

    async def run() -> ScalerReading:
        scaler = PrometheusScaler(trigger, httpx.MockTransport(handler))
        try:
            return await scaler.read(NOW)
        finally:
            await scaler.close()

    return asyncio.run(run())


READS = [
    ("one-series-value", {}, 200, _vector("12.5"), 12.5, True),
    (
        "value-at-activation-threshold-is-inactive",
        {"activationThreshold": "3"},
        200,
        _vector("3"),
        3.0,
        False,
    ),
    (
        "value-above-activation-threshold-is-active",
        {"activationThreshold": "3"},
        200,
        _vector("3.5"),
        3.5,
        True,
    ),
    ("zero-is-inactive-by-default", {}, 200, _vector("0"), 0.0, False),
    ("empty-result-is-zero-when-ignoring-nulls", {}, 200, _vector(), 0.0, False),
    ("nan-is-zero-when-ignoring-nulls", {}, 200, _vector("NaN"), 0.0, False),
    ("inf-is-zero-when-ignoring-nulls", {}, 200, _vector("+Inf"), 0.0, False),
    (
        "null-sample-value-reads-minus-one",
        {"ignoreNullValues": "false"},
        200,
        _vector(None),
        -1.0,
        False,
    ),
    (
        "empty-value-list-is-zero-when-ignoring-nulls",
        {},
        200,
        {"status": "success", "data": {"result": [{"metric": {}, "value": []}]}},
        0.0,
        False,
    ),
]


@pytest.mark.parametrize(
    ("metadata", "status", "body", "value", "active"),
    [row[1:] for row in READS],
    ids=[row[0] for row in READS],
)
def test_reads(
    metadata: dict[str, str], status: int, body: Any, value: float, active: bool
) -> None:
    assert _read(_trigger(**metadata), status, body) == ScalerReading(value, active)


STRICT = {"ignoreNullValues": "false"}
ERRORS = [
    (
        "two-series-is-error",
        {},
        200,
        _vector("1", "2"),
        "prometheus query sum(queue_depth) returned multiple elements",
    ),
    (
        "empty-result-is-error-without-ignore-nulls",
        STRICT,
        200,
        _vector(),
        "prometheus metrics 'prometheus' target may be lost, the result is empty",
    ),
    (
        "empty-value-list-is-error-without-ignore-nulls",
        STRICT,
        200,
        {"status": "success", "data": {"result": [{"metric": {}, "value": []}]}},
        "prometheus metrics 'prometheus' target may be lost, the value list is empty",
    ),
    (
        "one-element-value-is-not-enough",
        {},
        200,
        {"status": "success", "data": {"result": [{"metric": {}, "value": [1]}]}},
        "prometheus query sum(queue_depth) didn't return enough values",
    ),
    (
        "nan-is-error-without-ignore-nulls",
        STRICT,
        200,
        _vector("NaN"),
        "prometheus query returns NaN",
    ),
    (
        "inf-is-error-without-ignore-nulls",
        STRICT,
        200,
        _vector("-Inf"),
        "prometheus query returns -Inf",
    ),
    (
        "non-2xx-status-is-error",
        {},
        400,
        {"status": "error", "error": "parse error"},
        "prometheus query api returned error. status: 400",
    ),
    (
        "unparsable-value-is-go-parse-float-error",
        {},
        200,
        _vector("12 "),
        'strconv.ParseFloat: parsing "12 ": invalid syntax',
    ),
    (
        "non-json-body-is-go-json-error",
        {},
        200,
        b"<html>",
        "invalid character '<' looking for beginning of value",
    ),
]


@pytest.mark.parametrize(
    ("metadata", "status", "body", "message"),
    [row[1:] for row in ERRORS],
    ids=[row[0] for row in ERRORS],
)
def test_errors(metadata: dict[str, str], status: int, body: Any, message: str) -> None:
    with pytest.raises(ScalerError) as caught:
        _read(_trigger(**metadata), status, body)
    assert str(caught.value) == message


def test_request_carries_query_time_namespace_parameters_and_headers() -> None:
    trigger = _trigger(
        query='sum(rate(http_requests_total{app="web"}[2m]))',
        namespace="team-a",
        queryParameters="dedup=true",
        customHeaders="X-Scope-OrgID=tenant-1",
    )
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=_vector("1"))

    async def run() -> None:
        scaler = PrometheusScaler(trigger, httpx.MockTransport(handler))
        await scaler.read(NOW)
        await scaler.close()

    asyncio.run(run())
    (request,) = seen
    assert request.url.path == "/api/v1/query"
    assert request.url.params["query"] == 'sum(rate(http_requests_total{app="web"}[2m]))'
    # Go's RFC3339 in UTC: whole seconds.
    assert request.url.params["time"] == "2026-01-01T12:30:05Z"
    assert request.url.params["namespace"] == "team-a"
    assert request.url.params["dedup"] == "true"
    assert request.headers["X-Scope-OrgID"] == "tenant-1"


def test_query_url_orders_parameters_as_keda_builds_them() -> None:
    url = query_url(_trigger(query="up == 1", namespace="ns"), NOW)
    assert url == (
        "http://prom:9090/api/v1/query?query=up+%3D%3D+1&time=2026-01-01T12:30:05Z&namespace=ns"
    )


def test_a_body_over_the_limit_is_refused_not_buffered() -> None:
    trigger = _trigger()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b" " * (5 * 1024 * 1024))

    async def run() -> None:
        scaler = PrometheusScaler(trigger, httpx.MockTransport(handler))
        try:
            await scaler.read(NOW)
        finally:
            await scaler.close()

    with pytest.raises(ScalerError, match="exceeds"):
        asyncio.run(run())


def test_a_transport_timeout_reads_as_gos_client_timeout() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    async def run() -> None:
        scaler = PrometheusScaler(_trigger(), httpx.MockTransport(handler))
        try:
            await scaler.read(NOW)
        finally:
            await scaler.close()

    with pytest.raises(
        ScalerError, match=r"^Get \"http://prom:9090/api/v1/query\?.*Client\.Timeout"
    ):
        asyncio.run(run())


def test_trigger_timeout_overrides_the_global_default() -> None:
    assert PrometheusScaler(_trigger(timeout="500")).timeout == 0.5
    assert PrometheusScaler(_trigger()).timeout == 3.0
