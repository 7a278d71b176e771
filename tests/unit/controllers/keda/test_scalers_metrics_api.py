"""KEDA's metrics-api scaler: GJSON valueLocation, quantities in strings, its error texts."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from podscale.controllers.keda.scalers.base import ScalerError, ScalerReading
from podscale.controllers.keda.scalers.gjson import gjson_get
from podscale.controllers.keda.scalers.metrics_api import MetricsApiScaler, metrics_api_value
from podscale.controllers.keda.triggers.metrics_api import MetricsApiTrigger
from podscale.controllers.keda.triggers.registry import parse_trigger

NOW = datetime(2026, 1, 1, tzinfo=UTC)
DOC = {
    "components": {"worker": {"tasks": 12, "queue": "2k", "cpu": "250m", "name": "w"}},
    "items": [{"n": 1}, {"n": 4}],
    "flag": True,
    "nothing": None,
    "a.b": 7,
    "dup": 1,
}


def _body(doc: Any = DOC) -> bytes:
    return json.dumps(doc).encode()


VALUES = [
    ("metrics-api-value-location-nested", "components.worker.tasks", 12.0),
    ("metrics-api-string-quantity-kilo", "components.worker.queue", 2000.0),
    ("metrics-api-string-quantity-milli", "components.worker.cpu", 0.25),
    ("metrics-api-array-index", "items.1.n", 4.0),
    ("metrics-api-array-length", "items.#", 2.0),
    ("metrics-api-escaped-dot", "a\\.b", 7.0),
    ("metrics-api-wildcard-key", "components.work*.tasks", 12.0),
]


@pytest.mark.parametrize(
    ("location", "value"), [row[1:] for row in VALUES], ids=[row[0] for row in VALUES]
)
def test_values(location: str, value: float) -> None:
    assert metrics_api_value(_body(), location) == value


WRONG = (
    "valueLocation must point to value of type number or a string representing a Quantity got: '{}'"
)
REFUSALS = [
    ("metrics-api-missing-path-is-null", "components.none", "Null"),
    ("metrics-api-null-value", "nothing", "Null"),
    ("metrics-api-boolean-is-true", "flag", "True"),
    ("metrics-api-object-is-json", "components.worker", "JSON"),
    ("metrics-api-array-map-is-json", "items.#.n", "JSON"),
    ("metrics-api-non-quantity-string-names-the-string", "components.worker.name", "w"),
]


@pytest.mark.parametrize(
    ("location", "shown"), [row[1:] for row in REFUSALS], ids=[row[0] for row in REFUSALS]
)
def test_refusals(location: str, shown: str) -> None:
    with pytest.raises(ScalerError) as caught:
        metrics_api_value(_body(), location)
    assert str(caught.value) == WRONG.format(shown)


def test_duplicate_keys_read_the_first_as_gjson_scans() -> None:
    assert gjson_get(b'{"dup": 1, "dup": 2}', "dup") == ("Number", 1)


def test_a_body_that_is_not_json_reads_as_null() -> None:
    assert gjson_get(b"<html>", "a") == ("Null", None)


def _trigger(**metadata: str) -> MetricsApiTrigger:
    base = {"url": "http://api:8080/stats", "valueLocation": "components.worker.tasks"}
    spec = parse_trigger(
        1, {"type": "metrics-api", "metadata": {**base, "targetValue": "5", **metadata}}
    )
    assert isinstance(spec.details, MetricsApiTrigger)
    return spec.details


def _read(trigger: MetricsApiTrigger, status: int, body: bytes) -> ScalerReading:
    def handler(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == trigger.url
        return httpx.Response(status, content=body)

    async def run() -> ScalerReading:
        scaler = MetricsApiScaler(trigger, httpx.MockTransport(handler))
        try:
            return await scaler.read(NOW)
        finally:
            await scaler.close()

    return asyncio.run(run())


def test_read_reports_value_and_activity() -> None:
    assert _read(_trigger(), 200, _body()) == ScalerReading(12.0, True)
    inactive = _trigger(activationTargetValue="12")
    assert _read(inactive, 200, _body()) == ScalerReading(12.0, False)


READ_ERRORS = [
    (
        "metrics-api-non-200-names-path-and-status",
        503,
        _body(),
        "error requesting metrics endpoint: /stats: api returned 503",
    ),
    (
        "metrics-api-201-is-not-ok",
        201,
        _body(),
        "error requesting metrics endpoint: /stats: api returned 201",
    ),
    (
        "metrics-api-wrong-type-is-wrapped",
        200,
        _body({"components": {}}),
        "error requesting metrics endpoint: " + WRONG.format("Null"),
    ),
]


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [row[1:] for row in READ_ERRORS],
    ids=[row[0] for row in READ_ERRORS],
)
def test_read_errors(status: int, body: bytes, message: str) -> None:
    with pytest.raises(ScalerError) as caught:
        _read(_trigger(), status, body)
    assert str(caught.value) == message


def test_formats_other_than_json_are_refused_at_read() -> None:
    with pytest.raises(ScalerError, match="format yaml is not supported by podscale"):
        _read(_trigger(format="yaml"), 200, b"a: 1")
