"""podscale's `podscale-push` scaler (not KEDA's): a value pushed to the plane.

Reads the external metric `metricName` in the ScaledObject's namespace through
`ScalerEnv.external` (the plane's push provider, or whatever external metrics provider
the plane has), with the trigger's `labelSelector`, and sums the values of every series
it answers (the total the HPA would see). No series matching reads 0, as a Prometheus
query without result reads under KEDA's default `ignoreNullValues`. Active means
value > activationValue. A provider error (404 for a metric nobody pushed) fails the
read with the provider's message; no provider at all fails it with podscale's text.
"""

from __future__ import annotations

from datetime import datetime

from podscale.api.quantity import QuantityError, parse_quantity
from podscale.apiserver.errors import ApiError
from podscale.apiserver.metricsapis.providers import ExternalMetricInfo, ExternalMetricsProvider
from podscale.controllers.keda.scalers.base import ScalerError, ScalerReading
from podscale.controllers.keda.triggers.push import PushTrigger

__all__ = ["PushScaler"]


class PushScaler:
    def __init__(
        self, trigger: PushTrigger, namespace: str, external: ExternalMetricsProvider | None
    ) -> None:
        self.trigger = trigger
        self.namespace = namespace
        self._external = external

    async def read(self, now: datetime) -> ScalerReading:
        if self._external is None:
            raise ScalerError("no external metrics provider serves podscale-push metrics")
        info = ExternalMetricInfo(self.trigger.metric_name)
        try:
            items = await self._external.get_external_metric(
                self.namespace, self.trigger.selector, info
            )
        except ApiError as err:
            message = err.status.get("message") or "external metric read failed"
            raise ScalerError(str(message)) from None
        try:
            value = sum(
                parse_quantity(str(item.get("value", "0"))).as_approximate_float() for item in items
            )
        except QuantityError as err:
            raise ScalerError(f"bad external metric value: {err}") from None
        return ScalerReading(value, value > self.trigger.activation_value)

    async def close(self) -> None:
        return None
