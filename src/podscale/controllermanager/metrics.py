"""How the controller manager's controllers read metrics: the cluster's APIs, and its own.

``podscale.controllermanager.build`` gives the HPA controllers ``ClusterMetricsClient``:
every read goes over REST to the API server (``RestMetricsClient``) except an external
metric read whose label selector has a requirement on a key the process's own
``ExternalMetricsRouter`` routes (KEDA's ``scaledobject.keda.sh/name``: the HPAs KEDA's
operator generates read ``s<i>-<trigger>`` metrics that only the operator's scale handler
can answer). On a real cluster those reads would reach this process anyway: the
kube-aggregator forwards ``external.metrics.k8s.io`` to the APIService's Service, which is
the controller manager's adapter (``adapter``). Answering them in-process gives the same
answer without the hop, and also works where the API server aggregates nothing (``podscale
up`` playing the cluster serves external metrics from its own push provider only). Errors
read as ``RestMetricsClient``'s do: ``unable to fetch metrics from external metrics API:``
and the provider's Status message.

``RestExternalMetrics`` is the other direction: the cluster's ``external.metrics.k8s.io``
as an ``ExternalMetricsProvider``, for KEDA's ``podscale-push`` scaler, whose metric is
pushed to the API the cluster serves (``kubectl replace --raw``), not to one replica.
Its reads never carry KEDA's label (the scaler reads by the trigger's own selector), so
they do not come back to the router above.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final
from urllib.parse import quote

from podscale.api import Selector
from podscale.api.selectors import SelectorError, parse_selector
from podscale.apiserver import errors as server_errors
from podscale.apiserver.metricsapis.providers import ExternalMetricInfo
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter
from podscale.client.http import ApiError
from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.hpa.metrics_rest import RawRequester, describe_api_error
from podscale.controllers.hpa.metrics_values import (
    EXTERNAL_API,
    external_values,
    fetch_failed,
    metric_selector_text,
)
from podscale.hpa.types import MetricsUnavailable, PodMetric

__all__ = ["ClusterMetricsClient", "RestExternalMetrics"]

JSON = dict[str, Any]
_EXTERNAL_ROOT: Final = "/apis/external.metrics.k8s.io/v1beta1"


class ClusterMetricsClient:
    """A ``MetricsClient``: ``rest`` for everything but the external reads ``local``
    routes (see the module docstring)."""

    def __init__(self, rest: MetricsClient, local: ExternalMetricsRouter) -> None:
        self._rest = rest
        self._local = local

    async def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        return await self._rest.resource_metric(resource, namespace, selector, container)

    async def pods_metric(
        self,
        metric_name: str,
        namespace: str,
        selector: str,
        metric_selector: dict[str, Any] | None,
    ) -> tuple[dict[str, PodMetric], datetime]:
        return await self._rest.pods_metric(metric_name, namespace, selector, metric_selector)

    async def object_metric(
        self,
        metric_name: str,
        namespace: str,
        described_object: dict[str, Any],
        metric_selector: dict[str, Any] | None,
    ) -> tuple[int, datetime]:
        return await self._rest.object_metric(
            metric_name, namespace, described_object, metric_selector
        )

    async def external_metric(
        self, metric_name: str, namespace: str, metric_selector: dict[str, Any] | None
    ) -> tuple[list[int], datetime]:
        wanted = _parse(metric_selector_text(metric_selector))
        routed = self._local.routes
        provider = next(
            (routed[r.key] for r in wanted.requirements if r.key in routed),
            None,
        )
        if provider is None:
            return await self._rest.external_metric(metric_name, namespace, metric_selector)
        try:
            items = await provider.get_external_metric(
                namespace, wanted, ExternalMetricInfo(metric_name)
            )
        except server_errors.ApiError as err:
            raise fetch_failed(EXTERNAL_API, str(err.status.get("message") or "")) from None
        return external_values(list(items))


class RestExternalMetrics:
    """The cluster's ``external.metrics.k8s.io`` over ``api`` (an ``HttpApi``), as an
    ``ExternalMetricsProvider``; an error answer is re-raised as the server's ``ApiError``
    with the Status message client-go would print."""

    def __init__(self, api: RawRequester) -> None:
        self._api = api

    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]:
        # Discovery of the cluster's metrics is not this provider's to serve.
        return []

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[JSON]:
        path = f"{_EXTERNAL_ROOT}/namespaces/{quote(namespace)}/{quote(info.metric)}"
        text = str(metric_selector)
        try:
            answer = await self._api.request(
                "GET", path, params={"labelSelector": text} if text else None
            )
        except ApiError as err:
            message = describe_api_error(err, f"{info.metric}.external.metrics.k8s.io")
            raise server_errors.ApiError(_status(err.status, message)) from None
        except Exception as err:  # the transport's own errors (httpx, OSError), as text
            raise server_errors.ApiError(_status(503, str(err) or type(err).__name__)) from None
        return [dict(item) for item in answer.get("items") or []]


def _status(code: int, message: str) -> JSON:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "code": code,
    }


def _parse(text: str) -> Selector:
    try:
        return parse_selector(text)
    except SelectorError as err:
        raise MetricsUnavailable(str(err)) from None
