"""external.metrics.k8s.io/v1beta1: metrics of things outside the cluster, per namespace.

One URL shape, the one upstream's external metrics client requests
(``k8s.io/metrics/pkg/client/external_metrics/client.go``):
``/apis/external.metrics.k8s.io/v1beta1/namespaces/{ns}/{metric}?labelSelector=...``, where the
label selector filters the metric's series (the HPA sums what comes back). The answer is an
``ExternalMetricValueList``; a bad selector is a 400, an unknown metric the provider's 404.
PUT/POST are the push extension (``metricsapis.push``) for providers that implement
``ExternalMetricsWriter``. Discovery lists each metric as a namespaced resource of kind
``ExternalMetricValueList``, as custom-metrics-apiserver's external lister does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from podscale.api import SelectorError, parse_selector
from podscale.apiserver.discovery import ExtraGroupVersion
from podscale.apiserver.errors import bad_request, method_not_allowed, path_not_found
from podscale.apiserver.http.limits import read_body
from podscale.apiserver.metricsapis.providers import (
    ExternalMetricInfo,
    ExternalMetricsProvider,
    ExternalMetricsWriter,
)
from podscale.apiserver.metricsapis.push import decode_external_push
from podscale.apiserver.metricsapis.samples import EXTERNAL_GROUP_VERSION, render_external
from podscale.apiserver.state import json_response
from podscale.store.interface import Clock

__all__ = ["external_discovery", "handle_external_metrics"]

JSON = dict[str, Any]
_GROUP, _VERSION = EXTERNAL_GROUP_VERSION
_API_VERSION: Final = f"{_GROUP}/{_VERSION}"
_LIST_KIND: Final = "ExternalMetricValueList"


def _value_list(items: list[JSON]) -> Response:
    return json_response(
        {"kind": _LIST_KIND, "apiVersion": _API_VERSION, "metadata": {}, "items": items}
    )


async def handle_external_metrics(
    provider: ExternalMetricsProvider, clock: Clock, request: Request, parts: Sequence[str]
) -> Response:
    """Serve one request; ``parts`` are the path segments after the group version."""
    if len(parts) != 3 or parts[0] != "namespaces" or not all(parts):
        raise path_not_found()
    namespace, metric = parts[1], parts[2]
    if request.method == "GET":
        try:
            selector = parse_selector(request.query_params.get("labelSelector", ""))
        except SelectorError as err:
            raise bad_request(str(err)) from None
        values = await provider.get_external_metric(namespace, selector, ExternalMetricInfo(metric))
        return _value_list(list(values))
    if request.method in ("PUT", "POST") and isinstance(provider, ExternalMetricsWriter):
        body = await read_body(request)
        samples = decode_external_push(
            body, request.headers.get("content-type"), namespace=namespace, metric=metric
        )
        provider.write_external_samples(namespace, metric, samples, replace=request.method == "PUT")
        written_at = clock.now()
        return _value_list([render_external(s, written_at) for s in samples])
    writable = isinstance(provider, ExternalMetricsWriter)
    raise method_not_allowed(["GET", "PUT", "POST"] if writable else ["GET"])


def external_discovery(provider: ExternalMetricsProvider) -> ExtraGroupVersion:
    """Legacy entries (one per metric) and their aggregated equivalents."""
    metrics = sorted({info.metric for info in provider.list_external_metrics()})
    legacy = tuple(
        {
            "name": metric,
            "singularName": "",
            "namespaced": True,
            "kind": _LIST_KIND,
            "verbs": ["get"],
        }
        for metric in metrics
    )
    aggregated = tuple(
        {
            "resource": metric,
            "responseKind": {"group": "", "version": "", "kind": _LIST_KIND},
            "scope": "Namespaced",
            "singularResource": "",
            "verbs": ["get"],
        }
        for metric in metrics
    )
    return ExtraGroupVersion(_GROUP, _VERSION, legacy, aggregated)
