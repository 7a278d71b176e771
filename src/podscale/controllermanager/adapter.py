"""podscale's own external metrics, served as ``external.metrics.k8s.io/v1beta1`` on a port.

On a cluster, the HPAs KEDA's operator generates read ``scaledobject.keda.sh/name``-labelled
external metrics, and Crane's EHPA publishes its ``crane_autoscaling_*`` predictions as
external metrics; there the kube-aggregator forwards ``/apis/external.metrics.k8s.io/v1beta1``
to whichever Service the cluster's APIService names. ``adapter_app`` is that backend for the
controller manager: the same handlers the embedded API server uses
(``podscale.apiserver.metricsapis.external``) over the ``ExternalMetricsRouter`` the
controllers register into (KEDA's routes, with the push provider the EHPA controller
writes to as the fallback). It serves the group version's discovery document, the metric
reads, and ``/healthz``; errors are ``Status`` bodies.

Every replica serves, as the Service sends the aggregator's reads to any ready one. KEDA's
reads are answered everywhere (``controllers.keda.metrics_server``: each replica keeps the
scalers of every ScaledObject, whoever leads). Crane's predictions are computed by the EHPA
controller, which runs only in the leader, so ``LeaderOnlyProvider`` guards the push
provider: a replica that does not lead answers its reads and writes with a 503
``ServiceUnavailable`` (and lists none of its metrics) rather than a 404 that would claim
the metric does not exist; the HPA retries on its next sync.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from podscale.api import Selector
from podscale.apiserver.errors import ApiError, path_not_found, status_body
from podscale.apiserver.metricsapis.external import external_discovery, handle_external_metrics
from podscale.apiserver.metricsapis.providers import (
    ExternalMetricInfo,
    ExternalMetricsProvider,
    ExternalMetricsWriter,
)
from podscale.apiserver.metricsapis.router import ExternalMetricsRouter, serving
from podscale.apiserver.metricsapis.samples import EXTERNAL_GROUP_VERSION, ExternalSample
from podscale.apiserver.state import json_response
from podscale.store.interface import Clock

__all__ = ["STANDBY_MESSAGE", "LeaderOnlyProvider", "adapter_app"]

_ROOT: Final = "/apis/{}/{}".format(*EXTERNAL_GROUP_VERSION)
STANDBY_MESSAGE: Final = (
    "this podscale controller-manager replica is not the leader; the metric {} is computed "
    "by the leading replica only"
)


class LeaderOnlyProvider:
    """``inner`` while ``leading()``; a 503 otherwise (see the module docstring)."""

    def __init__(self, inner: ExternalMetricsProvider, leading: Callable[[], bool]) -> None:
        self._inner = inner
        self._leading = leading
        candidate: object = inner
        if isinstance(candidate, ExternalMetricsWriter):
            # Passed on exactly when the inner provider accepts writes (as the router does).
            writer = candidate

            def write(
                namespace: str,
                metric: str,
                samples: Sequence[ExternalSample],
                *,
                replace: bool,
            ) -> None:
                self._check(metric)
                writer.write_external_samples(namespace, metric, samples, replace=replace)

            self.__dict__["write_external_samples"] = write

    def _check(self, metric: str) -> None:
        if not self._leading():
            message = STANDBY_MESSAGE.format(metric)
            raise ApiError(status_body(503, message, "ServiceUnavailable"))

    def list_external_metrics(self) -> Sequence[ExternalMetricInfo]:
        return self._inner.list_external_metrics() if self._leading() else ()

    async def get_external_metric(
        self, namespace: str, metric_selector: Selector, info: ExternalMetricInfo
    ) -> list[dict[str, Any]]:
        self._check(info.metric)
        return await self._inner.get_external_metric(namespace, metric_selector, info)


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
