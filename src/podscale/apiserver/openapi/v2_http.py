"""GET ``/openapi/v2``: the Swagger document in the representation the client accepts.

JSON (``application/json``, or no preference) comes from ``openapi.v2``; kubectl and
client-go up to 1.28 ask for ``application/com.github.proto-openapi.spec.v2@v1.0+protobuf``
(the gnostic ``openapi.v2.Document`` message), which ``openapi.v2_proto`` encodes from the
same document. Upstream serves both with an ETag of the content's hash and answers a
matching ``If-None-Match`` with 304; a client that accepts neither gets 406.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache
from typing import Final

from starlette.responses import Response

from podscale.apiserver.errors import ApiError, status_body
from podscale.apiserver.openapi.v2 import openapi_v2_json
from podscale.apiserver.openapi.v2_proto import openapi_v2_protobuf

__all__ = ["PROTOBUF_V2", "PROTOBUF_V2_REPLY", "negotiate", "serve_openapi_v2"]

PROTOBUF_V2: Final = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
# What the protobuf answer is labelled: Go's mime parser refuses the "@" of the requested
# type, so upstream (kube-openapi) replies with the dotted spelling, which it also accepts.
PROTOBUF_V2_REPLY: Final = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
_PROTOBUF_ACCEPTED: Final = (PROTOBUF_V2, PROTOBUF_V2_REPLY)
_JSON: Final = "application/json"


def negotiate(accept: str | None) -> str | None:
    """The media type to answer with: the first acceptable entry of ``accept`` (JSON when
    there is no header), None when nothing offered is acceptable."""
    if not accept or not accept.strip():
        return _JSON
    for entry in accept.split(","):
        media = entry.split(";", 1)[0].strip().lower()
        if media in _PROTOBUF_ACCEPTED:
            return PROTOBUF_V2
        if media in (_JSON, "application/*", "*/*"):
            return _JSON
    return None


@cache
def _body(media: str) -> tuple[bytes, str]:
    body = openapi_v2_protobuf() if media == PROTOBUF_V2 else openapi_v2_json()
    return body, '"' + hashlib.sha512(body).hexdigest().upper() + '"'


def serve_openapi_v2(
    accept: str | None,
    if_none_match: str | None = None,
    body_for: Callable[[str], bytes] | None = None,
) -> Response:
    """The response for ``accept``; ``body_for(media)`` replaces the built-in document's body
    (a server with custom resources serves ``customresources.openapi``'s merged one)."""
    media = negotiate(accept)
    if media is None:
        message = f"only the following media types are accepted: {_JSON}, {PROTOBUF_V2}"
        raise ApiError(status_body(406, message, "NotAcceptable"))
    if body_for is None:
        body, etag = _body(media)
    else:
        body = body_for(media)
        etag = '"' + hashlib.sha512(body).hexdigest().upper() + '"'
    headers = {"etag": etag, "vary": "Accept"}
    if if_none_match is not None and etag in if_none_match:
        return Response(status_code=304, headers=headers)
    reply = PROTOBUF_V2_REPLY if media == PROTOBUF_V2 else media
    return Response(body, media_type=reply, headers=headers)
