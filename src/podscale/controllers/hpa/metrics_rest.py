"""``RestMetricsClient``: the metrics APIs over HTTP, at the URLs upstream's HPA requests.

kube-controller-manager's REST metrics client (``NewRESTMetricsClient``) in miniature:

- resource: ``GET /apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods?labelSelector=``;
- pods: ``GET /apis/custom.metrics.k8s.io/v1beta2/namespaces/{ns}/pods/*/{metric}``
  with ``labelSelector`` and ``metricLabelSelector``;
- object: ``.../namespaces/{ns}/{resource}/{name}/{metric}``, or for a Namespace
  ``.../namespaces/{ns}/metrics/{metric}`` (the HPA never escapes its namespace);
- external: ``GET /apis/external.metrics.k8s.io/v1beta1/namespaces/{ns}/{metric}``.

Any ``HttpApi``-like object with ``request(method, path, *, params=)`` serves as the
transport. An error answer reads as client-go prints it: a ``Status`` body gives its
message, anything else client-go's generic text (``the server could not find the
requested resource (get pods.metrics.k8s.io)``); ``metrics_values`` wraps it in
upstream's ``unable to fetch metrics from ... API: ...``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final, Protocol
from urllib.parse import quote

from podscale.api.selectors import SelectorError, parse_selector
from podscale.client.http import ApiError
from podscale.controllers.hpa.metrics_values import (
    CUSTOM_API,
    EXTERNAL_API,
    RESOURCE_API,
    custom_group_resource,
    external_values,
    fetch_failed,
    metric_selector_text,
    object_value,
    pod_custom_values,
    pod_resource_values,
)
from podscale.hpa.types import MetricsUnavailable, PodMetric

__all__ = ["RawRequester", "RestMetricsClient", "describe_api_error"]

JSON = dict[str, Any]
_RESOURCE_ROOT: Final = "/apis/metrics.k8s.io/v1beta1"
_CUSTOM_ROOT: Final = "/apis/custom.metrics.k8s.io/v1beta2"
_EXTERNAL_ROOT: Final = "/apis/external.metrics.k8s.io/v1beta1"
# client-go's NewGenericServerResponse texts for answers that carry no Status.
_GENERIC: Final = {
    404: "the server could not find the requested resource",
    503: "the server is currently unable to handle the request",
    401: "Unauthorized",
    403: "Forbidden",
}


class RawRequester(Protocol):
    """What the client needs of a transport: ``podscale.client.http.HttpApi.request``."""

    async def request(
        self, method: str, path: str, *, params: dict[str, str] | None = None
    ) -> JSON: ...


def describe_api_error(err: ApiError, resource: str, name: str = "") -> str:
    """``err`` as client-go's error string: the Status message when the body is a Status,
    else the generic text naming the request (``(get pods.metrics.k8s.io)``)."""
    body = err.body
    if body.get("kind") == "Status" and body.get("message"):
        return str(body["message"])
    generic = _GENERIC.get(err.status)
    if generic is None:
        text = str(body.get("message") or "unknown")
        generic = f'an error on the server ("{text}") has prevented the request from succeeding'
    target = f"{resource} {name}" if name else resource
    return f"{generic} (get {target})"


def _canonical_selector(selector: str) -> str:
    try:
        return str(parse_selector(selector))
    except SelectorError as err:
        raise MetricsUnavailable(str(err)) from None


def _params(**values: str) -> dict[str, str]:
    # client-go leaves empty list options out of the query string.
    return {key: value for key, value in values.items() if value}


class RestMetricsClient:
    """A ``MetricsClient`` over ``api`` (an ``HttpApi``, or anything with its ``request``)."""

    def __init__(self, api: RawRequester) -> None:
        self._api = api

    async def _get(
        self, api_name: str, path: str, params: dict[str, str], resource: str, name: str = ""
    ) -> JSON:
        try:
            return await self._api.request("GET", path, params=params or None)
        except ApiError as err:
            raise fetch_failed(api_name, describe_api_error(err, resource, name)) from None
        except Exception as err:  # the transport's own errors (httpx, OSError), as text
            raise fetch_failed(api_name, str(err) or type(err).__name__) from None

    async def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        path = f"{_RESOURCE_ROOT}/namespaces/{quote(namespace)}/pods"
        params = _params(labelSelector=_canonical_selector(selector))
        answer = await self._get(RESOURCE_API, path, params, "pods.metrics.k8s.io")
        return pod_resource_values(answer.get("items") or [], resource, container)

    async def pods_metric(
        self,
        metric_name: str,
        namespace: str,
        selector: str,
        metric_selector: dict[str, Any] | None,
    ) -> tuple[dict[str, PodMetric], datetime]:
        path = f"{_CUSTOM_ROOT}/namespaces/{quote(namespace)}/pods/*/{quote(metric_name)}"
        params = _params(
            labelSelector=_canonical_selector(selector),
            metricLabelSelector=metric_selector_text(metric_selector),
        )
        answer = await self._get(CUSTOM_API, path, params, "pods.custom.metrics.k8s.io", "*")
        return pod_custom_values(answer.get("items") or [])

    async def object_metric(
        self,
        metric_name: str,
        namespace: str,
        described_object: dict[str, Any],
        metric_selector: dict[str, Any] | None,
    ) -> tuple[int, datetime]:
        api_version = str(described_object.get("apiVersion") or "")
        kind = str(described_object.get("kind") or "")
        params = _params(metricLabelSelector=metric_selector_text(metric_selector))
        if kind == "Namespace" and "/" not in api_version:
            path = f"{_CUSTOM_ROOT}/namespaces/{quote(namespace)}/metrics/{quote(metric_name)}"
            resource, name = "namespaces.custom.metrics.k8s.io", namespace
        else:
            group_resource = custom_group_resource(api_version, kind)
            name = str(described_object.get("name") or "")
            path = (
                f"{_CUSTOM_ROOT}/namespaces/{quote(namespace)}/{quote(group_resource)}"
                f"/{quote(name)}/{quote(metric_name)}"
            )
            resource = f"{group_resource}.custom.metrics.k8s.io"
        answer = await self._get(CUSTOM_API, path, params, resource, name)
        return object_value(answer.get("items") or [])

    async def external_metric(
        self, metric_name: str, namespace: str, metric_selector: dict[str, Any] | None
    ) -> tuple[list[int], datetime]:
        path = f"{_EXTERNAL_ROOT}/namespaces/{quote(namespace)}/{quote(metric_name)}"
        params = _params(labelSelector=metric_selector_text(metric_selector))
        resource = f"{metric_name}.external.metrics.k8s.io"
        answer = await self._get(EXTERNAL_API, path, params, resource)
        return external_values(answer.get("items") or [])
