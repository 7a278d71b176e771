"""Verb dispatch for resource URLs: which handler serves a (method, ``Target``) pair.

``app`` hands every ``/api/...`` and ``/apis/...`` request that is not discovery here. Mirrors
kube-apiserver's installer: collection paths take list/watch (GET), create (POST) and
deletecollection (DELETE), but the all-namespaces path of a namespaced resource only list and
watch; object paths take get/update/patch/delete; ``status``/``scale`` take get/update/patch,
``pods/binding`` only create (POST), ``namespaces/finalize`` only update (PUT). A verb the
resource does not support is 405; a path shape it does not have is 404. A 405 names the
methods the path does take in ``Allow``, in the order kube-apiserver's installer registers
them (its go-restful router answers so).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from podscale.api.kinds import KindInfo
from podscale.apiserver.auth.reviews import serve_review
from podscale.apiserver.customresources.definitions import CustomKind, is_definition
from podscale.apiserver.customresources.lifecycle import custom_kinds, settle
from podscale.apiserver.customresources.serving import missing_subresource
from podscale.apiserver.discovery import METRICS_GROUP
from podscale.apiserver.errors import method_not_allowed, path_not_found
from podscale.apiserver.history_api import serve_history_api
from podscale.apiserver.http import handlers_delete, handlers_read, handlers_write, subresources
from podscale.apiserver.http.pod_logs import POD_STREAM_SUBRESOURCES, handle_pod_stream
from podscale.apiserver.http.watch import watch_response
from podscale.apiserver.metricsapis.apis import serve_metric_api
from podscale.apiserver.metricsapis.resource import handle_metrics
from podscale.apiserver.operations.verbs import require_verb
from podscale.apiserver.resources import Target, lookup_kind, parse_path
from podscale.apiserver.state import ServerState, query_flag

__all__ = ["dispatch_resource"]

Handler = Callable[[ServerState, Request, KindInfo, Target], Awaitable[Response]]

_OBJECT_VERBS = {"GET": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}
_SUBRESOURCE_VERBS = {"GET": "get", "PUT": "update", "PATCH": "patch", "POST": "create"}


def _collection_methods(info: KindInfo, all_namespaces: bool) -> list[str]:
    verbs = info.verbs
    methods = ["GET"] if {"list", "watch"} & set(verbs) else []
    if not all_namespaces:
        methods += ["POST"] if "create" in verbs else []
        methods += ["DELETE"] if "deletecollection" in verbs else []
    return methods


def _object_methods(info: KindInfo) -> list[str]:
    return [method for method, verb in _OBJECT_VERBS.items() if verb in info.verbs]


async def _collection(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    method = request.method
    all_namespaces = info.namespaced and target.namespace is None
    allowed = _collection_methods(info, all_namespaces)
    if method not in allowed:
        raise method_not_allowed(allowed)
    if method == "GET":
        if query_flag(request.query_params.get("watch")):
            require_verb(info, "watch")
            return watch_response(state, request, info, target)
        require_verb(info, "list")
        return await handlers_read.list_objects(state, request, info, target)
    if method == "POST":
        return await handlers_write.create_object(state, request, info, target)
    return await handlers_delete.delete_collection(state, request, info, target)


async def _object(state: ServerState, request: Request, info: KindInfo, target: Target) -> Response:
    verb = _OBJECT_VERBS.get(request.method)
    if verb is None or verb not in info.verbs:
        raise method_not_allowed(_object_methods(info))
    if verb == "get":
        return handlers_read.get_object(state, request, info, target)
    if verb == "update":
        return await handlers_write.update_object(state, request, info, target)
    if verb == "patch":
        return await handlers_write.patch_object(state, request, info, target)
    return await handlers_delete.delete_object(state, request, info, target)


async def _subresource(
    state: ServerState, request: Request, info: KindInfo, target: Target
) -> Response:
    if info.kind == "Pod" and target.subresource in POD_STREAM_SUBRESOURCES:
        return await handle_pod_stream(state, request, info, target)
    sub = info.subresource(target.subresource or "")
    if sub is None:
        raise missing_subresource(info, target.name or "")
    verb = _SUBRESOURCE_VERBS.get(request.method)
    if verb is None or verb not in sub.verbs:
        raise method_not_allowed([m for m, v in _SUBRESOURCE_VERBS.items() if v in sub.verbs])
    if sub.name == "binding":
        return await handlers_write.create_binding(state, request, info, target)
    if sub.name == "scale":
        return await subresources.handle_scale(state, request, info, target)
    if sub.name == "finalize":
        return await subresources.handle_finalize(state, request, info, target)
    return await subresources.handle_status(state, request, info, target)


async def dispatch_resource(state: ServerState, request: Request) -> Response:
    # custom/external metrics URLs have their own shapes (``*`` names, metric segments).
    served = await serve_metric_api(state, request)
    if served is not None:
        return served
    # Self reviews are answered, not stored, so they are no registry kinds.
    reviewed = await serve_review(request)
    if reviewed is not None:
        return reviewed
    history = await serve_history_api(state, request)
    if history is not None:
        return history
    target = parse_path(request.url.path)
    if target is None:
        raise path_not_found()
    if (target.group, target.version) == METRICS_GROUP and state.metrics_provider is not None:
        return handle_metrics(state.metrics_provider, request, target)
    info = lookup_kind(target)
    if info is None:
        # Not built in: a resource a CustomResourceDefinition defines, if any.
        info = custom_kinds(state).lookup(target.group, target.version, target.plural)
    if info is None:
        raise path_not_found()
    # A namespace segment on a cluster resource, or an object name without its namespace.
    if not info.namespaced and target.namespace is not None:
        raise path_not_found()
    if info.namespaced and target.namespace is None and target.name is not None:
        raise path_not_found()
    if target.name is None:
        response = await _collection(state, request, info, target)
    elif target.subresource is None:
        response = await _object(state, request, info, target)
    else:
        response = await _subresource(state, request, info, target)
    if request.method != "GET" and (is_definition(info) or isinstance(info, CustomKind)):
        # The CRD controllers' work after a write (status, cleanup), as upstream's run
        # a moment later.
        settle(state, info)
    return response
