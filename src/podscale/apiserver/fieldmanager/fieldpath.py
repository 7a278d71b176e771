"""Field paths and field sets: what a manager owns, and their ``fieldsV1`` JSON form.

``FieldSet`` is structured-merge-diff's ``fieldpath.Set``: a trie whose nodes hold *members*
(paths in the set) and *children* (paths below which the set has members). A path's prefixes
are not members unless inserted: ``{.spec.replicas}`` has ``.spec`` as a child only, which is
why ``fieldsV1`` writes ``"f:spec":{"f:replicas":{}}`` without a ``"."`` under ``f:spec``.
``merge`` builds these sets from objects (``to_field_set``) and diffs, ``managed`` stores them
in ``metadata.managedFields``.

The ordering of path elements is upstream's (field names, then list-map keys, then set values,
then indices; values by type: numbers, strings, booleans, lists, maps, null), because it fixes
both the order of ``fieldsV1`` keys and the order in which conflicts are listed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from decimal import Decimal
from functools import total_ordering
from typing import Any, Literal

__all__ = [
    "FieldSet",
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
        return PathElement("key", tuple(sorted(fields.items())))

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


class FieldSet:
    """An immutable, hashable set of paths (upstream's ``fieldpath.Set``).

    Children are never empty, so two sets holding the same paths are equal.
    """

    __slots__ = ("_children", "_hash", "_members")

    def __init__(
        self,
        members: Iterable[PathElement] = (),
        children: Mapping[PathElement, FieldSet] | None = None,
    ) -> None:
        self._members: frozenset[PathElement] = frozenset(members)
        self._children: dict[PathElement, FieldSet] = {
            pe: child for pe, child in (children or {}).items() if not child.empty()
        }
        self._hash: int | None = None

    @staticmethod
    def of(paths: Iterable[Path]) -> FieldSet:
        """The set holding exactly ``paths`` (the empty path is ignored)."""
        builder = FieldSetBuilder()
        for path in paths:
            builder.insert(path)
        return builder.freeze()

    @property
    def members(self) -> frozenset[PathElement]:
        return self._members

    @property
    def children(self) -> Mapping[PathElement, FieldSet]:
        return self._children

    def empty(self) -> bool:
        return not self._members and not self._children

    def has(self, path: Path) -> bool:
        """Whether ``path`` itself is a member (not merely a prefix of one)."""
        if not path:
            return False
        node: FieldSet | None = self
        for pe in path[:-1]:
            node = node._children.get(pe) if node is not None else None
        return node is not None and path[-1] in node._members

    def with_prefix(self, pe: PathElement) -> FieldSet:
        """The members below ``pe``, relative to it (upstream's ``WithPrefix``)."""
        return self._children.get(pe, _EMPTY)

    # ``union`` and ``difference`` give back ``self`` (or ``other``) when the result holds
    # the same paths: an entry a write leaves alone keeps its very set, whose hash and
    # encoded ``fieldsV1`` the field manager has memoized.
    def union(self, other: FieldSet) -> FieldSet:
        if other is self or other.empty():
            return self
        if self.empty():
            return other
        same = other._members <= self._members
        children = dict(self._children)
        for pe, child in other._children.items():
            mine = children.get(pe)
            merged = child if mine is None else mine.union(child)
            if merged is not mine:
                same = False
                children[pe] = merged
        if same:
            return self
        return FieldSet(self._members | other._members, children)

    def difference(self, other: FieldSet) -> FieldSet:
        if other.empty() or self.empty():
            return self
        if other is self:
            return _EMPTY
        members = self._members - other._members
        same = len(members) == len(self._members)
        children = {}
        for pe, child in self._children.items():
            theirs = other._children.get(pe)
            kept = child if theirs is None else child.difference(theirs)
            if kept is not child:
                same = False
            children[pe] = kept
        if same:
            return self
        return FieldSet(members, children)

    def intersection(self, other: FieldSet) -> FieldSet:
        children = {}
        for pe, child in self._children.items():
            theirs = other._children.get(pe)
            if theirs is not None:
                children[pe] = child.intersection(theirs)
        return FieldSet(self._members & other._members, children)

    def leaves(self) -> list[Path]:
        """Every member path, in upstream's ``Set.Iterate`` order.

        At each node the members come first, then each child's paths in element order; this
        is the order conflicts are listed in.
        """
        out: list[Path] = []
        self._collect((), out)
        return out

    def _collect(self, prefix: Path, out: list[Path]) -> None:
        out.extend((*prefix, pe) for pe in sorted(self._members))
        for pe in sorted(self._children):
            self._children[pe]._collect((*prefix, pe), out)

    def __iter__(self) -> Iterator[Path]:
        return iter(self.leaves())

    def __len__(self) -> int:
        return len(self._members) + sum(len(child) for child in self._children.values())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSet):
            return NotImplemented
        return self._members == other._members and self._children == other._children

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._members, frozenset(self._children.items())))
        return self._hash

    def __repr__(self) -> str:
        return "FieldSet({" + ", ".join(format_path(p) for p in self.leaves()) + "})"

    @staticmethod
    def from_fields_v1(doc: Mapping[str, Any]) -> FieldSet:
        """Decode ``fieldsV1``; ``ValueError`` on a malformed document."""
        if not isinstance(doc, Mapping):
            raise ValueError("fieldsV1 must be a JSON object")
        members: set[PathElement] = set()
        children: dict[PathElement, FieldSet] = {}
        for text, sub in doc.items():
            if text == ".":
                continue  # the parent's membership, read by the caller
            pe = PathElement.from_fields_v1_key(text)
            if not isinstance(sub, Mapping):
                raise ValueError(f"fieldsV1 entry {text!r} must be a JSON object")
            if not sub or "." in sub:
                members.add(pe)
            child = FieldSet.from_fields_v1(sub)
            if not child.empty():
                children[pe] = child
        return FieldSet(members, children)

    def to_fields_v1(self) -> dict[str, Any]:
        """Encode as upstream does: keys in element order, ``"."`` first in a node that is
        itself a member and has children below it."""
        out: dict[str, Any] = {}
        for pe in sorted(self._members | self._children.keys()):
            child = self._children.get(pe)
            if child is None:
                out[pe.to_fields_v1_key()] = {}
                continue
            body = child.to_fields_v1()
            if pe in self._members:
                body = {".": {}, **body}
            out[pe.to_fields_v1_key()] = body
        return out


_EMPTY = FieldSet()


class FieldSetBuilder:
    """A mutable trie for building a ``FieldSet`` path by path (used by the walkers)."""

    __slots__ = ("_children", "_members")

    def __init__(self) -> None:
        self._members: set[PathElement] = set()
        self._children: dict[PathElement, FieldSetBuilder] = {}

    def insert(self, path: Path) -> None:
        if not path:
            return
        node = self
        for pe in path[:-1]:
            child = node._children.get(pe)
            if child is None:  # not ``setdefault``: that would build a node per step
                child = node._children[pe] = FieldSetBuilder()
            node = child
        node._members.add(path[-1])

    def freeze(self) -> FieldSet:
        if not self._members and not self._children:
            return _EMPTY
        return FieldSet(self._members, {pe: b.freeze() for pe, b in self._children.items()})
