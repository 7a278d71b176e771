"""``create_app``: the Kubernetes-compatible API server as a Starlette ASGI application.

Serves health checks, ``/version``, discovery (``discovery``), ``/openapi/v3`` (the ``openapi``
sibling, through ``extensions``) and every resource URL (``routes``) over a ``Store``. One
catch-all endpoint does authentication (the ``authenticate`` hook: None means open; False is
upstream's 401 Status), renders every ``ApiError`` as its ``Status`` and turns anything
unexpected into a generic 500 Status (never a traceback, never text). ``server`` runs it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

import podscale.apiserver.customresources.openapi as custom_openapi
import podscale.apiserver.discovery as discovery
import podscale.apiserver.extensions as extensions
from podscale.api.exposition import render_text
from podscale.api.feature_gates import DEFAULT_FEATURE_GATES
from podscale.apiserver.auth.reviews import REVIEW_GROUP_VERSIONS
from podscale.apiserver.customresources.discovery import custom_group_versions
from podscale.apiserver.customresources.lifecycle import custom_kinds
from podscale.apiserver.errors import (
    ApiError,
    error_headers,
    internal_error,
    method_not_allowed,
    path_not_found,
    unauthorized,
)
from podscale.apiserver.http.health import HEALTH_ENDPOINTS, render_health
from podscale.apiserver.http.routes import dispatch_resource
from podscale.apiserver.metricsapis.apis import metric_group_versions
from podscale.apiserver.metricsapis.providers import CustomMetricsProvider, ExternalMetricsProvider
from podscale.apiserver.openapi.v2_http import serve_openapi_v2
from podscale.apiserver.registry.bootstrap import ensure_system_namespaces
from podscale.apiserver.registry.service_ranges import ServiceNetwork
from podscale.apiserver.state import (
    DEFAULT_BOOKMARK_INTERVAL,
    MetricsProvider,
    ServerState,
    json_response,
)
from podscale.store.interface import Clock, Store

__all__ = ["create_app"]

JSON = dict[str, Any]
_LOG = logging.getLogger(__name__)
_METHODS: Final = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def _extra_group_versions(state: ServerState) -> list[discovery.ExtraGroupVersion]:
    """Group versions served outside the kind registry: reviews, metrics APIs, custom kinds."""
    custom = custom_group_versions(custom_kinds(state))
    return [*metric_group_versions(state), *REVIEW_GROUP_VERSIONS, *custom]


def _discovery_root(state: ServerState, request: Request, core: bool) -> Response:
    with_metrics = state.metrics_provider is not None
    extra = _extra_group_versions(state)
    version = discovery.negotiate_aggregated(request.headers.get("accept"))
    if version is not None:
        body = discovery.discovery_list(core, version, with_metrics, extra)
        response = json_response(body)
        response.headers["content-type"] = discovery.aggregated_content_type(version)
        return response
    if core:
        return json_response(discovery.api_versions(request.url.netloc or "127.0.0.1"))
    return json_response(discovery.api_group_list(with_metrics, extra))


def _api_group(state: ServerState, group: str) -> JSON | None:
    with_metrics = state.metrics_provider is not None
    extra = _extra_group_versions(state)
    for entry in discovery.api_group_list(with_metrics, extra)["groups"]:
        if entry["name"] == group:
            return {"kind": "APIGroup", "apiVersion": "v1", **entry}
    return None


def _openapi(state: ServerState, path: str) -> Response:
    kinds = custom_kinds(state)
    crds = kinds.definitions
    if path == "/openapi/v3":
        if not crds:
            return json_response(extensions.openapi_root())
        return json_response(kinds.memo(("v3",), lambda: custom_openapi.openapi_v3_root(crds)))
    rest = path.removeprefix("/openapi/v3/").strip("/").split("/")
    if len(rest) == 2 and rest[0] == "api":
        document = extensions.openapi_document("", rest[1])
    elif len(rest) == 3 and rest[0] == "apis":
        group, version = rest[1], rest[2]
        document = extensions.openapi_document(group, version)
        if document is None and crds:
            # A custom group version: the documents its CRDs' schemas make.
            document = kinds.memo(
                ("v3", group, version),
                lambda: custom_openapi.openapi_v3_document_bytes(crds, group, version),
            )
    else:
        document = None
    if document is None:
        raise path_not_found()
    return Response(document, media_type="application/json")


def _openapi_v2(state: ServerState, request: Request) -> Response:
    kinds = custom_kinds(state)
    crds = kinds.definitions

    def body_for(media: str) -> bytes:
        body = kinds.memo(("v2", media), lambda: custom_openapi.openapi_v2_body(crds, media))
        assert isinstance(body, bytes)
        return body

    accept, if_none_match = request.headers.get("accept"), request.headers.get("if-none-match")
    return serve_openapi_v2(accept, if_none_match, body_for if crds else None)


# Prometheus' text exposition format, as client_golang serves /metrics.
_EXPOSITION = "text/plain; version=0.0.4; charset=utf-8"


def _health(state: ServerState, request: Request, path: str) -> Response | None:
    """``/livez``, ``/readyz``, ``/healthz`` and their per-check paths (``health``)."""
    endpoint, _, check_name = path.lstrip("/").partition("/")
    if endpoint not in HEALTH_ENDPOINTS:
        return None
    answer = render_health(
        endpoint,
        check_name or None,
        verbose="verbose" in request.query_params,
        excluded=request.query_params.getlist("exclude"),
        readiness=[check for source in state.readiness_sources for check in source()],
    )
    if answer is None:
        raise path_not_found()
    headers = {"X-Content-Type-Options": "nosniff"}
    return PlainTextResponse(answer.body, answer.status, headers=headers)


async def _route(state: ServerState, request: Request) -> Response:
    path = request.url.path.rstrip("/") or "/"
    with_metrics = state.metrics_provider is not None
    health = _health(state, request, path)
    if health is not None:
        return health
    if request.method not in ("GET", "HEAD") and not path.startswith(("/api/", "/apis/")):
        known = ("/version", "/metrics", "/api", "/apis")
        raise method_not_allowed(["GET"]) if path in known else path_not_found()
    if path == "/version":
        return json_response(state.version_info)
    if path == "/metrics":
        return Response(render_text(state.metrics_registry), media_type=_EXPOSITION)
    if path == "/api":
        return _discovery_root(state, request, core=True)
    if path == "/apis":
        return _discovery_root(state, request, core=False)
    if path.startswith("/openapi/v3"):
        return _openapi(state, path)
    if path == "/openapi/v2":
        return _openapi_v2(state, request)
    parts = path.strip("/").split("/")
    if (parts[0] == "api" and len(parts) == 2) or (parts[0] == "apis" and len(parts) == 3):
        group, version = ("", parts[1]) if parts[0] == "api" else (parts[1], parts[2])
        extra = _extra_group_versions(state)
        resources = discovery.api_resource_list(group, version, with_metrics, extra)
        if resources is None:
            raise path_not_found()
        return json_response(resources)
    if parts[0] == "apis" and len(parts) == 2:
        api_group = _api_group(state, parts[1])
        if api_group is None:
            raise path_not_found()
        return json_response(api_group)
    if parts[0] in ("api", "apis"):
        return await dispatch_resource(state, request)
    raise path_not_found()


def create_app(
    store: Store,
    *,
    clock: Clock,
    feature_gates: frozenset[str] = DEFAULT_FEATURE_GATES,
    metrics_provider: MetricsProvider | None = None,
    custom_metrics_provider: CustomMetricsProvider | None = None,
    external_metrics_provider: ExternalMetricsProvider | None = None,
    version_info: JSON | None = None,
    authenticate: Callable[[Request], bool] | None = None,
    bookmark_interval: float = DEFAULT_BOOKMARK_INTERVAL,
    service_network: ServiceNetwork | None = None,
) -> Starlette:
    """The API server over ``store``. ``authenticate`` None means every request is allowed.

    Each metrics provider, when given, serves (and makes discovery list) its group:
    metrics.k8s.io, custom.metrics.k8s.io and external.metrics.k8s.io. ``service_network``
    is where Services get cluster IPs and node ports (default: kube-apiserver's ranges). The system
    namespaces are created if missing (``bootstrap``), as kube-apiserver does at start.
    """
    ensure_system_namespaces(store)
    state = ServerState(
        store=store,
        clock=clock,
        feature_gates=feature_gates,
        metrics_provider=metrics_provider,
        custom_metrics_provider=custom_metrics_provider,
        external_metrics_provider=external_metrics_provider,
        version_info=version_info if version_info is not None else discovery.version_info(),
        bookmark_interval=bookmark_interval,
        service_network=service_network if service_network is not None else ServiceNetwork(),
    )

    async def endpoint(request: Request) -> Response:
        try:
            if authenticate is not None and not authenticate(request):
                raise unauthorized()
            return await _route(state, request)
        except ApiError as err:
            return json_response(err.status, err.code, {**error_headers(err.status), **err.headers})
        except Exception:
            _LOG.exception("unexpected error serving %s %s", request.method, request.url.path)
            failure = internal_error()
            return json_response(failure.status, failure.code)

    app = Starlette(routes=[Route("/{path:path}", endpoint, methods=_METHODS)])
    app.state.podscale = state
    return app
