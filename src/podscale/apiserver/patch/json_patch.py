"""JSON patch (RFC 6902), ``application/json-patch+json``.

Called by ``patch.apply_patch`` with the decoded body. Upstream decodes the body with
evanphx/json-patch (v4) and applies it to the object's JSON; this module follows that library
where it differs from the RFC: a ``null`` body is an empty patch, negative array indices count
from the end, ``replace`` of a missing object key adds it, and a ``test`` of a missing key
against ``null`` passes. The whole document cannot be replaced (path ``""``).

Failures map as in ``handlers/patch.go``: a body that is not a list of operations is 400, more
than ``MAX_OPERATIONS`` operations 413, and any operation that does not apply 422 with the
generic message (the precise reason is kept in ``PatchError.detail``).
"""

from __future__ import annotations

import re
from typing import Any, Final

from podscale.api.json_copy import copy_json
from podscale.apiserver.patch.errors import PatchError, bad_request, unprocessable
from podscale.apiserver.patch.values import same_json

__all__ = ["MAX_OPERATIONS", "apply_json_patch"]

MAX_OPERATIONS: Final = 10000

# Go's strconv.Atoi: optional sign, decimal digits.
_INDEX: Final = re.compile(r"[+-]?[0-9]+")
_MISSING: Final = object()


class _OpFailed(Exception):
    """One operation did not apply; becomes the generic 422."""


def apply_json_patch(target: dict[str, Any], patch: Any) -> dict[str, Any]:
    """``target`` (owned by the caller, updated in place) with every operation applied."""
    operations = _decode_operations(patch)
    if len(operations) > MAX_OPERATIONS:
        raise PatchError(
            413,
            "RequestEntityTooLarge",
            "Request entity too large: The allowed maximum operations in a JSON patch is "
            f"{MAX_OPERATIONS}, got {len(operations)}",
        )
    for operation in operations:
        try:
            _apply_operation(target, operation)
        except _OpFailed as failure:
            raise unprocessable(str(failure)) from None
    return target


def _decode_operations(patch: Any) -> list[dict[str, Any]]:
    if patch is None:
        return []
    if not isinstance(patch, list):
        raise bad_request(
            f"json: cannot unmarshal {_go_kind(patch)} into Go value of type jsonpatch.Patch"
        )
    for item in patch:
        if item is not None and not isinstance(item, dict):
            raise bad_request(
                f"json: cannot unmarshal {_go_kind(item)} into Go value of type jsonpatch.Operation"
            )
    return [item or {} for item in patch]


def _go_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    return "number"


def _apply_operation(doc: dict[str, Any], operation: dict[str, Any]) -> None:
    kind = operation.get("op")
    if kind == "add":
        path = _string_field(operation, "path", kind)
        _add(_parent(doc, path, kind), path, operation.get("value"))
    elif kind == "remove":
        path = _string_field(operation, "path", kind)
        _remove(_parent(doc, path, kind), path)
    elif kind == "replace":
        path = _string_field(operation, "path", kind)
        _replace(_parent(doc, path, kind), path, operation.get("value"))
    elif kind == "test":
        path = _string_field(operation, "path", kind)
        _test(_parent(doc, path, kind), path, operation.get("value"))
    elif kind in ("move", "copy"):
        source = _string_field(operation, "from", kind)
        value = _get(_parent(doc, source, kind), source)
        if value is _MISSING:
            raise _OpFailed(f"{kind} operation does not apply: doc is missing from path: {source}")
        if kind == "move":
            _remove(_parent(doc, source, kind), source)
        else:
            value = copy_json(value)
        path = _string_field(operation, "path", kind)
        _add(_parent(doc, path, kind), path, value)
    else:
        raise _OpFailed(f"Unexpected kind: {kind if isinstance(kind, str) else 'unknown'}")


def _string_field(operation: dict[str, Any], name: str, kind: str) -> str:
    value = operation.get(name)
    if not isinstance(value, str):
        raise _OpFailed(f"{kind} operation failed to decode {name}: missing value")
    return value


def _split(path: str) -> list[str]:
    """RFC 6901 tokens of ``path``; ``~1`` and ``~0`` decode in one pass."""
    return [part.replace("~1", "/").replace("~0", "~") for part in path.split("/")[1:]]


def _parent(doc: dict[str, Any], path: str, kind: str) -> tuple[Any, str]:
    """The container holding ``path``'s last token, and that token."""
    if not path.startswith("/"):
        raise _OpFailed(f'{kind} operation does not apply: doc is missing path: "{path}"')
    *parents, last = _split(path)
    node: Any = doc
    for part in parents:
        node = _get((node, part), path) if isinstance(node, dict | list) else _MISSING
        if not isinstance(node, dict | list):
            raise _OpFailed(f'{kind} operation does not apply: doc is missing path: "{path}"')
    return node, last


def _index(container: list[Any], token: str, path: str, *, insert: bool) -> int:
    """Position ``token`` names in ``container``; one past the end is valid only to insert."""
    if not _INDEX.fullmatch(token):
        raise _OpFailed(f"value was not a proper array index: '{token}' for path: '{path}'")
    index = int(token)
    size = len(container) + (1 if insert else 0)
    if index >= size or index < -size:
        raise _OpFailed(f"Unable to access invalid index: {index}: invalid index referenced")
    return index + size if index < 0 else index


def _get(location: tuple[Any, str], path: str) -> Any:
    container, token = location
    if isinstance(container, dict):
        return container.get(token, _MISSING)
    return container[_index(container, token, path, insert=False)]


def _add(location: tuple[Any, str], path: str, value: Any) -> None:
    container, token = location
    if isinstance(container, dict):
        container[token] = value
    elif token == "-":
        container.append(value)
    else:
        container.insert(_index(container, token, path, insert=True), value)


def _remove(location: tuple[Any, str], path: str) -> None:
    container, token = location
    if isinstance(container, dict):
        if token not in container:
            raise _OpFailed(f"Unable to remove nonexistent key: {token}: missing value")
        del container[token]
    else:
        del container[_index(container, token, path, insert=False)]


def _replace(location: tuple[Any, str], path: str, value: Any) -> None:
    container, token = location
    if isinstance(container, dict):
        container[token] = value
    else:
        container[_index(container, token, path, insert=False)] = value


def _test(location: tuple[Any, str], path: str, expected: Any) -> None:
    actual = _get(location, path)
    if actual is _MISSING:
        actual = None
    if not same_json(actual, expected):
        raise _OpFailed(f"testing value {path} failed: test failed")
