"""The schema a merge of one kind's objects follows, resolved into one self-contained tree.

Server-side apply decides ownership and merging from the object's type: atomic or granular
structs and maps (``x-kubernetes-map-type``), list types (``x-kubernetes-list-type`` with
``x-kubernetes-list-map-keys``). ``schema_for_kind`` finds that type and inlines every named
reference, so the merge code (``fieldmanager.schema``'s ``type_for``) reads a plain tree:

- built-in kinds: podscale's OpenAPI table (``openapi.schemas``), the same schemas
  ``/openapi/v3`` publishes;
- custom resources: the CRD version's structural schema as ``customresources.openapi_schema``
  publishes it (root ``apiVersion``/``kind``/``metadata`` added, ObjectMeta resolved from the
  built-in table), memoized on the CRD snapshot so it lives exactly as long as the CRD;
- subresources: what the subresource reads and writes (``KindInfo.subresource``): the parent
  kind for ``/status``, ``autoscaling/v1 Scale`` for ``/scale``.

A named type that recurs inside itself (a CRD's JSONSchemaProps) is cut at the recurrence to
an untyped schema: below it, merges deduce the shape from the values (maps granular, lists
atomic), as structured-merge-diff does for values without a schema. The trees are shared
and cached: callers must not mutate them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from podscale.api.kinds import KindInfo
from podscale.apiserver.customresources.definitions import CustomKind
from podscale.apiserver.customresources.openapi_schema import kind_schema
from podscale.apiserver.openapi.dsl import ref_target
from podscale.apiserver.openapi.schemas import all_schemas
from podscale.apiserver.openapi.schemas import schema_for_kind as schema_name_for_kind
from podscale.apiserver.state import ServerState

__all__ = ["resolve_schema", "schema_for_kind"]

Schema = Mapping[str, Any]

# Keys whose values are schemas (or lists / maps of schemas) to resolve further.
_SCHEMA_VALUED = ("items", "additionalProperties", "not")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
_SCHEMA_MAPS = ("properties", "patternProperties")


def schema_for_kind(state: ServerState, info: KindInfo, subresource: str = "") -> Schema | None:
    """The resolved schema of the object ``info``'s endpoint (or its ``subresource``) takes.

    None when podscale has no schema for it (an unknown subresource, a kind outside the
    table): the caller then merges by deduced types.
    """
    if subresource:
        sub = info.subresource(subresource)
        if sub is None:
            return None
        if (sub.group, sub.version, sub.kind) != (info.group, info.version, info.kind):
            api_version = f"{sub.group}/{sub.version}" if sub.group else sub.version
            return _builtin(api_version, sub.kind)
    if isinstance(info, CustomKind):
        return _custom(state, info)
    return _builtin(info.api_version, info.kind)


@cache
def _builtin(api_version: str, kind: str) -> Schema | None:
    name = schema_name_for_kind(api_version, kind)
    if name is None:
        return None
    return _Resolver(all_schemas()).named(name)


def _custom(state: ServerState, info: CustomKind) -> Schema:
    snapshot = state.custom_kinds.current(state.store)

    def compute() -> Schema:
        published = kind_schema(info.schema, (info.group, info.version, info.kind), v2=False)
        return resolve_schema(published)

    # Keyed by the CRD and version; the snapshot's memo is dropped when any CRD changes.
    key = ("fieldmanager.schema", info.crd_name, info.version)
    found: Schema = snapshot.memo(key, compute)
    return found


def resolve_schema(schema: Schema, table: Mapping[str, Schema] | None = None) -> Schema:
    """``schema`` with every ``$ref`` (either form) into ``table`` (default: podscale's
    OpenAPI table) replaced by the referenced schema, resolved likewise."""
    return _Resolver(all_schemas() if table is None else table).fragment(schema, ())


class _Resolver:
    """Inlines named schemas. A name's tree is built once and shared wherever it is used,
    unless it was cut at a recursion into one of its ancestors: then it depends on where it
    appears and is rebuilt there."""

    def __init__(self, table: Mapping[str, Schema]) -> None:
        self._table = table
        self._done: dict[str, Schema] = {}

    def named(self, name: str) -> Schema:
        return self._named(name, ())[0]

    def fragment(self, schema: Schema, within: tuple[str, ...]) -> Schema:
        return self._fragment(schema, within)[0]

    def _named(self, name: str, within: tuple[str, ...]) -> tuple[Schema, frozenset[str]]:
        if name in within:
            # Recursion: stop with an untyped schema (merges deduce the shape below here).
            return {}, frozenset({name})
        done = self._done.get(name)
        if done is not None:
            return done, frozenset()
        target = self._table.get(name)
        if target is None:
            return {}, frozenset()
        resolved, cuts = self._fragment(target, (*within, name))
        # Cuts at this name itself do not depend on the context; cuts at an ancestor do.
        outer = cuts - {name}
        if not outer:
            self._done[name] = resolved
        return resolved, outer

    def _fragment(self, schema: Schema, within: tuple[str, ...]) -> tuple[Schema, frozenset[str]]:
        target = ref_target(schema)
        if target is not None:
            inner, inner_cuts = self._named(target, within)
            siblings = {k: v for k, v in schema.items() if k not in ("$ref", "allOf")}
            # Keys beside the reference (a description, a property-level marker) win.
            return ({**inner, **siblings} if siblings else inner), inner_cuts
        out: dict[str, Any] = {}
        cuts: frozenset[str] = frozenset()
        for key, value in schema.items():
            if key in _SCHEMA_VALUED and isinstance(value, Mapping):
                out[key], found = self._fragment(value, within)
                cuts |= found
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                out[key] = []
                for child in value:
                    if isinstance(child, Mapping):
                        child, found = self._fragment(child, within)
                        cuts |= found
                    out[key].append(child)
            elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
                out[key] = {}
                for name, child in value.items():
                    if isinstance(child, Mapping):
                        child, found = self._fragment(child, within)
                        cuts |= found
                    out[key][name] = child
            else:
                out[key] = value
        return out, cuts
