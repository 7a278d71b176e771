"""Field paths: the elements of a path, their order and their text.

A ``Path`` is a tuple of ``PathElement``: a field name (``f:``), a list-map key (``k:``), a
set value (``v:``) or a list index (``i:``). ``fieldset`` builds ``FieldSet`` (what a manager
owns) over these paths and encodes it as ``fieldsV1`` with each element's
``to_fields_v1_key``; ``typed`` and ``compare`` name the fields of objects with them;
``merge`` lists conflicts with ``format_path`` and ``format_value``, Go's text for paths and
values. ``go_json`` writes values as Go's encoding/json does (``k:`` and ``v:`` keys).

The ordering of path elements is upstream's (field names, then list-map keys, then set values,
then indices; values by type: numbers, strings, booleans, lists, maps, null), because it fixes
both the order of ``fieldsV1`` keys and the order in which conflicts are listed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from decimal import Decimal
from functools import total_ordering
from typing import Any, Literal

__all__ = [
    "Path",
    "PathElement",
    "format_path",
    "format_value",
    "go_json",
    "path_from_strings",
]

ElementKind = Literal["field", "key", "value", "index"]
_KIND_RANK: dict[str, int] = {"field": 0, "key": 1, "value": 2, "index": 3}
# ``PathElement.field`` hands out one element per field name: most are schema names, met on
# every write; the bound only matters for maps keyed by arbitrary text (labels).
_FIELDS: dict[str, PathElement] = {}
_FIELDS_LIMIT = 8192
# ``PathElement.key`` likewise, by the exact key values (see there).
_KEYS: dict[tuple[Any, ...], PathElement] = {}
_EXACT_KEY_TYPES = frozenset({str, int, bool, type(None)})


def _value_key(value: Any) -> tuple[Any, ...]:
    """A total order over JSON values matching upstream's ``value.Compare``.

    Numbers compare numerically across int and float; ``True`` is kept apart from ``1``.
    """
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, list | tuple):
        return (3, tuple(_value_key(item) for item in value))
    if isinstance(value, Mapping):
        return (4, tuple((k, _value_key(v)) for k, v in sorted(value.items())))
    return (5,)


# The ordering is upstream's, not the alphabetical order of ``kind`` that ``order=True`` would
# give, and ``True`` must differ from ``1``: so equality, hashing and ordering are written out.
# The sort key and its hash are computed once, at construction: every set operation and
# every compare of an object hashes and compares elements, thousands of times per write.
@total_ordering
@dataclass(frozen=True, eq=False)
class PathElement:
    """One step of a path: a field name, a list-map key, a set value or a list index.

    ``value`` is a ``str`` (field), a tuple of ``(key field, scalar)`` pairs sorted by key
    field (key), a JSON scalar (value) or an ``int`` (index).
    """

    kind: ElementKind
    value: Any
    _order: tuple[Any, ...] = dataclass_field(init=False, repr=False)
    _hash: int = dataclass_field(init=False, repr=False)

    def __post_init__(self) -> None:
        order = self._key()
        object.__setattr__(self, "_order", order)
        object.__setattr__(self, "_hash", hash(order))

    def _key(self) -> tuple[Any, ...]:
        if self.kind == "key":
            return (1, tuple((name, _value_key(v)) for name, v in self.value))
        if self.kind == "value":
            return (2, _value_key(self.value))
        return (_KIND_RANK[self.kind], self.value)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, PathElement):
            return NotImplemented
        return self._hash == other._hash and self._order == other._order

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, PathElement):
            return NotImplemented
        return self._order < other._order

    def __hash__(self) -> int:
        return self._hash

    @staticmethod
    def field(name: str) -> PathElement:
        found = _FIELDS.get(name)
        if found is None:
            if len(_FIELDS) > _FIELDS_LIMIT:
                _FIELDS.clear()
            found = _FIELDS[name] = PathElement("field", name)
        return found

    @staticmethod
    def key(fields: Mapping[str, Any]) -> PathElement:
        value = tuple(sorted(fields.items()))
        # Kept by the key values and their types (``1`` and ``True`` are equal tuples, not
        # equal elements), for str, int, bool and null values only: ``0.0 == -0.0`` while
        # their texts differ, and so may tuples holding them. A list map's items
        # (conditions, containers, ports) are named on every write that walks them,
        # mostly by the same few keys.
        types = tuple([type(v) for _, v in value])
        if not _EXACT_KEY_TYPES.issuperset(types):
            return PathElement("key", value)
        memo = (value, types)
        found = _KEYS.get(memo)
        if found is None:
            if len(_KEYS) > _FIELDS_LIMIT:
                _KEYS.clear()
            found = _KEYS[memo] = PathElement("key", value)
        return found

    @staticmethod
    def of_value(value: Any) -> PathElement:
        return PathElement("value", value)

    @staticmethod
    def index(position: int) -> PathElement:
        return PathElement("index", position)

    def to_fields_v1_key(self) -> str:
        """The element's key in ``fieldsV1``: ``f:name``, ``k:{...}``, ``v:...`` or ``i:N``."""
        if self.kind == "field":
            return "f:" + str(self.value)
        if self.kind == "key":
            body = ",".join(go_json(name) + ":" + go_json(v) for name, v in self.value)
            return "k:{" + body + "}"
        if self.kind == "value":
            return "v:" + go_json(self.value)
        return "i:" + str(self.value)

    @staticmethod
    def from_fields_v1_key(text: str) -> PathElement:
        """Parse one ``fieldsV1`` key (not ``"."``); ``ValueError`` when malformed."""
        prefix, sep, rest = text.partition(":")
        if not sep:
            raise ValueError(f"unexpected path element {text!r}")
        if prefix == "f":
            return PathElement.field(rest)
        if prefix == "i":
            try:
                return PathElement.index(int(rest))
            except ValueError:
                raise ValueError(f"invalid index in path element {text!r}") from None
        if prefix not in ("k", "v"):
            raise ValueError(f"unknown path element type {prefix!r} in {text!r}")
        try:
            decoded = json.loads(rest)
        except ValueError:
            raise ValueError(f"invalid JSON in path element {text!r}") from None
        if prefix == "v":
            return PathElement.of_value(_freeze(decoded))
        if not isinstance(decoded, dict):
            raise ValueError(f"key path element {text!r} is not a JSON object")
        return PathElement.key({k: _freeze(v) for k, v in decoded.items()})

    def __str__(self) -> str:
        if self.kind == "field":
            return "." + str(self.value)
        if self.kind == "key":
            return "[" + ",".join(f"{name}={format_value(v)}" for name, v in self.value) + "]"
        if self.kind == "value":
            return f"[={format_value(self.value)}]"
        return f"[{self.value}]"


def _freeze(value: Any) -> Any:
    """Make a decoded JSON value hashable (lists and objects become tuples)."""
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


Path = tuple[PathElement, ...]


def path_from_strings(*names: str) -> Path:
    """A path of field names, e.g. ``path_from_strings("spec", "replicas")``."""
    return tuple(PathElement.field(name) for name in names)


def format_path(path: Path) -> str:
    """Upstream's ``Path.String()``: ``.spec.containers[name="web"].image``."""
    return "".join(str(element) for element in path)


def _go_float(value: float, *, json_style: bool) -> str:
    """Go's shortest float text: ``%v`` (exponent from 1e21) or encoding/json's."""
    if math.isnan(value) or math.isinf(value):
        return "null" if json_style else ("NaN" if math.isnan(value) else "+Inf")
    if value == 0:
        return "0"
    magnitude = abs(value)
    small = 1e-6 if json_style else 1e-4
    if small <= magnitude < 1e21:
        text = format(Decimal(repr(value)), "f")
        return text[:-2] if text.endswith(".0") else text
    mantissa, _, exponent = repr(value).partition("e")
    mantissa = mantissa[:-2] if mantissa.endswith(".0") else mantissa
    sign = "-" if exponent.startswith("-") else "+"
    digits = exponent.lstrip("+-").lstrip("0") or "0"
    if not json_style and len(digits) < 2:
        digits = "0" + digits  # %v pads the exponent to two digits, encoding/json does not
    return f"{mantissa}e{sign}{digits}"


def _go_quote(text: str) -> str:
    """Go's ``%q`` of a string."""
    named = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    named |= {"\v": "\\v", '"': '\\"', "\\": "\\\\"}
    out = []
    for ch in text:
        code = ord(ch)
        if ch in named:
            out.append(named[ch])
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def format_value(value: Any) -> str:
    """Upstream's ``value.ToString``: strings quoted as Go's ``%q``, numbers as ``%v``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value, json_style=False)
    if isinstance(value, str):
        return _go_quote(value)
    if isinstance(value, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        return "{" + ", ".join(f"{k}={format_value(v)}" for k, v in value) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return str(value)


def go_json(value: Any) -> str:
    """Compact JSON as Go's encoding/json writes it (HTML characters escaped)."""
    if isinstance(value, float) and not isinstance(value, bool):
        return _go_float(value, json_style=True)
    if isinstance(value, tuple):
        if all(isinstance(p, tuple) and len(p) == 2 for p in value) and value:
            return "{" + ",".join(go_json(k) + ":" + go_json(v) for k, v in value) + "}"
        return "[" + ",".join(go_json(v) for v in value) + "]"
    if isinstance(value, list):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(go_json(k) + ":" + go_json(v) for k, v in sorted(value.items())) + "}"
    text = json.dumps(value, ensure_ascii=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(raw, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
