"""custom.metrics.k8s.io/v1beta2: metric values of objects, from a ``CustomMetricsProvider``.

The URL layouts are the ones upstream's HPA metrics client requests
(``k8s.io/metrics/pkg/client/custom_metrics/versioned_client.go``) and custom-metrics-apiserver
installs, under ``/apis/custom.metrics.k8s.io/v1beta2``:

- ``/namespaces/{ns}/{resource}/{name}/{metric}``: one namespaced object; ``{name}`` ``*``
  means every object matching ``?labelSelector=`` (how the HPA reads a Pods metric);
- ``/{resource}/{name}/{metric}``: a root-scoped object (``*`` as above);
- ``/namespaces/{ns}/metrics/{metric}``: the namespace object itself.

``{resource}`` is a GroupResource string (``pods``, ``deployments.apps``). Every answer is a
``MetricValueList``; ``?metricLabelSelector=`` is handed to the provider. A bad selector is a
400; an unknown metric is the provider's 404. PUT/POST are the push extension
(``metricsapis.push``), for providers that implement ``CustomMetricsWriter``; other verbs are 405.
Discovery lists ``{resource}/{metric}`` per metric, as custom-metrics-apiserver's lister.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from podscale.api import Selector, SelectorError, parse_selector
from podscale.apiserver.discovery import ExtraGroupVersion
from podscale.apiserver.errors import bad_request, method_not_allowed, path_not_found
from podscale.apiserver.http.limits import read_body
from podscale.apiserver.metricsapis.providers import (
    CustomMetricInfo,
    CustomMetricsProvider,
    CustomMetricsWriter,
    CustomScope,
)
from podscale.apiserver.metricsapis.push import decode_custom_push
from podscale.apiserver.metricsapis.samples import CUSTOM_GROUP_VERSION, render_custom
from podscale.apiserver.state import json_response
from podscale.store.interface import Clock

__all__ = ["custom_discovery", "handle_custom_metrics", "parse_custom_path"]

JSON = dict[str, Any]
_GROUP, _VERSION = CUSTOM_GROUP_VERSION
_API_VERSION: Final = f"{_GROUP}/{_VERSION}"
_LIST_KIND: Final = "MetricValueList"
ALL_OBJECTS: Final = "*"


def parse_custom_path(parts: Sequence[str]) -> CustomScope | None:
    """The scope of the path segments after ``/apis/custom.metrics.k8s.io/v1beta2``."""
    if len(parts) == 4 and parts[0] == "namespaces" and parts[2] == "metrics":
        info = CustomMetricInfo("namespaces", False, parts[3])
        return CustomScope(info, None, parts[1])
    if len(parts) == 5 and parts[0] == "namespaces":
        namespace, resource, name, metric = parts[1:]
        info = CustomMetricInfo(resource, True, metric)
        return CustomScope(info, namespace, None if name == ALL_OBJECTS else name)
    if len(parts) == 3:
        resource, name, metric = parts
        info = CustomMetricInfo(resource, False, metric)
        return CustomScope(info, None, None if name == ALL_OBJECTS else name)
    return None


def _selector(request: Request, parameter: str) -> Selector:
    try:
        return parse_selector(request.query_params.get(parameter, ""))
    except SelectorError as err:
        raise bad_request(str(err)) from None


def _value_list(items: list[JSON]) -> Response:
    return json_response(
        {"kind": _LIST_KIND, "apiVersion": _API_VERSION, "metadata": {}, "items": items}
    )


async def _read(provider: CustomMetricsProvider, request: Request, scope: CustomScope) -> Response:
    metric_selector = _selector(request, "metricLabelSelector")
    if scope.name is not None:
        value = await provider.get_metric_by_name(
            scope.namespace, scope.name, scope.info, metric_selector
        )
        return _value_list([value])
    selector = _selector(request, "labelSelector")
    values = await provider.get_metric_by_selector(
        scope.namespace, selector, scope.info, metric_selector
    )
    return _value_list(list(values))


async def _write(
    writer: CustomMetricsWriter, clock: Clock, request: Request, scope: CustomScope
) -> Response:
    body = await read_body(request)
    samples = decode_custom_push(
        body,
        request.headers.get("content-type"),
        group_resource=scope.info.group_resource,
        namespace=scope.namespace,
        name=scope.name,
        metric=scope.info.metric,
    )
    writer.write_custom_samples(scope, samples, replace=request.method == "PUT")
    written_at = clock.now()
    return _value_list([render_custom(s, Selector.everything(), written_at) for s in samples])


async def handle_custom_metrics(
    provider: CustomMetricsProvider, clock: Clock, request: Request, parts: Sequence[str]
) -> Response:
    """Serve one request; ``parts`` are the path segments after the group version."""
    scope = parse_custom_path(parts)
    if scope is None or not all(parts):
        raise path_not_found()
    if request.method == "GET":
        return await _read(provider, request, scope)
    if request.method in ("PUT", "POST") and isinstance(provider, CustomMetricsWriter):
        return await _write(provider, clock, request, scope)
    writable = isinstance(provider, CustomMetricsWriter)
    raise method_not_allowed(["GET", "PUT", "POST"] if writable else ["GET"])


def custom_discovery(provider: CustomMetricsProvider) -> ExtraGroupVersion:
    """The group's discovery: legacy ``{resource}/{metric}`` entries, and the aggregated
    form the aggregator derives from them (a bare parent per resource, metrics as its
    subresources, ``ConvertGroupVersionIntoToDiscovery``)."""
    infos = sorted(set(provider.list_custom_metrics()), key=lambda i: (i.group_resource, i.metric))
    legacy = tuple(
        {
            "name": f"{info.group_resource}/{info.metric}",
            "singularName": "",
            "namespaced": info.namespaced,
            "kind": _LIST_KIND,
            "verbs": ["get"],
        }
        for info in infos
    )
    parents: dict[str, JSON] = {}
    for info in infos:
        parent = parents.setdefault(
            info.group_resource,
            {
                "resource": info.group_resource,
                "responseKind": {"group": "", "version": "", "kind": ""},
                "scope": "Namespaced" if info.namespaced else "Cluster",
                "singularResource": "",
                "verbs": [],
                "subresources": [],
            },
        )
        parent["subresources"].append(
            {
                "subresource": info.metric,
                "responseKind": {"group": "", "version": "", "kind": _LIST_KIND},
                "verbs": ["get"],
            }
        )
    return ExtraGroupVersion(_GROUP, _VERSION, legacy, tuple(parents.values()))
