"""Upstream ``Status`` errors: the one way every handler in ``podscale.apiserver`` fails.

Handlers raise ``ApiError`` carrying a ready ``Status`` body; ``app`` turns it into the JSON
response. Messages, reasons and ``details`` mirror apimachinery's ``pkg/api/errors``
constructors (``NewNotFound``, ``NewAlreadyExists``, ``NewConflict``, ``NewBadRequest``...), as
kubectl prints them (kubectl-wire.md §7). ``from_store_error`` maps ``podscale.store`` failures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from podscale.store.errors import (
    BackendError,
    InvalidContinueError,
    TooLargeResourceVersionError,
)
from podscale.store.interface import (
    AlreadyExistsError,
    ConflictError,
    ExpiredError,
    NotFoundError,
    StoreError,
)

__all__ = [
    "ApiError",
    "already_exists",
    "bad_request",
    "conflict",
    "error_headers",
    "expired",
    "from_store_error",
    "internal_error",
    "method_not_allowed",
    "not_found",
    "path_not_found",
    "status_body",
    "too_large",
    "too_large_resource_version",
    "unauthorized",
    "unsupported_media_type",
]

JSON = dict[str, Any]

_REASONS: Final = {
    400: "BadRequest",
    401: "Unauthorized",
    404: "NotFound",
    405: "MethodNotAllowed",
    409: "Conflict",
    410: "Expired",
    413: "RequestEntityTooLarge",
    415: "UnsupportedMediaType",
    422: "Invalid",
    500: "InternalError",
    504: "Timeout",
}
# Upstream's watch cache asks clients to retry a too-new read after this many seconds.
_TOO_LARGE_RETRY_SECONDS: Final = 1


def status_body(code: int, message: str, reason: str = "", details: JSON | None = None) -> JSON:
    """A failure ``Status``; ``details`` is omitted when None (as Go's omitempty pointer)."""
    body: JSON = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason or _REASONS.get(code, ""),
    }
    if details is not None:
        body["details"] = details
    body["code"] = code
    return body


class ApiError(Exception):
    """An error response; ``status`` is the whole ``Status`` body, ``code`` its HTTP code."""

    def __init__(self, status: JSON, headers: dict[str, str] | None = None) -> None:
        super().__init__(status.get("message", ""))
        self.status = status
        self.headers = headers or {}  # e.g. a 405's ``Allow``

    @property
    def code(self) -> int:
        return int(self.status.get("code", 500))


def _details(resource: str, name: str) -> JSON:
    """``{name, group, kind}`` where kind is the plural resource, as ``NewNotFound`` fills it."""
    plural, _, group = resource.partition(".")
    details: JSON = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = plural
    return details


def not_found(resource: str, name: str) -> ApiError:
    """``replicasets.apps "x" not found``; ``resource`` is the GroupResource string."""
    return ApiError(
        status_body(404, f'{resource} "{name}" not found', "NotFound", _details(resource, name))
    )


def already_exists(resource: str, name: str) -> ApiError:
    message = f'{resource} "{name}" already exists'
    return ApiError(status_body(409, message, "AlreadyExists", _details(resource, name)))


def conflict(resource: str, name: str, message: str) -> ApiError:
    """``message`` is the full ``Operation cannot be fulfilled on ...`` text."""
    return ApiError(status_body(409, message, "Conflict", _details(resource, name)))


def expired(message: str) -> ApiError:
    return ApiError(status_body(410, message, "Expired"))


def bad_request(message: str) -> ApiError:
    return ApiError(status_body(400, message, "BadRequest"))


def path_not_found() -> ApiError:
    """An unknown URL: upstream's generic 404 (``NewNotFound`` without a resource)."""
    return ApiError(
        status_body(404, "the server could not find the requested resource", "NotFound", {})
    )


def method_not_allowed(allowed: Sequence[str] = ()) -> ApiError:
    """405 with ``Allow`` naming ``allowed`` (as go-restful answers for a route's other
    methods; RFC 9110 requires the header on a 405). Empty ``allowed``: no header."""
    return ApiError(
        status_body(
            405,
            "the server does not allow this method on the requested resource",
            "MethodNotAllowed",
            {},
        ),
        {"Allow": ", ".join(allowed)} if allowed else None,
    )


def unsupported_media_type(content_type: str, accepted: tuple[str, ...]) -> ApiError:
    """Upstream's ``NewUnsupportedMediaTypeError`` for a body it cannot decode."""
    del content_type  # upstream's message names the accepted types only
    message = "the body of the request was in an unknown format - accepted media types include: "
    return ApiError(status_body(415, message + ", ".join(accepted), "UnsupportedMediaType"))


def too_large(limit: int) -> ApiError:
    return ApiError(
        status_body(413, f"Request entity too large: limit is {limit}", "RequestEntityTooLarge")
    )


def too_large_resource_version(requested: int, current: int) -> ApiError:
    """A read for a revision the store has not reached: ``NewTooLargeResourceVersionError``
    (a ``NewTimeoutError`` with the ``ResourceVersionTooLarge`` cause), as clients such as
    client-go's reflector recognise it by that cause."""
    message = f"Timeout: Too large resource version: {requested}, current: {current}"
    details: JSON = {
        "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
        "retryAfterSeconds": _TOO_LARGE_RETRY_SECONDS,
    }
    return ApiError(status_body(504, message, "Timeout", details))


def error_headers(status: JSON) -> dict[str, str]:
    """``Retry-After`` for a Status whose details ask for a retry, as upstream's error
    writer sets it."""
    details = status.get("details")
    retry = details.get("retryAfterSeconds") if isinstance(details, dict) else None
    if isinstance(retry, int) and retry > 0:
        return {"Retry-After": str(retry)}
    return {}


def unauthorized() -> ApiError:
    return ApiError(status_body(401, "Unauthorized", "Unauthorized"))


def internal_error() -> ApiError:
    """A generic 500: never echo the exception (it may hold paths, SQL or secrets)."""
    message = (
        'an error on the server ("unexpected error") has prevented the request from succeeding'
    )
    return ApiError(status_body(500, message, "InternalError", {}))


def from_store_error(err: StoreError, fallback_resource: str, fallback_name: str) -> ApiError:
    """The ``Status`` for a store failure; the store's messages already are upstream's."""
    resource = err.resource or fallback_resource
    name = err.name or fallback_name
    if isinstance(err, NotFoundError):
        return not_found(resource, name)
    if isinstance(err, AlreadyExistsError):
        return already_exists(resource, name)
    if isinstance(err, ConflictError):
        return conflict(resource, name, str(err))
    if isinstance(err, ExpiredError):
        return expired(str(err))
    if isinstance(err, InvalidContinueError):
        return bad_request(str(err))
    if isinstance(err, TooLargeResourceVersionError):
        return too_large_resource_version(err.requested, err.current)
    if isinstance(err, BackendError):
        # The store's message names only the SQLite result code, never SQL or paths.
        return ApiError(status_body(503, str(err), "ServiceUnavailable"))
    return internal_error()
