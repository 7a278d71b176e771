"""Self reviews: ``kubectl auth whoami``, ``kubectl auth can-i`` and ``can-i --list``.

Three create-only kinds that are answered, never stored, as upstream's REST storage for them
does: authentication.k8s.io/v1 (and v1beta1) SelfSubjectReview (the caller's user,
``identity.user_of``),
authorization.k8s.io/v1 SelfSubjectAccessReview (may the caller do this? always yes: the one
token is a superuser and ``--no-auth`` allows everything) and SelfSubjectRulesReview (what
may the caller do: everything, written as cluster-admin's rules). ``REVIEW_GROUP_VERSIONS``
is their discovery (``app`` adds it to the registry's), ``serve_review`` the HTTP shell
``routes`` calls before the registry's resources; ``review_reply`` is the pure core. Bodies
are JSON or, as kubectl sends them, Kubernetes protobuf (``protobuf``).
"""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from podscale.api.field_errors import FieldError, invalid, invalid_status
from podscale.api.kinds import KindInfo
from podscale.apiserver.auth.identity import UserInfo, user_of
from podscale.apiserver.discovery import ExtraGroupVersion
from podscale.apiserver.errors import (
    ApiError,
    bad_request,
    method_not_allowed,
    path_not_found,
    status_body,
)
from podscale.apiserver.http.limits import decode_object, media_type, read_body
from podscale.apiserver.protobuf.bodies import (
    PROTOBUF_MEDIA_TYPE,
    ProtobufError,
    decode_protobuf_object,
)
from podscale.apiserver.registry.admission import check_type
from podscale.apiserver.state import json_response

__all__ = ["REVIEW_GROUP_VERSIONS", "review_reply", "serve_review"]

JSON = dict[str, Any]

AUTHENTICATION: Final = "authentication.k8s.io"
AUTHORIZATION: Final = "authorization.k8s.io"


def _review(group: str, kind: str, plural: str, version: str = "v1") -> KindInfo:
    # Not registry kinds (they have no storage); KindInfo only carries apiVersion and kind
    # for ``admission.check_type``.
    return KindInfo(group, version, kind, plural, "", (), False, ("create",), (), (), "")


_KINDS: Final = {
    (info.group, info.version, info.plural): info
    for info in (
        _review(AUTHENTICATION, "SelfSubjectReview", "selfsubjectreviews"),
        # kubectl <= 1.27's ``auth whoami`` asks v1beta1 (then v1alpha1) only; the shape is v1's.
        _review(AUTHENTICATION, "SelfSubjectReview", "selfsubjectreviews", "v1beta1"),
        _review(AUTHORIZATION, "SelfSubjectAccessReview", "selfsubjectaccessreviews"),
        _review(AUTHORIZATION, "SelfSubjectRulesReview", "selfsubjectrulesreviews"),
    )
}

# What RBAC's rule resolver lists for a member of system:masters (bound to cluster-admin).
_RESOURCE_RULES: Final = ({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},)
_NON_RESOURCE_RULES: Final = ({"verbs": ["*"], "nonResourceURLs": ["*"]},)


def _discovery(group: str, version: str = "v1") -> ExtraGroupVersion:
    infos = [info for key, info in sorted(_KINDS.items()) if key[:2] == (group, version)]
    legacy = tuple(
        {
            "name": info.plural,
            "singularName": info.plural.removesuffix("s"),
            "namespaced": False,
            "kind": info.kind,
            "verbs": ["create"],
        }
        for info in infos
    )
    aggregated = tuple(
        {
            "resource": info.plural,
            "responseKind": {"group": group, "version": version, "kind": info.kind},
            "scope": "Cluster",
            "singularResource": info.plural.removesuffix("s"),
            "verbs": ["create"],
        }
        for info in infos
    )
    return ExtraGroupVersion(group, version, legacy, aggregated, built_in=True)


# Upstream's group order puts authentication before authorization.
REVIEW_GROUP_VERSIONS: Final = (
    _discovery(AUTHENTICATION),
    _discovery(AUTHENTICATION, "v1beta1"),
    _discovery(AUTHORIZATION),
)


def _access_review_errors(spec: Any) -> list[FieldError]:
    """Upstream's SelfSubjectAccessReview validation: exactly one kind of attributes."""
    spec = spec if isinstance(spec, dict) else {}
    resource = spec.get("resourceAttributes")
    non_resource = spec.get("nonResourceAttributes")
    if resource is not None and non_resource is not None:
        return [
            invalid(
                "spec.nonResourceAttributes",
                non_resource,
                "cannot be specified in combination with resourceAttributes",
            )
        ]
    if resource is None and non_resource is None:
        return [
            invalid(
                "spec.resourceAttributes",
                None,
                "exactly one of nonResourceAttributes or resourceAttributes must be specified",
            )
        ]
    return []


def review_reply(info: KindInfo, body: JSON, user: UserInfo) -> JSON:
    """The created review: ``body`` (type-checked) with its status filled for ``user``.

    Raises ``ApiError`` with upstream's 400/422 for a body of another type or an invalid
    access review."""
    check_type(body, info)
    if info.kind == "SelfSubjectReview":
        body["status"] = {"userInfo": user.to_json()}
        return body
    if info.kind == "SelfSubjectRulesReview":
        body["status"] = {
            "resourceRules": [dict(rule) for rule in _RESOURCE_RULES],
            "nonResourceRules": [dict(rule) for rule in _NON_RESOURCE_RULES],
            "incomplete": False,
        }
        return body
    errors = _access_review_errors(body.get("spec"))
    if errors:
        name = str(body["metadata"].get("name") or "")
        raise ApiError(invalid_status(info.kind, AUTHORIZATION, name, errors))
    body["status"] = {"allowed": True}
    return body


def _decode(body: bytes, content_type: str | None, info: KindInfo) -> JSON:
    if media_type(content_type) == PROTOBUF_MEDIA_TYPE:
        try:
            return decode_protobuf_object(body, info.api_version, info.kind)
        except ProtobufError as err:
            if err.unsupported:
                raise ApiError(status_body(415, str(err), "UnsupportedMediaType")) from None
            raise bad_request(str(err)) from None
    return decode_object(body, content_type)


async def serve_review(request: Request) -> Response | None:
    """Answer a request under ``/apis/<group>/<version>/<review plural>...``; None for any
    other path (the registry's routes take it)."""
    parts = [part for part in request.url.path.split("/") if part]
    if len(parts) < 4 or parts[0] != "apis":
        return None
    info = _KINDS.get((parts[1], parts[2], parts[3]))
    if info is None:
        return None
    if len(parts) != 4:
        raise path_not_found()
    if request.method != "POST":
        raise method_not_allowed(["POST"])
    body = _decode(await read_body(request), request.headers.get("content-type"), info)
    return json_response(review_reply(info, body, user_of(request.scope)), 201)
