"""podscale's own external metrics, served as ``external.metrics.k8s.io/v1beta1`` on a port.

On a cluster, the HPAs KEDA's operator generates read ``scaledobject.keda.sh/name``-labelled
external metrics, and Crane's EHPA publishes its ``crane_autoscaling_*`` predictions as
external metrics; there the kube-aggregator forwards ``/apis/external.metrics.k8s.io/v1beta1``
to whichever Service the cluster's APIService names. ``adapter_app`` is that backend for the
controller manager: the same handlers the embedded API server uses
(``podscale.apiserver.metricsapis.external``) over the ``ExternalMetricsRouter`` the
controllers register into (KEDA's routes, with the push provider the EHPA controller
writes to as the fallback). It serves the group version's discovery document, the metric
reads, and ``/healthz``; errors are ``Status`` bodies. It answers what this process knows:
only the leading replica runs the controllers that fill it.
"""

from __future__ import annotations

from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from podscale.apiserver.errors import ApiError, path_not_found
from podscale.apiserver.metricsapis.external import external_discovery, handle_external_metrics
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter, serving
from podscale.apiserver.metricsapis.samples import EXTERNAL_GROUP_VERSION
from podscale.apiserver.state import json_response
from podscale.store.interface import Clock

__all__ = ["adapter_app"]

_ROOT: Final = "/apis/{}/{}".format(*EXTERNAL_GROUP_VERSION)


def adapter_app(router: ExternalMetricsRouter, clock: Clock) -> Starlette:
    """The ASGI app of the adapter; see the module docstring."""

    async def metrics_api(request: Request) -> Response:
        try:
            provider = serving(router)
            path = request.url.path.rstrip("/")
            if provider is None:
                raise path_not_found()
            if path == _ROOT:
                return json_response(_resource_list(router))
            parts = path[len(_ROOT) + 1 :].split("/")
            return await handle_external_metrics(provider, clock, request, parts)
        except ApiError as err:
            return json_response(err.status, err.code, err.headers)

    async def healthz(_request: Request) -> Response:
        return PlainTextResponse("ok")

    return Starlette(
        routes=[
            Route("/healthz", healthz),
            Route(_ROOT, metrics_api),
            Route(_ROOT + "/{rest:path}", metrics_api, methods=["GET", "PUT", "POST"]),
        ]
    )


def _resource_list(router: ExternalMetricsRouter) -> dict[str, Any]:
    group, version = EXTERNAL_GROUP_VERSION
    entries = external_discovery(router)
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}",
        "resources": [dict(entry) for entry in entries.resources],
    }
