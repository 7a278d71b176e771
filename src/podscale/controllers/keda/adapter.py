"""KEDA's metrics server: external.metrics.k8s.io answers for the HPAs KEDA generates.

``KedaMetricsAdapter`` is an ``ExternalMetricsProvider``
(``apiserver.metricsapis.providers``) over a ``MetricsSource``, the keda controller's
view of its ScaledObjects' last readings. The plane's ``ExternalMetricsRouter``
(``apiserver.metricsapis.router``) sends it every read whose label selector names
``scaledobject.keda.sh/name``, the selector ``generated.generated_hpa`` puts on each
External metric. As KEDA's provider: the ScaledObject is the selector's value for that
label (other labels play no part), the answer one ``ExternalMetricValue`` of the metric
in milli-units, ``metricLabels`` null, stamped now; the listing is KEDA's single
placeholder ``externalmetrics``, since the real names are per ScaledObject.

Errors: a selector KEDA cannot read as plain ``key=value`` pairs, or an empty name, is
a 400 (KEDA answers such reads with a 500; podscale never does for bad input); an
unknown ScaledObject or metric is a 404 with KEDA's ``no matching metrics found for
<metric>``; a ``MetricUnavailable`` is KEDA's 500 carrying the source's message (a
failing scaler is a server-side failure, as in KEDA). Nothing the source raises
otherwise escapes as anything but that 500.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any, Final, Protocol

from podscale.api import Quantity, Selector
from podscale.apiserver.errors import ApiError, bad_request, status_body
from podscale.apiserver.metricsapis.providers import ExternalMetricInfo
from podscale.controllers.keda.generated import SCALED_OBJECT_LABEL
from podscale.controllers.keda.triggers.spec import target_milli
from podscale.store.interface import Clock
from podscale.store.objects import format_timestamp

__all__ = [
    "LISTED_METRIC",
    "KedaMetricsAdapter",
    "MetricUnavailable",
    "MetricsSource",
]

JSON = dict[str, Any]
_log = logging.getLogger(__name__)

# What KEDA's metrics server lists for discovery, whatever ScaledObjects exist.
LISTED_METRIC: Final = "externalmetrics"
_EQUALITY: Final = frozenset({"=", "=="})


class MetricUnavailable(Exception):
    """The metric exists but has no value now; ``str()`` is KEDA's error text."""


class MetricsSource(Protocol):
    async def metric_value(self, namespace: str, scaled_object: str, metric_name: str) -> float:
        """The metric's current value (the fallback's, when that applies). Raises
        ``LookupError`` for an unknown ScaledObject or metric, ``MetricUnavailable``
        when it cannot be read."""
        ...


def _server_error(message: str) -> ApiError:
    # A plain Go error from a custom-metrics-apiserver provider becomes a 500 Status
    # with the error's text and no reason.
    body = status_body(500, message)
    del body["reason"]
    return ApiError(body)


def _not_found(metric: str) -> ApiError:
    return ApiError(status_body(404, f"no matching metrics found for {metric}", "NotFound"))


def scaled_object_name(selector: Selector) -> str:
    """The ScaledObject a read is for: the ``scaledobject.keda.sh/name`` value of a
    selector of equality requirements only (what KEDA's ``ConvertSelectorToLabelsMap``
    accepts); ``ApiError`` 400 otherwise."""
    name = ""
    for requirement in selector.requirements:
        if requirement.operator not in _EQUALITY or len(requirement.values) != 1:
            raise bad_request(
                f"invalid selector {str(selector)!r}: KEDA's metrics server reads only "
                "key=value requirements"
            )
        if requirement.key == SCALED_OBJECT_LABEL:
            name = requirement.values[0]
    if not name:
        raise bad_request("scaledObject name is not specified")
    return name


class KedaMetricsAdapter:
    """KEDA's metrics server over ``source``; ``clock`` stamps the values."""

    def __init__(self, source: MetricsSource, clock: Clock) -> None:
        self._source = source
        self._clock = clock

    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]:
        return (ExternalMetricInfo(LISTED_METRIC),)

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[JSON]:
        name = scaled_object_name(metric_selector)
        try:
            value = await self._source.metric_value(namespace, name, info.metric)
        except LookupError:
            raise _not_found(info.metric) from None
        except MetricUnavailable as err:
            raise _server_error(str(err)) from None
        except Exception:
            _log.exception("reading %s of ScaledObject %s/%s", info.metric, namespace, name)
            raise _server_error(f"metric:{info.metric} encountered error") from None
        if not isinstance(value, int | float) or not math.isfinite(value):
            raise _server_error(f"metric:{info.metric} encountered error")
        # KEDA's scalers report values as milli-quantities, truncating toward zero.
        quantity = Quantity.from_milli(target_milli(float(value)))
        return [
            {
                "metricName": info.metric,
                "metricLabels": None,
                "timestamp": format_timestamp(self._clock.now()),
                "value": quantity.format_canonical(),
            }
        ]
