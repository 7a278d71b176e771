"""Merge types: how ``merge`` walks an object, read from its OpenAPI v3 schema.

The counterpart of structured-merge-diff's ``schema`` package as kube-openapi's ``schemaconv``
fills it from OpenAPI: an object with ``properties`` is a struct (its declared fields), with
``additionalProperties`` a map (its element type), and ``x-kubernetes-map-type: atomic`` makes
either a single leaf; an array is a list whose ``x-kubernetes-list-type`` is ``atomic`` (the
default), ``set`` (items are scalars, owned one by one) or ``map`` (items are objects
identified by ``x-kubernetes-list-map-keys``); everything else is a scalar.

A missing schema gives the *deduced* type (upstream's ``DeducedParseableType``): maps are
granular all the way down, lists and scalars are leaves. ``x-kubernetes-preserve-unknown-fields``
makes undeclared keys deduced; a schema that says nothing at all (``{}``) is an atomic leaf.

Types are built lazily, child by child, so a large schema (a Pod's) costs only the part an
object actually uses; ``$ref`` and single-element ``allOf`` are followed through ``definitions``
(``#/components/schemas/...`` or ``#/definitions/...``) when given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

__all__ = ["DEDUCED", "UNTYPED", "TypeInfo", "type_for"]

TypeKind = Literal["scalar", "map", "list", "deduced", "untyped"]
ListType = Literal["atomic", "set", "map"]
_NO_DEFAULT: Final = object()


class TypeInfo:
    """The merge type of one node of an object.

    ``kind``: ``scalar``; ``map`` (struct fields and/or an element type; ``atomic`` when
    ``x-kubernetes-map-type: atomic``); ``list`` (``list_type`` and ``keys``); ``deduced``
    (shape taken from the value: maps granular, lists atomic); ``untyped`` (always a leaf).
    """

    __slots__ = (
        "_cache",
        "_children",
        "_defs",
        "_schema",
        "atomic",
        "default",
        "keys",
        "kind",
        "list_type",
    )

    def __init__(
        self,
        kind: TypeKind,
        *,
        atomic: bool = False,
        list_type: ListType = "atomic",
        keys: tuple[str, ...] = (),
        schema: Mapping[str, Any] | None = None,
        definitions: Mapping[str, Any] | None = None,
        default: Any = _NO_DEFAULT,
    ) -> None:
        self.kind: TypeKind = kind
        self.atomic = atomic
        self.list_type: ListType = list_type
        self.keys = keys
        self.default = default
        self._schema = schema or {}
        self._defs = definitions
        self._cache: dict[str, TypeInfo | None] = {}
        # ``child`` by key name (a map's only: it is what every walk asks at every key).
        self._children: dict[str, TypeInfo | None] = {}

    def __repr__(self) -> str:
        return f"TypeInfo({self.kind!r}, atomic={self.atomic}, list_type={self.list_type!r})"

    @property
    def granular(self) -> bool:
        """Whether the node's children are owned separately (not a leaf)."""
        if self.kind == "map":
            return not self.atomic
        if self.kind == "list":
            return self.list_type != "atomic"
        return self.kind == "deduced"

    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT

    def field(self, name: str) -> TypeInfo | None:
        """The type of a declared struct field, None when ``name`` is not declared."""
        if self.kind != "map":
            return None
        cache_key = "f:" + name
        if cache_key not in self._cache:
            props = self._schema.get("properties")
            sub = props.get(name) if isinstance(props, Mapping) else None
            self._cache[cache_key] = None if sub is None else type_for(sub, definitions=self._defs)
        return self._cache[cache_key]

    def element(self) -> TypeInfo | None:
        """The type of map values for undeclared keys, or of list items; None when a struct
        accepts no undeclared keys."""
        if self.kind == "deduced":
            return DEDUCED
        if self.kind == "untyped":
            return UNTYPED
        if "e" not in self._cache:
            self._cache["e"] = self._element()
        return self._cache["e"]

    def _element(self) -> TypeInfo | None:
        schema = self._schema
        if self.kind == "list":
            items = schema.get("items")
            return (
                type_for(items, definitions=self._defs) if isinstance(items, Mapping) else UNTYPED
            )
        if self.kind != "map":
            return None
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping):
            return type_for(extra, definitions=self._defs)
        if schema.get("x-kubernetes-preserve-unknown-fields") is True or extra is True:
            return DEDUCED
        if not isinstance(schema.get("properties"), Mapping):
            return DEDUCED  # a free-form object
        return None

    def child(self, name: str) -> TypeInfo | None:
        """The type under map key ``name``: its declared field's, else the element type.

        Kept per name for a map (a pure function of the node's schema, which never changes,
        and of ``name``, as ``field`` and ``element`` keep theirs), never for the shared
        ``DEDUCED`` and ``UNTYPED``, whose answer needs no lookup."""
        children = self._children
        if name in children:
            return children[name]
        declared = self.field(name)
        found = declared if declared is not None else self.element()
        if self.kind == "map":
            children[name] = found
        return found


DEDUCED: Final = TypeInfo("deduced")
UNTYPED: Final = TypeInfo("untyped")
_SCALAR_TYPES: Final = frozenset({"string", "integer", "number", "boolean"})


def _resolve(schema: Mapping[str, Any], defs: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Follow ``$ref`` and fold single-element ``allOf`` (how OpenAPI v3 attaches a default
    or a description to a referenced type) into one mapping."""
    seen = 0
    while seen < 64:  # a bound against reference loops
        seen += 1
        ref = schema.get("$ref")
        all_of = schema.get("allOf")
        if isinstance(ref, str):
            target = _lookup(ref, defs)
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **rest} if target is not None else rest
            if target is None:
                break
        elif isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], Mapping):
            rest = {k: v for k, v in schema.items() if k != "allOf"}
            schema = {**all_of[0], **rest}
        else:
            break
    return schema


def _lookup(ref: str, defs: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    if defs is None:
        return None
    for prefix in ("#/components/schemas/", "#/definitions/"):
        if ref.startswith(prefix):
            found = defs.get(ref[len(prefix) :])
            return found if isinstance(found, Mapping) else None
    return None


def type_for(
    schema: Mapping[str, Any] | None, *, definitions: Mapping[str, Any] | None = None
) -> TypeInfo:
    """The merge type described by an OpenAPI v3 schema; ``None`` gives the deduced type."""
    if schema is None:
        return DEDUCED
    schema = _resolve(schema, definitions)
    if "$ref" in schema:
        return DEDUCED  # an unresolvable reference: nothing is known of the shape
    default = schema.get("default", _NO_DEFAULT)
    declared = schema.get("type")
    if schema.get("x-kubernetes-int-or-string") is True or declared in _SCALAR_TYPES:
        return TypeInfo("scalar", default=default)
    if declared == "array" or "items" in schema:
        list_type = schema.get("x-kubernetes-list-type", "atomic")
        keys = schema.get("x-kubernetes-list-map-keys") or ()
        if list_type not in ("atomic", "set", "map"):
            list_type = "atomic"
        return TypeInfo(
            "list",
            list_type=list_type,
            keys=tuple(str(k) for k in keys),
            schema=schema,
            definitions=definitions,
            default=default,
        )
    if declared == "object" or "properties" in schema or "additionalProperties" in schema:
        return TypeInfo(
            "map",
            atomic=schema.get("x-kubernetes-map-type") == "atomic",
            schema=schema,
            definitions=definitions,
            default=default,
        )
    if schema.get("x-kubernetes-preserve-unknown-fields") is True:
        return DEDUCED
    return TypeInfo("untyped", default=default)
