"""KEDA's `prometheus` scaler: one instant query, one number.

`read(now)` GETs `<serverAddress>/api/v1/query?query=<query>&time=<now, RFC3339>` (then
`&namespace=` when set, for Thanos-style tenancy, then the `queryParameters`), with the
`customHeaders`. `prometheus_value` applies KEDA's reading rules to the answer: a non-2xx
status is an error; no series reads 0 when `ignoreNullValues` (the default) and is an
error otherwise; more than one series is always an error; a value that is NaN or ±Inf
reads 0 under `ignoreNullValues`, else an error; a JSON `null` sample value reads as -1
(KEDA's initial value, which it returns unchanged). Active means value > activationThreshold.
`unsafeSsl` turns certificate checks off as KEDA does; auth (bearer, basic, cloud
identities) is not supported. The HTTP exchange is `fetch.bounded_get`.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote_plus

import httpx

from podscale.controllers.keda.scalers.base import ScalerError, ScalerReading
from podscale.controllers.keda.scalers.fetch import DEFAULT_TIMEOUT, bounded_get, make_client
from podscale.controllers.keda.triggers.gojson import quote_char
from podscale.controllers.keda.triggers.prometheus import PrometheusTrigger

__all__ = ["PrometheusScaler", "go_parse_float", "prometheus_value", "query_url"]

_LOST = "prometheus metrics 'prometheus' target may be lost, "


def _rfc3339(now: datetime) -> str:
    # Go's time.Now().UTC().Format(time.RFC3339): whole seconds, "Z".
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def query_url(trigger: PrometheusTrigger, now: datetime) -> str:
    """The URL KEDA's ExecutePromQuery requests at `now`."""
    url = (
        f"{trigger.server_address}/api/v1/query?query={quote_plus(trigger.query)}"
        f"&time={_rfc3339(now)}"
    )
    if trigger.namespace:
        url += f"&namespace={trigger.namespace}"
    for key, value in trigger.query_parameters.items():
        url += f"&{quote_plus(key)}={quote_plus(value)}"
    return url


def go_parse_float(text: str) -> float:
    """Go's `strconv.ParseFloat(text, 64)` for the texts Prometheus sends; its error text."""
    # Python's float() also takes surrounding spaces and digit underscores; Go does not.
    if text != text.strip() or "_" in text:
        raise ScalerError(f'strconv.ParseFloat: parsing "{text}": invalid syntax')
    try:
        return float(text)
    except ValueError:
        raise ScalerError(f'strconv.ParseFloat: parsing "{text}": invalid syntax') from None


def _go_percent_f(value: float) -> str:
    """Go's `%f` of a non-finite float."""
    if math.isnan(value):
        return "NaN"
    return "+Inf" if value > 0 else "-Inf"


def _decode(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        text = body.decode("utf-8", "replace").lstrip(" \t\r\n")
        if not text:
            raise ScalerError("unexpected end of JSON input") from None
        if text[0] not in '{["-0123456789tfn':
            raise ScalerError(
                f"invalid character {quote_char(text[0])} looking for beginning of value"
            ) from None
        raise ScalerError("invalid JSON in prometheus query response") from None


def prometheus_value(status: int, body: bytes, trigger: PrometheusTrigger) -> float:
    """The number KEDA reads from one `/api/v1/query` answer; `ScalerError` as KEDA words it."""
    if not 200 <= status <= 299:
        raise ScalerError(f"prometheus query api returned error. status: {status}")
    document = _decode(body)
    data = document.get("data") if isinstance(document, dict) else None
    result = data.get("result") if isinstance(data, dict) else None
    # Go decodes a missing or null result as an empty slice.
    series = result if isinstance(result, list) else []
    if not series:
        if trigger.ignore_null_values:
            return 0.0
        raise ScalerError(_LOST + "the result is empty")
    if len(series) > 1:
        raise ScalerError(f"prometheus query {trigger.query} returned multiple elements")
    first = series[0] if isinstance(series[0], dict) else {}
    sample = first.get("value")
    sample = sample if isinstance(sample, list) else []
    if not sample:
        if trigger.ignore_null_values:
            return 0.0
        raise ScalerError(_LOST + "the value list is empty")
    if len(sample) < 2:
        raise ScalerError(f"prometheus query {trigger.query} didn't return enough values")
    raw = sample[1]
    value = -1.0  # KEDA starts from -1 and keeps it when the sample value is null
    if raw is not None:
        if not isinstance(raw, str):
            # KEDA's type assertion would panic; podscale reports it instead.
            raise ScalerError(f"prometheus query {trigger.query} returned a non-string value")
        value = go_parse_float(raw)
    if math.isinf(value) or math.isnan(value):
        if trigger.ignore_null_values:
            return 0.0
        raise ScalerError(f"prometheus query returns {_go_percent_f(value)}")
    return value


class PrometheusScaler:
    """One `prometheus` trigger; `transport` substitutes the network in tests."""

    def __init__(
        self, trigger: PrometheusTrigger, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.trigger = trigger
        self.timeout = trigger.timeout_ms / 1000 if trigger.timeout_ms > 0 else DEFAULT_TIMEOUT
        self._client = make_client(transport, timeout=self.timeout, verify=not trigger.unsafe_ssl)

    async def read(self, now: datetime) -> ScalerReading:
        url = query_url(self.trigger, now)
        answer = await bounded_get(
            self._client, url, headers=self.trigger.custom_headers, timeout=self.timeout
        )
        value = prometheus_value(answer.status, answer.body, self.trigger)
        return ScalerReading(value, value > self.trigger.activation_threshold)

    async def close(self) -> None:
        await self._client.aclose()
