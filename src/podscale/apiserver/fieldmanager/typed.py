"""Typed walks that build: field sets, merge, and removal by field set.

structured-merge-diff's ``typed`` package, over plain decoded JSON and the ``TypeInfo`` of
``schema``: ``to_field_set`` (the fields an object sets), ``merge`` (an applied configuration
over the live object), ``remove_fields`` and ``ensure_named_fields_are_members`` (the pieces
of pruning). ``compare`` (what a write added, changed and removed) is its own module; both
stand on ``walk`` (shapes, list item names, ``MergeError``). ``merge.apply`` and
``merge.update`` build ownership on them.

Leaves are scalars, atomic maps and lists, and maps or lists that are empty or null on both
sides (so ``{}`` and ``null`` stay distinct). A list item is identified by its ``x-kubernetes-
list-map-keys`` values (``k:``), a set item by its value (``v:``), anything else by position.
An object that does not fit its type raises ``MergeError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podscale.api.json_copy import copy_json
from podscale.apiserver.fieldmanager.fieldpath import Path, PathElement
from podscale.apiserver.fieldmanager.fieldset import FieldSet, FieldSetBuilder
from podscale.apiserver.fieldmanager.schema import TypeInfo
from podscale.apiserver.fieldmanager.walk import (
    ABSENT,
    field_type,
    index_items,
    is_empty,
    shape_of,
)

__all__ = [
    "ensure_named_fields_are_members",
    "merge",
    "remove_fields",
    "to_field_set",
]


# --- to_field_set ------------------------------------------------------------------------


def to_field_set(obj: Mapping[str, Any], t: TypeInfo) -> FieldSet:
    """Every field ``obj`` sets, as upstream's ``ToFieldSet``.

    List and set items are members themselves; a map entry is a member when its key is not a
    declared field (a label, an annotation) or its value is null or ``{}``; atomic maps and
    lists are members without their contents.
    """
    builder = FieldSetBuilder()
    _collect(obj, t, (), builder)
    return builder.freeze()


def _collect(value: Any, t: TypeInfo, path: Path, out: FieldSetBuilder) -> None:
    shape = shape_of(t, value, path)
    if shape == "leaf" or not t.granular:
        out.insert(path)
        return
    if value is None:
        return
    if shape == "map":
        for key, child in value.items():
            child_path = (*path, PathElement.field(key))
            _collect(child, field_type(t, key, path), child_path, out)
            if child is None or child == {} or t.field(key) is None:
                out.insert(child_path)
        return
    element = t.element()
    assert element is not None
    for pe, item in index_items(t, value, path, allow_duplicates=True):
        _collect(item, element, (*path, pe), out)
        out.insert((*path, pe))


# --- merge -------------------------------------------------------------------------------


def merge(live: Mapping[str, Any], applied: Mapping[str, Any], t: TypeInfo) -> dict[str, Any]:
    """The applied configuration merged over the live object (upstream's ``Merge``).

    Leaves take the applied value; granular maps keep live keys the configuration omits;
    granular lists keep live items it omits, in place, and put the items they share in the
    configuration's order. Neither input is changed.
    """
    merged = _merge(live, applied, t, ())
    return merged if isinstance(merged, dict) else {}


def _merge(lhs: Any, rhs: Any, t: TypeInfo, path: Path) -> Any:
    if rhs is ABSENT:
        return copy_json(lhs)
    right = shape_of(t, rhs, path)
    left = right if lhs is ABSENT else shape_of(t, lhs, path)
    leaf = left != right or right == "leaf" or not t.granular or (is_empty(lhs) and is_empty(rhs))
    if leaf:
        return copy_json(rhs)
    if right == "map":
        return _merge_map(lhs, rhs, t, path)
    return _merge_list(lhs, rhs, t, path)


def _merge_map(lhs: Any, rhs: Any, t: TypeInfo, path: Path) -> Any:
    lhs = lhs if isinstance(lhs, dict) else {}
    rhs = rhs if isinstance(rhs, dict) else {}
    out: dict[str, Any] = {}
    for key, value in lhs.items():
        child_type = field_type(t, key, path)
        out[key] = _merge(value, rhs.get(key, ABSENT), child_type, (*path, PathElement.field(key)))
    for key, value in rhs.items():
        if key not in lhs:
            child_type = field_type(t, key, path)
            out[key] = _merge(ABSENT, value, child_type, (*path, PathElement.field(key)))
    return out


def _merge_list(lhs: Any, rhs: Any, t: TypeInfo, path: Path) -> list[Any]:
    """Merge list items by identity.

    The items both sides hold come out in the applied order; an item only the live list has
    stays just before the live item that followed it; an item only the applied list has
    comes just before the applied item that followed it (after live-only items competing for
    the same place). A live list may hold duplicates (kept unless the configuration names
    that item, which then replaces them all); an applied one may not.
    """
    element = t.element()
    assert element is not None
    live = index_items(t, lhs, path, allow_duplicates=True)
    applied = index_items(t, rhs, path, allow_duplicates=False)
    applied_items = dict(applied)
    live_count: dict[PathElement, int] = {}
    for pe, _ in live:
        live_count[pe] = live_count.get(pe, 0) + 1
    live_items = {pe: item for pe, item in live if live_count[pe] == 1}

    def merged_item(pe: PathElement) -> Any:
        return _merge(live_items.get(pe, ABSENT), applied_items[pe], element, (*path, pe))

    shared = [pe for pe, _ in applied if pe in live_count]
    next_shared = 0
    done: set[PathElement] = set()
    out: list[Any] = []
    li = ri = 0
    while li < len(live) or ri < len(applied):
        if li < len(live):
            pe, item = live[li]
            if pe not in applied_items:
                out.append(copy_json(item))
                li += 1
                continue
            if pe in done or (next_shared < len(shared) and shared[next_shared] != pe):
                li += 1  # a shared item whose turn, in applied order, is elsewhere
                continue
            if ri < len(applied) and applied[ri][0] == pe:
                out.append(merged_item(pe))
                done.add(pe)
                li += 1
                ri += 1
                next_shared += 1
                continue
        if ri < len(applied):
            pe = applied[ri][0]
            if pe not in done:
                out.append(merged_item(pe))
                done.add(pe)
                if next_shared < len(shared) and shared[next_shared] == pe:
                    next_shared += 1
            ri += 1
    return out


# --- removal -----------------------------------------------------------------------------


def remove_fields(obj: Mapping[str, Any], fields: FieldSet, t: TypeInfo) -> dict[str, Any]:
    """``obj`` without the members of ``fields`` (upstream's ``RemoveItems``).

    Removing a member removes everything below it; atomic values are only removed whole. A
    granular map or list emptied by the removal is dropped from its parent, as a typed
    (built-in) object drops an empty optional map or list when it is stored.
    """
    result = _remove(obj, fields, t, ())
    return result if isinstance(result, dict) else {}


def _remove(value: Any, fields: FieldSet, t: TypeInfo, path: Path) -> Any:
    shape = shape_of(t, value, path)
    if shape == "leaf" or not t.granular or is_empty(value):
        return value
    if shape == "map":
        out: dict[str, Any] = {}
        for key, child in value.items():
            pe = PathElement.field(key)
            if pe in fields.members:
                continue
            below = fields.with_prefix(pe)
            if below.empty():
                out[key] = child
                continue
            kept = _remove(child, below, field_type(t, key, path), (*path, pe))
            if kept is not ABSENT:
                out[key] = kept
        return out if out or not path else ABSENT
    element = t.element()
    assert element is not None
    items: list[Any] = []
    for pe, item in index_items(t, value, path, allow_duplicates=True):
        if pe in fields.members:
            continue
        below = fields.with_prefix(pe)
        kept = item if below.empty() else _remove(item, below, element, (*path, pe))
        items.append({} if kept is ABSENT else kept)
    return items if items else ABSENT


def ensure_named_fields_are_members(fields: FieldSet, t: TypeInfo) -> FieldSet:
    """``fields`` with every declared struct field that has members below it made a member
    too (upstream's ``EnsureNamedFieldsAreMembers``), so pruning can drop such a field whole."""
    members = set(fields.members)
    children: dict[PathElement, FieldSet] = {}
    for pe, child in fields.children.items():
        child_type: TypeInfo | None
        if pe.kind == "field":
            declared = t.field(pe.value)
            if declared is not None:
                members.add(pe)
            child_type = declared if declared is not None else t.element()
        else:
            child_type = t.element()
        children[pe] = (
            child if child_type is None else ensure_named_fields_are_members(child, child_type)
        )
    return FieldSet(members, children)
