"""JSON values as a CEL rule sees them: ``self``/``oldSelf`` bindings built from the schema.

kube-apiserver exposes a custom resource to CEL through its structural schema, so the
binding is not the raw JSON: ``type: number`` is always a double (``1`` becomes ``1.0``), an
object with ``properties`` shows only its declared fields under escaped names (``foo-bar``
as ``foo__dash__bar``, a CEL keyword such as ``namespace`` as ``__namespace__``; names that
cannot be escaped are hidden), ``additionalProperties`` maps keep their keys, a resource root
(or ``x-kubernetes-embedded-resource``) shows ``apiVersion``, ``kind`` and only
``metadata.name``/``metadata.generateName``, and fields whose schema has no type (other than
int-or-string) are hidden. ``format: byte`` strings are bytes. ``date-time``/``duration``
strings stay strings (the runtime takes no nested timestamps), a known difference from
upstream's timestamp/duration typing. Used by ``podscale.api.cel.validation``. Pure.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Final

__all__ = ["escape_name", "to_cel"]

_RESERVED: Final = frozenset(
    {
        "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
        "function", "if", "import", "let", "loop", "package", "namespace", "return", "var",
        "void", "while",
    }
)  # fmt: skip
_ESCAPABLE: Final = re.compile(r"^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$")
_ESCAPES: Final = re.compile(r"__|[.\-/]")
_ESCAPE_TEXT: Final = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}
_META_FIELDS: Final = ("name", "generateName")


class _Hidden:
    """Marker: the value is not visible to CEL (untyped schema)."""


HIDDEN: Final = _Hidden()


def escape_name(name: str) -> str | None:
    """A property name as a CEL field name, or ``None`` when it cannot be escaped."""
    if name in _RESERVED:
        return f"__{name}__"
    if not _ESCAPABLE.match(name):
        return None
    return _ESCAPES.sub(lambda m: _ESCAPE_TEXT[m.group(0)], name)


def _scalar(value: Any, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "string" and schema.get("format") == "byte" and isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return value
    return value


def _object(value: dict[str, Any], schema: dict[str, Any], root: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    properties: dict[str, Any] = schema.get("properties") or {}
    if properties or root:
        for key, item in value.items():
            if root and key in ("apiVersion", "kind") and key not in properties:
                out[key] = item
                continue
            if root and key == "metadata" and isinstance(item, dict):
                out[key] = {k: item[k] for k in _META_FIELDS if k in item}
                continue
            sub = properties.get(key)
            name = escape_name(key)
            if sub is None or name is None:
                continue
            converted = to_cel(item, sub)
            if converted is not HIDDEN:
                out[name] = converted
        return out
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        for key, item in value.items():
            converted = to_cel(item, extra)
            if converted is not HIDDEN:
                out[key] = converted
    return out


def to_cel(value: Any, schema: dict[str, Any], *, resource_root: bool = False) -> Any:
    """Convert ``value`` for binding as ``self`` under ``schema``; ``HIDDEN`` when untyped."""
    if value is None:
        return None
    if schema.get("x-kubernetes-int-or-string"):
        return value
    kind = schema.get("type")
    root = resource_root or bool(schema.get("x-kubernetes-embedded-resource"))
    if not kind and not root:
        return HIDDEN
    if isinstance(value, dict):
        return _object(value, schema, root)
    if isinstance(value, list):
        items = schema.get("items")
        if not isinstance(items, dict):
            return HIDDEN
        converted = (to_cel(item, items) for item in value)
        return [item for item in converted if item is not HIDDEN]
    return _scalar(value, schema)
