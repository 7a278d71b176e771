"""A subset of GJSON paths, as KEDA's metrics-api scaler reads `valueLocation`.

`gjson_get(body, path)` returns the GJSON type name of what `path` selects (`Null`,
`False`, `True`, `Number`, `String`, `JSON`) and its value. Supported: dot-separated
keys with `\\` escaping a dot or wildcard, `*` and `?` wildcards on object keys (the
first key in document order that matches, as GJSON scans), numeric components indexing
arrays, `#` for an array's length, `#.rest` for the array of `rest` of each element (a
JSON value), and `|` read as `.`. A missing key or a body that is not JSON reads as
`Null` (GJSON does not validate the document and finds nothing in one it cannot read).
Duplicate keys: the first one wins, as GJSON's scan finds it. Modifiers (`@reverse`)
and queries (`#(...)`) are refused with `GJSONUnsupported`.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from typing import Any

__all__ = ["GJSONUnsupported", "gjson_get"]


class GJSONUnsupported(ValueError):
    """A path using GJSON syntax podscale does not implement."""


class _Object(list[tuple[str, Any]]):
    """A JSON object with its keys in document order, duplicates kept."""


def _parse(body: bytes) -> Any:
    return json.loads(body, object_pairs_hook=_Object)


def _split(path: str) -> list[tuple[str, bool]]:
    """Components and whether each holds an unescaped wildcard."""
    parts: list[tuple[str, bool]] = []
    current: list[str] = []
    wild = False
    i = 0
    while i < len(path):
        ch = path[i]
        if ch == "\\" and i + 1 < len(path):
            current.append(path[i + 1])
            i += 2
            continue
        if ch in ".|":
            parts.append(("".join(current), wild))
            current, wild = [], False
        else:
            wild = wild or ch in "*?"
            current.append(ch)
        i += 1
    parts.append(("".join(current), wild))
    return parts


def _type(value: Any) -> str:
    if value is None:
        return "Null"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, int | float):
        return "Number"
    if isinstance(value, str):
        return "String"
    return "JSON"


_MISSING = object()


def _step(node: Any, key: str, wild: bool) -> Any:
    if isinstance(node, _Object):
        for name, value in node:
            if (wild and fnmatchcase(name, key)) or (not wild and name == key):
                return value
        return _MISSING
    if isinstance(node, list) and key.isdigit():
        index = int(key)
        return node[index] if index < len(node) else _MISSING
    return _MISSING


def _walk(node: Any, parts: list[tuple[str, bool]]) -> Any:
    for position, (key, wild) in enumerate(parts):
        if key.startswith(("@", "#(")):
            raise GJSONUnsupported(f"GJSON modifiers and queries are not supported: {key}")
        if key == "#" and isinstance(node, list) and not isinstance(node, _Object):
            rest = parts[position + 1 :]
            if not rest:
                return len(node)
            found = [_walk(item, rest) for item in node]
            return [item for item in found if item is not _MISSING]
        node = _step(node, key, wild)
        if node is _MISSING:
            return _MISSING
    return node


def gjson_get(body: bytes, path: str) -> tuple[str, Any]:
    """GJSON's `Get(body, path)`: the result's type name and its Python value."""
    try:
        document = _parse(body)
    except ValueError:
        return "Null", None
    found = _walk(document, _split(path))
    if found is _MISSING:
        return "Null", None
    return _type(found), found
