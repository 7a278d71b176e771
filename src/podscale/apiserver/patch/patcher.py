"""PATCH bodies: ``apply_patch`` turns (content type, object, body) into the patched object.

The API server's PATCH handler (the Starlette app) calls ``apply_patch`` with the stored
object in the request's version, then defaults, validates and stores the result; this module
does no I/O and never checks names, namespaces or resource versions (the handler does). It
picks the format like ``handlers/patch.go``: the media type before any ``;`` must be one of
``SUPPORTED_TYPES``, else 415 listing them; strategic merge is refused (415) for kinds that are
not built in, as upstream does for custom resources. Server-side apply
(``application/apply-patch+yaml``) never reaches this module: ``operations.apply`` takes
those requests to the structured merge (``apiserver.fieldmanager``).

The body is decoded with orjson, whose errors (and any nesting deeper than ``MAX_DEPTH``)
become a 400 instead of a crash; the formats live in ``patch.json_patch``, ``patch.merge`` and
``patch.strategic``, errors in ``patch.errors``.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from podscale.api.json_copy import copy_json
from podscale.api.kinds import is_built_in
from podscale.apiserver.patch.errors import PatchError, bad_request
from podscale.apiserver.patch.json_patch import MAX_OPERATIONS, apply_json_patch
from podscale.apiserver.patch.merge import apply_merge_patch
from podscale.apiserver.patch.schema import schema_for
from podscale.apiserver.patch.strategic import apply_strategic_patch
from podscale.apiserver.patch.values import nesting_depth

__all__ = [
    "JSON_PATCH",
    "MAX_DEPTH",
    "MAX_OPERATIONS",
    "MERGE_PATCH",
    "STRATEGIC_MERGE_PATCH",
    "SUPPORTED_TYPES",
    "PatchError",
    "apply_patch",
    "supported_types",
]

JSON_PATCH: Final = "application/json-patch+json"
MERGE_PATCH: Final = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH: Final = "application/strategic-merge-patch+json"
SUPPORTED_TYPES: Final = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH)

# Real objects nest a few dozen levels; the engines recurse once or twice per level, so this
# keeps them far from Python's recursion limit whatever the body (orjson stops at 1024).
MAX_DEPTH: Final = 100


def supported_types(api_version: str, kind: str) -> tuple[str, ...]:
    """The patch media types accepted for ``kind`` (no strategic merge for non-built-ins)."""
    if is_built_in(api_version, kind):  # strategic merge is for built-in kinds only
        return SUPPORTED_TYPES
    return (JSON_PATCH, MERGE_PATCH)


def apply_patch(
    content_type: str, original: dict[str, Any], patch: bytes, *, kind: str, api_version: str
) -> dict[str, Any]:
    """``original`` with ``patch`` applied, as a new object; ``original`` is never modified.

    ``kind``/``api_version`` name the object being patched (``Scale``/``autoscaling/v1`` on
    ``/scale``, the parent kind on ``/status``). Raises ``PatchError`` for every rejected body.
    """
    media_type = _media_type(content_type)
    accepted = supported_types(api_version, kind)
    if media_type not in accepted:
        raise PatchError(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: "
            + ", ".join(accepted),
        )
    body = _decode(patch, media_type)
    target = copy_json(original)
    if media_type == JSON_PATCH:
        return apply_json_patch(target, body)
    if media_type == MERGE_PATCH:
        return apply_merge_patch(target, body)
    return apply_strategic_patch(target, body, schema_for(api_version, kind))


def _media_type(content_type: str) -> str:
    """The media type without parameters, cut at the first ``;`` exactly as upstream does."""
    cut = content_type.find(";")
    return content_type[:cut] if cut > 0 else content_type


def _decode(patch: bytes, media_type: str) -> Any:
    try:
        body = orjson.loads(patch)
    except orjson.JSONDecodeError as err:
        # evanphx's MergePatch reports any undecodable body with this one text.
        raise bad_request(
            "Invalid JSON Patch" if media_type == MERGE_PATCH else f"error decoding patch: {err}"
        ) from None
    if nesting_depth(body, MAX_DEPTH) > MAX_DEPTH:
        raise bad_request(f"error decoding patch: exceeded max depth of {MAX_DEPTH}")
    return body
