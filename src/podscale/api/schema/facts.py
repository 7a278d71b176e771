"""What a schema subtree holds, computed once per node so the walkers can skip subtrees.

``defaulting``, ``embedded``, ``listtype`` and ``podscale.api.cel.validation`` walk a custom
resource along its schema's ``properties``, ``additionalProperties`` and ``items`` (the CEL
walker also into ``allOf`` entries), and most of a typical resource (metadata, status,
free-form maps) has no ``default``, no embedded resource, no set or map list and no
``x-kubernetes-validations`` rule below it. ``facts(schema)`` tells them so in one lookup, and
they skip the value there: what they return does not change, only the time they take (a custom
resource is defaulted on every read and validated on every write).

Schema nodes are never modified once a CRD is stored (``nodes``), so a node's facts stay true.
They are remembered by the node's ``id``; each entry keeps its node alive, so an id is never
reused while its entry exists, and the memo is emptied once it holds ``_MAX_NODES`` entries
(old CRD versions' nodes go with it). Thread-safe enough under the GIL: a racing duplicate
computes the same facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from podscale.api.schema.nodes import (
    Schema,
    additional_schema,
    as_schema,
    is_embedded,
    items_schema,
    list_type,
    properties,
    sub_schemas,
)

__all__ = ["SchemaFacts", "facts"]

_MAX_NODES: Final = 100_000
_RULES: Final = "x-kubernetes-validations"


@dataclass(frozen=True, slots=True)
class SchemaFacts:
    """Whether the node or any node below it (through properties, additionalProperties
    and items) has a ``default``, is an embedded resource, or is a set or map list; and
    whether it or a node below it, ``allOf`` entries included, has CEL rules."""

    defaults: bool
    embedded: bool
    list_types: bool
    rules: bool


_memo: dict[int, tuple[Schema, SchemaFacts]] = {}


def _children(schema: Schema) -> list[Schema]:
    children = [s for s in (as_schema(v) for v in properties(schema).values()) if s is not None]
    for child in (additional_schema(schema), items_schema(schema)):
        if child is not None:
            children.append(child)
    return children


def facts(schema: Schema) -> SchemaFacts:
    """The facts of ``schema``'s subtree (see the class)."""
    found = _memo.get(id(schema))
    if found is not None and found[0] is schema:
        return found[1]
    below = [facts(child) for child in _children(schema)]
    all_of = [facts(entry) for entry in sub_schemas(schema, "allOf")]
    result = SchemaFacts(
        defaults="default" in schema or any(f.defaults for f in below),
        embedded=is_embedded(schema) or any(f.embedded for f in below),
        list_types=list_type(schema) in ("set", "map") or any(f.list_types for f in below),
        rules=bool(schema.get(_RULES)) or any(f.rules for f in [*below, *all_of]),
    )
    if len(_memo) >= _MAX_NODES:
        _memo.clear()
    _memo[id(schema)] = (schema, result)
    return result
