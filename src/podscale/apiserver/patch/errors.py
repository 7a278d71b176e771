"""``PatchError``: how every PATCH format reports a rejected patch.

Raised by ``patch`` (content-type dispatch and body decoding) and by the three format engines
``patch.json_patch`` (RFC 6902), ``patch.merge`` (RFC 7386) and ``patch.strategic`` (strategic
merge); the Starlette app turns it into a ``Status`` with ``to_status()``. Codes and messages follow
``apiserver/pkg/endpoints/handlers/patch.go``: a bad body is 400 BadRequest, an unknown content type
415, too many JSON-patch operations 413, a JSON patch that does not apply 422 with apimachinery's
generic message, and a patch whose result is no object 422 Invalid on ``patch``.

Upstream answers a few malformed strategic patches (a list item without its merge key, mixed
element types...) with a 500 InternalError carrying the raw error text; podscale promises no
500 for any input, so those become 400 BadRequest with the same text (``bad_request``).
"""

from __future__ import annotations

from typing import Any, Final

from podscale.api.field_errors import FieldError, invalid, invalid_status

__all__ = [
    "GENERIC_INVALID",
    "PatchError",
    "bad_request",
    "invalid_result",
    "unprocessable",
]

# apimachinery's NewGenericServerResponse text for a 422: upstream wraps every JSON-patch
# application failure (failed test, missing path...) in it and drops the detail.
GENERIC_INVALID: Final = "the server rejected our request due to an error in our request"


class PatchError(Exception):
    """A rejected patch: HTTP ``code``, Status ``reason`` and upstream's message as ``str()``.

    ``causes`` (422 Invalid only) are the field errors for ``details.causes``; ``detail`` keeps
    the precise failure upstream swallows behind the generic 422 text, for logs and tests.
    """

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        *,
        causes: tuple[FieldError, ...] = (),
        detail: str = "",
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.causes = causes
        self.detail = detail or message

    def __str__(self) -> str:
        return self.message

    def to_status(self) -> dict[str, Any]:
        """The failure ``Status`` upstream sends for this error."""
        if self.causes:
            return invalid_status("", "", "", self.causes)
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }


def bad_request(message: str) -> PatchError:
    return PatchError(400, "BadRequest", message)


def unprocessable(detail: str) -> PatchError:
    """A 422 whose message is apimachinery's generic text; ``detail`` says what went wrong."""
    return PatchError(422, "Invalid", GENERIC_INVALID, detail=detail)


def invalid_result(rendered: str, reason: str) -> PatchError:
    """The patched document cannot be the object: upstream's ``NewInvalid`` on field ``patch``.

    The kind and name are empty upstream too, so the message reads ``' "" is invalid: ...'``.
    """
    cause = invalid("patch", rendered, reason)
    message = str(invalid_status("", "", "", [cause])["message"])
    return PatchError(422, "Invalid", message, causes=(cause,))
