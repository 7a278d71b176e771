"""Request bodies: size limit, media type and JSON decoding with a depth limit.

Used by the write handlers (``handlers_write``, ``handlers_delete``, ``subresources``). Mirrors
kube-apiserver's request limits (upstream-behavior.md §3.3): bodies over 3 MiB get 413
``Request entity too large: limit is 3145728`` (checked on Content-Length first, then while
streaming, so a lying or chunked client cannot make us buffer more); undecodable or too deeply
nested JSON is a 400, never a 500. A missing Content-Type means JSON: the official Python
client sends none on POST, PUT and DELETE (kubectl-wire.md §8).
"""

from __future__ import annotations

from typing import Any, Final

import orjson
from starlette.requests import ClientDisconnect, Request

from podscale.apiserver.errors import (
    ApiError,
    bad_request,
    status_body,
    too_large,
    unsupported_media_type,
)

__all__ = [
    "JSON_MEDIA_TYPES",
    "MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "decode_json",
    "decode_object",
    "media_type",
    "read_body",
    "require_json_media_type",
]

MAX_BODY_BYTES: Final = 3 * 1024 * 1024
# Upstream allows 10 000; CPython's decoder recurses per level and gives up near 1 000, so a
# cheap pre-scan refuses anything deeper than this before the decoder ever sees it.
MAX_JSON_DEPTH: Final = 500
JSON_MEDIA_TYPES: Final = ("application/json",)


def media_type(content_type: str | None) -> str:
    """The bare, lower-cased media type; "" when the header is absent or blank."""
    return (content_type or "").split(";", 1)[0].strip().lower()


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The request body, refusing (413) more than ``limit`` bytes without buffering them."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise too_large(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        # The client went away or ``http.deadlines`` cut a trickling body (it has answered
        # 408 already): end the handler quietly; this answer reaches no one.
        raise ApiError(status_body(408, "the request body was not received", "Timeout")) from None
    return b"".join(chunks)


def _exceeds_depth(text: str, limit: int) -> bool:
    depth = 0
    in_string = False
    escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def decode_json(body: bytes) -> Any:
    """Any JSON value; 400 with upstream's wording for bad input of any kind.

    orjson, like Go's decoder, refuses NaN/Infinity, invalid UTF-8 and integers beyond 64
    bits; the bracket pre-scan bounds nesting before any decoder sees the body.
    """
    # Only a body with that many brackets at all can nest that deep: skip the scan otherwise.
    brackets = body.count(b"[") + body.count(b"{")
    if brackets > MAX_JSON_DEPTH and _exceeds_depth(
        body.decode("utf-8", errors="replace"), MAX_JSON_DEPTH
    ):
        raise bad_request(f"json: exceeded max depth of {MAX_JSON_DEPTH}")
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as err:
        raise bad_request(f"couldn't get version/kind; json parse error: {err}") from None


def require_json_media_type(content_type: str | None) -> None:
    """415 unless the body is JSON (or declares no type at all)."""
    kind = media_type(content_type)
    if kind not in ("", *JSON_MEDIA_TYPES):
        raise unsupported_media_type(kind, JSON_MEDIA_TYPES)


def decode_object(body: bytes, content_type: str | None) -> dict[str, Any]:
    """A JSON object body for create/update: 415 for other media types, 400 for non-objects."""
    require_json_media_type(content_type)
    value = decode_json(body)
    if not isinstance(value, dict):
        raise bad_request(
            "couldn't get version/kind; json parse error: json: cannot unmarshal "
            f"{_go_type(value)} into Go value of type struct {{ APIVersion string "
            '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
        )
    return value


def _go_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if value is None:
        return "null"
    return "number"
