"""Where the provider-backed metrics APIs plug into the server: routing and discovery.

``routes.dispatch_resource`` asks ``serve_metric_api`` first: a request under
``/apis/custom.metrics.k8s.io/v1beta2/`` or ``/apis/external.metrics.k8s.io/v1beta1/`` goes to
``metricsapis.custom`` / ``metricsapis.external`` when the app has that provider (otherwise the path
is not served, like any unknown group). ``app`` adds ``metric_group_versions`` to every discovery
document, so each group appears exactly when its provider is configured, with the provider's current
metrics as resources.
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import Response

from podscale.apiserver.discovery import ExtraGroupVersion
from podscale.apiserver.metricsapis.custom import custom_discovery, handle_custom_metrics
from podscale.apiserver.metricsapis.external import external_discovery, handle_external_metrics
from podscale.apiserver.metricsapis.router import serving
from podscale.apiserver.metricsapis.samples import CUSTOM_GROUP_VERSION, EXTERNAL_GROUP_VERSION
from podscale.apiserver.state import ServerState

__all__ = ["metric_group_versions", "serve_metric_api"]

_CUSTOM_PREFIX: Final = "/apis/{}/{}/".format(*CUSTOM_GROUP_VERSION)
_EXTERNAL_PREFIX: Final = "/apis/{}/{}/".format(*EXTERNAL_GROUP_VERSION)


def _segments(path: str, prefix: str) -> list[str]:
    return path[len(prefix) :].rstrip("/").split("/")


async def serve_metric_api(state: ServerState, request: Request) -> Response | None:
    """The response for a custom/external metrics URL, or None for any other path."""
    path = request.url.path
    custom = state.custom_metrics_provider
    if custom is not None and path.startswith(_CUSTOM_PREFIX):
        parts = _segments(path, _CUSTOM_PREFIX)
        return await handle_custom_metrics(custom, state.clock, request, parts)
    external = serving(state.external_metrics_provider)
    if external is not None and path.startswith(_EXTERNAL_PREFIX):
        parts = _segments(path, _EXTERNAL_PREFIX)
        return await handle_external_metrics(external, state.clock, request, parts)
    return None


def metric_group_versions(state: ServerState) -> tuple[ExtraGroupVersion, ...]:
    """Discovery for the configured providers (custom first, as kube-aggregator orders)."""
    groups: list[ExtraGroupVersion] = []
    if state.custom_metrics_provider is not None:
        groups.append(custom_discovery(state.custom_metrics_provider))
    external = serving(state.external_metrics_provider)
    if external is not None:
        groups.append(external_discovery(external))
    return tuple(groups)
