"""metrics.k8s.io/v1beta1: ``pods`` and ``nodes`` (get, list) from a ``MetricsProvider``.

Served only when ``create_app`` was given a provider (discovery then lists the group, which is
what ``kubectl top`` checks first, kubectl-wire.md §5). Lists are ``PodMetricsList`` /
``NodeMetricsList`` with ``metadata: {}`` like metrics-server; ``labelSelector`` is honoured;
a missing object is upstream's 404 on the metrics resource.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from podscale.api import SelectorError, parse_selector
from podscale.apiserver.errors import bad_request, method_not_allowed, not_found, path_not_found
from podscale.apiserver.resources import Target
from podscale.apiserver.state import MetricsProvider, json_response

__all__ = ["handle_metrics"]

JSON = dict[str, Any]
_API_VERSION = "metrics.k8s.io/v1beta1"
_KINDS = {"pods": "PodMetrics", "nodes": "NodeMetrics"}


def _filtered(items: list[JSON], request: Request) -> list[JSON]:
    try:
        selector = parse_selector(request.query_params.get("labelSelector", ""))
    except SelectorError as err:
        raise bad_request(str(err)) from None
    return [
        item
        for item in items
        if selector.empty() or selector.matches((item.get("metadata") or {}).get("labels") or {})
    ]


def handle_metrics(provider: MetricsProvider, request: Request, target: Target) -> Response:
    kind = _KINDS.get(target.plural)
    if kind is None or target.subresource is not None:
        raise path_not_found()
    if target.plural == "nodes" and target.namespace is not None:
        raise path_not_found()
    if request.method != "GET":
        raise method_not_allowed(["GET"])
    if target.plural == "pods":
        items = provider.pod_metrics(target.namespace)
    else:
        items = provider.node_metrics()
    if target.name is not None:
        for item in items:
            if (item.get("metadata") or {}).get("name") == target.name:
                return json_response({"kind": kind, "apiVersion": _API_VERSION, **item})
        raise not_found(f"{target.plural}.metrics.k8s.io", target.name)
    return json_response(
        {
            "kind": f"{kind}List",
            "apiVersion": _API_VERSION,
            "metadata": {},
            "items": _filtered(items, request),
        }
    )
