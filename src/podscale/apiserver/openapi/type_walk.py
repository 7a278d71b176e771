"""The full walk of a value against a published schema: ``_check`` and what it reads.

``types`` (``type_mismatches``) runs it on what an update changed and on every create, with
its memo of clean values; this module holds the walk itself: ``TypeMismatch`` (what Go's
decoder would refuse, worded as it words it), ``_check`` (the first mismatch of a value
under a schema node, depth first in the object's order), and the kept per-node facts it
reads (``_node``: references resolved, the Go type names, the JSON kind a node takes).
Schemas come from ``schemas``; the either-or types of ``schemas_jsonschema`` and the
quantity and int-or-string types of ``schemas_meta`` are checked as Go decodes them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Final, NamedTuple, TypeGuard

from podscale.apiserver.openapi.dsl import ref_target
from podscale.apiserver.openapi.schemas import all_schemas
from podscale.apiserver.openapi.schemas_jsonschema import ALTERNATIVES, PROPS
from podscale.apiserver.openapi.schemas_meta import INT_OR_STRING, QUANTITY

__all__ = ["TypeMismatch"]

_GO_SCALARS: Final = {
    ("integer", "int32"): "int32",
    ("integer", "int64"): "int64",
    ("integer", ""): "int",
    ("number", "double"): "float64",
    ("number", ""): "float64",
    ("string", ""): "string",
    ("boolean", ""): "bool",
}


class TypeMismatch(NamedTuple):
    """A value of the wrong JSON type: where, what Go expected, what was sent."""

    struct: str  # the Go struct holding the field, e.g. "ReplicaSetSpec"
    path: str  # e.g. "spec.replicas"
    expected: str  # Go's spelling, e.g. "int32", "[]v1.Container", "v1.ObjectMeta"
    got: str  # JSON's kind as Go names it: string, number, bool, array, object

    def message(self) -> str:
        return (
            f"json: cannot unmarshal {self.got} into Go struct field "
            f"{self.struct}.{self.path} of type {self.expected}"
        )


_WANTED: Final = {
    "integer": "number",
    "number": "number",
    "string": "string",
    "boolean": "bool",
    "array": "array",
    "object": "object",
}


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    return "object"


def _fits(value: Any, fmt: str) -> bool:
    """Whether an integer decodes into Go's int32 (``int32``) or int64 (anything else).

    Go refuses an out-of-range literal rather than wrapping it, so ``replicas: 2147483648``
    can never become -2147483648 or reach a controller that would create that many pods.
    """
    if not isinstance(value, int) or isinstance(value, bool):
        return True  # strings and fractions are a type question, answered elsewhere
    bits = 32 if fmt == "int32" else 64
    return -(1 << (bits - 1)) <= value < (1 << (bits - 1))


# Resolved references by the id of the schema node (``all_schemas`` is built once and never
# freed, as are ``_root``'s nodes): a write walks the same few hundred nodes every time, and
# resolving them again was a third of the walk.
_RESOLVED: dict[int, tuple[Mapping[str, Any], str | None, Mapping[str, Any]]] = {}


def _named(schema: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any]]:
    """The schema's name (when it is a reference) and its resolved definition."""
    cached = _RESOLVED.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1], cached[2]
    name, resolved = _resolve(schema)
    _RESOLVED[id(schema)] = (schema, name, resolved)  # holds ``schema``: its id stays its own
    return name, resolved


class _Node(NamedTuple):
    """What ``_check`` and ``_check_changed`` read of one schema node: its ``name`` (when it
    is a reference) and ``resolved`` definition (``_named``); ``opaque`` for the types
    ``_check_changed`` leaves to ``_check`` (either-or, quantity, int-or-string);
    ``declared`` the resolved ``type``, ``wanted`` the JSON kind it takes (None: any),
    ``format`` its format; ``holder`` the Go struct a named object's fields are reported
    under (None: the caller's); ``properties``, ``additional`` and ``items`` when they are
    schemas."""

    name: str | None
    resolved: Mapping[str, Any]
    opaque: bool
    declared: Any
    wanted: str | None
    format: str
    holder: str | None
    properties: Mapping[str, Any] | None
    additional: Mapping[str, Any] | None
    items: Mapping[str, Any] | None


# ``_Node`` by the id of the schema node, exact as ``_RESOLVED`` is (the node is held, the
# schemas never change): a write descends the same few hundred nodes every time (a status
# write the few its status changed), and reading them again (references, the ABC checks of
# their parts) was most of each step of ``_check`` and ``_check_changed``.
_NODES: dict[int, tuple[Mapping[str, Any], _Node]] = {}


def _node(schema: Mapping[str, Any]) -> _Node:
    cached = _NODES.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    name, resolved = _named(schema)
    properties = resolved.get("properties")
    additional = resolved.get("additionalProperties")
    items = resolved.get("items")
    node = _Node(
        name=name,
        resolved=resolved,
        opaque=name in ALTERNATIVES or name in (QUANTITY, INT_OR_STRING),
        declared=resolved.get("type"),
        wanted=_WANTED.get(str(resolved.get("type"))),
        format=str(resolved.get("format", "")),
        holder=name.rpartition(".")[2] if name is not None else None,
        properties=properties if _is_mapping(properties) else None,
        additional=additional if _is_mapping(additional) else None,
        items=items if _is_mapping(items) else None,
    )
    _NODES[id(schema)] = (schema, node)  # holds ``schema``: its id stays its own
    return node


def _resolve(schema: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any]]:
    name = None
    target = ref_target(schema)
    while target is not None:
        name = target
        schema = all_schemas()[target]
        target = ref_target(schema)
    return name, schema


def _go_type(name: str | None, schema: Mapping[str, Any]) -> str:
    if name is not None:
        package, _, short = name.rpartition(".")
        return f"{package.rpartition('.')[2]}.{short}"
    kind = str(schema.get("type", ""))
    if kind == "array":
        items = schema.get("items")
        inner = _go_type(*_named(items)) if isinstance(items, Mapping) else "interface {}"
        return f"[]{inner}"
    if kind == "object":
        values = schema.get("additionalProperties")
        inner = _go_type(*_named(values)) if isinstance(values, Mapping) else "interface {}"
        return f"map[string]{inner}"
    return _GO_SCALARS.get((kind, str(schema.get("format", ""))), kind or "interface {}")


@functools.cache
def _root(schema_name: str) -> Mapping[str, Any]:
    # One reference node per kind, so that ``_named`` resolves it once.
    return {"$ref": f"#/components/schemas/{schema_name}"}


def _check_alternative(
    value: Any, name: str, struct: str, path: str, found: list[TypeMismatch]
) -> None:
    """An either-or type of a CRD schema (``items``: a schema or a list of them...): the
    shape sent picks the type its content is checked against."""
    alternative = ALTERNATIVES[name]
    if isinstance(value, dict):
        _check(value, _root(PROPS), struct, path, found)
    elif isinstance(value, list) and alternative.array_of is not None:
        for index, child in enumerate(value):
            child_path = f"{path}[{index}]"
            if alternative.array_of == "string":
                if not isinstance(child, str):
                    found.append(TypeMismatch(struct, child_path, "string", _json_kind(child)))
            else:
                _check(child, _root(alternative.array_of), struct, child_path, found)
    elif not (isinstance(value, bool) and alternative.boolean):
        found.append(TypeMismatch(struct, path, _go_type(name, {}), _json_kind(value)))


def _is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    # Schemas are mostly plain dicts: spare them the ABC's instance check (most of a walk's
    # per-node cost was those checks).
    return type(value) is dict or isinstance(value, Mapping)


def _walk(value: Any, schema_name: str, struct: str, path: str, found: list[TypeMismatch]) -> None:
    _check(value, _root(schema_name), struct, path, found)


def _check(
    value: Any, schema: Mapping[str, Any], struct: str, path: str, found: list[TypeMismatch]
) -> None:
    if value is None or found:
        return  # null decodes to the zero value; report only the first mismatch, as Go does
    node = _node(schema)
    name, schema = node.name, node.resolved
    if name in ALTERNATIVES:
        _check_alternative(value, name, struct, path, found)
        return
    if name in (QUANTITY, INT_OR_STRING):
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            found.append(TypeMismatch(struct, path, _go_type(name, schema), _json_kind(value)))
        elif name == INT_OR_STRING and not _fits(value, "int32"):
            # IntOrString decodes a number into its int32 ``IntVal``; Go's decoder names the
            # holding field and int32 (not the wrapper type) when it does not fit.
            found.append(TypeMismatch(struct, path, "int32", f"number {value}"))
        return
    kind = node.declared
    got = _json_kind(value)
    wanted = node.wanted
    if wanted is None:
        return  # free-form (no type): anything decodes
    integral = kind != "integer" or (isinstance(value, int) and not isinstance(value, bool))
    fits = kind != "integer" or _fits(value, node.format)
    if got != wanted or not integral or not fits:
        # Go names the literal only for a number that does not fit a numeric field.
        shown = f"number {value}" if got == wanted == "number" else got
        found.append(TypeMismatch(struct, path, _go_type(name, schema), shown))
        return
    if kind == "array":
        items = node.items
        if items is not None:
            for index, child in enumerate(value):
                _check(child, items, struct, f"{path}[{index}]", found)
    elif kind == "object":
        holder = node.holder if node.holder is not None else struct
        properties = node.properties
        additional = node.additional
        for key, child in value.items():
            child_path = f"{path}.{key}" if path else key
            if properties is not None and key in properties:
                _check(child, properties[key], holder, child_path, found)
            elif additional is not None:
                _check(child, additional, holder, child_path, found)
