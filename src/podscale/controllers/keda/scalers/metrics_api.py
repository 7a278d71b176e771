"""KEDA's `metrics-api` scaler: a number at `valueLocation` in a document GET from `url`.

`read` GETs `url` (bounded: `fetch.bounded_get`, KEDA's global 3 s timeout); a status
other than 200 fails with `<path>: api returned <code>`; `metrics_api_value` then reads
the number as KEDA's `GetValueFromResponse` does for `format: json`: the GJSON path
(`gjson` here) must select a number, or a string holding a Kubernetes quantity (`"2k"`,
`"500m"`), anything else failing with KEDA's `valueLocation must point to ...` text.
Every failure is wrapped as KEDA wraps it: `error requesting metrics endpoint: ...`.
Active means value > activationTargetValue. Not implemented (refused at read with a
podscale message): the xml, yaml and prometheus formats; authentication modes are not
parsed; `aggregateFromKubeServiceEndpoints` reads the URL itself, which is KEDA's own
fallback when it cannot reach the endpoints.
"""

from __future__ import annotations

from datetime import datetime

import httpx

from podscale.api.quantity import QuantityError, parse_quantity
from podscale.controllers.keda.scalers.base import ScalerError, ScalerReading
from podscale.controllers.keda.scalers.fetch import DEFAULT_TIMEOUT, bounded_get, make_client
from podscale.controllers.keda.scalers.gjson import GJSONUnsupported, gjson_get
from podscale.controllers.keda.triggers.metrics_api import MetricsApiTrigger

__all__ = ["MetricsApiScaler", "metrics_api_value"]

_WRAP = "error requesting metrics endpoint: "
_WRONG = (
    "valueLocation must point to value of type number or a string representing a Quantity got: '{}'"
)


def metrics_api_value(body: bytes, value_location: str) -> float:
    """KEDA's JSON reading of `body`; `ScalerError` (unwrapped) when it is not a number."""
    try:
        kind, value = gjson_get(body, value_location)
    except GJSONUnsupported as err:
        raise ScalerError(str(err)) from None
    if kind == "String":
        try:
            return parse_quantity(value).as_approximate_float()
        except QuantityError:
            raise ScalerError(_WRONG.format(value)) from None
    if kind != "Number":
        raise ScalerError(_WRONG.format(kind))
    return float(value)


class MetricsApiScaler:
    """One `metrics-api` trigger; `transport` substitutes the network in tests."""

    def __init__(
        self, trigger: MetricsApiTrigger, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.trigger = trigger
        self._client = make_client(
            transport, timeout=DEFAULT_TIMEOUT, verify=not trigger.unsafe_ssl
        )

    async def _value(self) -> float:
        if self.trigger.format != "json":
            raise ScalerError(f"format {self.trigger.format} is not supported by podscale")
        answer = await bounded_get(self._client, self.trigger.url)
        if answer.status != 200:
            raise ScalerError(f"{answer.path}: api returned {answer.status}")
        return metrics_api_value(answer.body, self.trigger.value_location)

    async def read(self, now: datetime) -> ScalerReading:
        try:
            value = await self._value()
        except ScalerError as err:
            raise ScalerError(_WRAP + str(err)) from None
        return ScalerReading(value, value > self.trigger.activation_target_value)

    async def close(self) -> None:
        await self._client.aclose()
