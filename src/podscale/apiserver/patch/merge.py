"""JSON merge patch (RFC 7386), ``application/merge-patch+json``.

Called by ``patch.apply_patch`` with an already decoded body; ``create_merge_patch`` is the
inverse used by the property tests. Upstream applies these with evanphx/json-patch's
``MergePatch``: a body that is ``null`` or a scalar is 400 "Invalid JSON Patch", an array
replaces the whole document (which then cannot decode into the object: 422 Invalid on
``patch``), and an object is merged key by key, ``null`` deleting a key.
"""

from __future__ import annotations

from typing import Any

import orjson

from podscale.apiserver.patch.errors import bad_request, invalid_result
from podscale.apiserver.patch.values import same_json

__all__ = ["apply_merge_patch", "create_merge_patch", "merge_values"]

# evanphx/json-patch's ErrBadJSONPatch text, which the handler returns as a 400.
_BAD_PATCH = "Invalid JSON Patch"


def apply_merge_patch(target: dict[str, Any], patch: Any) -> dict[str, Any]:
    """``target`` (owned by the caller, updated in place) merged with the decoded ``patch``."""
    if isinstance(patch, list):
        rendered = orjson.dumps(merge_values(None, patch)).decode()
        raise invalid_result(rendered, "json: cannot unmarshal array into Go value of type object")
    if not isinstance(patch, dict):
        raise bad_request(_BAD_PATCH)
    merged = merge_values(target, patch)
    assert isinstance(merged, dict)
    return merged


def merge_values(target: Any, patch: Any) -> Any:
    """RFC 7386 ``MergePatch(target, patch)``: a non-object patch value replaces the target.

    Objects merge recursively; inside them ``null`` removes a key, so an object value that
    lands where the target had none has its nulls pruned (it is merged onto ``{}``).
    """
    if not isinstance(patch, dict):
        return patch
    result = target if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_values(result.get(key), value)
    return result


def create_merge_patch(original: Any, modified: Any) -> Any:
    """A merge patch turning ``original`` into ``modified`` (both free of nulls in objects)."""
    if not isinstance(original, dict) or not isinstance(modified, dict):
        return modified
    patch: dict[str, Any] = {}
    for key in original.keys() - modified.keys():
        patch[key] = None
    for key, value in modified.items():
        if key not in original:
            patch[key] = value
        elif not same_json(original[key], value):
            patch[key] = create_merge_patch(original[key], value)
    return patch
