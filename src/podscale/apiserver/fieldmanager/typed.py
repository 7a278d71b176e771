"""Typed walks over objects: field sets, merge, compare and removal by field set.

structured-merge-diff's ``typed`` package, over plain decoded JSON and the ``TypeInfo`` of
``schema``: ``to_field_set`` (the fields an object sets), ``merge`` (an applied configuration
over the live object), ``compare`` (what a write added, changed and removed), ``remove_fields``
and ``ensure_named_fields_are_members`` (the pieces of pruning). ``merge.apply`` and
``merge.update`` build ownership on them.

Leaves are scalars, atomic maps and lists, and maps or lists that are empty or null on both
sides (so ``{}`` and ``null`` stay distinct). A list item is identified by its ``x-kubernetes-
list-map-keys`` values (``k:``), a set item by its value (``v:``), anything else by position.
An object that does not fit its type raises ``MergeError``.

``compare`` runs on every write the API server records (``merge.update``): it settles the
entries a write left alone (equal scalars, identical maps, identical lists already walked)
without walking them; ``shortcuts=False`` is the plain walk they are tested against.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from podscale.api.json_copy import copy_json
from podscale.apiserver.fieldmanager.fieldpath import (
    FieldSet,
    FieldSetBuilder,
    Path,
    PathElement,
    format_path,
)
from podscale.apiserver.fieldmanager.schema import TypeInfo

__all__ = [
    "Comparison",
    "MergeError",
    "compare",
    "ensure_named_fields_are_members",
    "merge",
    "remove_fields",
    "same_value",
    "to_field_set",
]


class _Absent:
    """A missing value, distinct from JSON null."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()


class MergeError(ValueError):
    """An object does not fit its merge type (upstream's typed validation errors)."""

    def __init__(self, path: Path, message: str) -> None:
        self.path = path
        self.detail = message
        super().__init__(f"{format_path(path)}: {message}" if path else message)


def same_value(left: Any, right: Any) -> bool:
    """Upstream's value equality: numbers by value (1 == 1.0), booleans apart from numbers."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_value(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_value, left, right))
    return type(left) is type(right) and bool(left == right)


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "list"
    return "null" if value is None else type(value).__name__


def _shape(t: TypeInfo, value: Any, path: Path) -> str:
    """How a value is walked under type ``t``: ``map``, ``list`` or ``leaf``."""
    if value is ABSENT or value is None:
        return {"map": "map", "list": "list"}.get(t.kind, "leaf")
    if t.kind == "deduced":
        return "map" if isinstance(value, dict) else "leaf"
    if t.kind == "untyped":
        return "leaf"
    if t.kind == "map" and not isinstance(value, dict):
        raise MergeError(path, f"expected map, got {_type_name(value)}")
    if t.kind == "list" and not isinstance(value, list):
        raise MergeError(path, f"expected list, got {_type_name(value)}")
    if t.kind == "scalar" and isinstance(value, dict | list):
        raise MergeError(path, f"expected scalar, got {_type_name(value)}")
    return "leaf" if t.kind == "scalar" else t.kind


def _child_type(t: TypeInfo, name: str, path: Path) -> TypeInfo:
    child = t.child(name)
    if child is None:
        raise MergeError((*path, PathElement.field(name)), "field not declared in schema")
    return child


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, dict | list)


def item_element(t: TypeInfo, item: Any, index: int, path: Path) -> PathElement:
    """The path element naming a list item (upstream's ``listItemToPathElement``)."""
    if t.list_type == "map":
        if not isinstance(item, dict):
            raise MergeError(path, "associative list with keys has an element that is not a map")
        element = t.element()
        fields: dict[str, Any] = {}
        for key in t.keys:
            if key in item:
                value = item[key]
            else:
                key_type = element.field(key) if element is not None else None
                if key_type is None or not key_type.has_default:
                    raise MergeError(
                        path,
                        f'associative list with keys has an element that omits key field "{key}"'
                        " (and doesn't have default value)",
                    )
                value = key_type.default
            if not _is_scalar(value):
                raise MergeError(path, f'key field "{key}" of a list item must be a scalar')
            fields[key] = value
        return PathElement.key(fields)
    if t.list_type == "set":
        if not _is_scalar(item):
            raise MergeError(path, "associative list without keys has an element that's a map type")
        return PathElement.of_value(item)
    return PathElement.index(index)


def _index_items(
    t: TypeInfo, items: Any, path: Path, *, allow_duplicates: bool
) -> list[tuple[PathElement, Any]]:
    if not isinstance(items, list):
        return []
    out = [(item_element(t, item, i, path), item) for i, item in enumerate(items)]
    if not allow_duplicates:
        seen: set[PathElement] = set()
        for pe, _ in out:
            if pe in seen:
                raise MergeError(path, f"duplicate entries for key {pe}")
            seen.add(pe)
    return out


def _empty(value: Any) -> bool:
    return value is ABSENT or value is None or (isinstance(value, dict | list) and not value)


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
    shape = _shape(t, value, path)
    if shape == "leaf" or not t.granular:
        out.insert(path)
        return
    if value is None:
        return
    if shape == "map":
        for key, child in value.items():
            child_path = (*path, PathElement.field(key))
            _collect(child, _child_type(t, key, path), child_path, out)
            if child is None or child == {} or t.field(key) is None:
                out.insert(child_path)
        return
    element = t.element()
    assert element is not None
    for pe, item in _index_items(t, value, path, allow_duplicates=True):
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
    right = _shape(t, rhs, path)
    left = right if lhs is ABSENT else _shape(t, lhs, path)
    leaf = left != right or right == "leaf" or not t.granular or (_empty(lhs) and _empty(rhs))
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
        child_type = _child_type(t, key, path)
        out[key] = _merge(value, rhs.get(key, ABSENT), child_type, (*path, PathElement.field(key)))
    for key, value in rhs.items():
        if key not in lhs:
            child_type = _child_type(t, key, path)
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
    live = _index_items(t, lhs, path, allow_duplicates=True)
    applied = _index_items(t, rhs, path, allow_duplicates=False)
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


# --- compare -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """What changed between two versions of an object (upstream's ``typed.Comparison``)."""

    added: FieldSet
    modified: FieldSet
    removed: FieldSet


def compare(
    old: Mapping[str, Any], new: Mapping[str, Any], t: TypeInfo, *, shortcuts: bool = True
) -> Comparison:
    """The fields ``new`` adds, modifies and removes relative to ``old``.

    A granular map entry or list item that appears (disappears) is added (removed) itself,
    with everything below it; a leaf whose value differs is modified. ``shortcuts=False``
    walks every map entry present on both sides, the reference the shortcuts are tested
    against (same result, same errors).
    """
    sets = (FieldSetBuilder(), FieldSetBuilder(), FieldSetBuilder())
    _compare(old, new, t, (), sets, shortcuts)
    return Comparison(sets[0].freeze(), sets[1].freeze(), sets[2].freeze())


_Builders = tuple[FieldSetBuilder, FieldSetBuilder, FieldSetBuilder]


def _compare(lhs: Any, rhs: Any, t: TypeInfo, path: Path, out: _Builders, fast: bool) -> None:
    if type(lhs) is dict and type(rhs) is dict and _identical(lhs, rhs):
        return  # nothing below changed: most of an object, on most writes
    left = _shape(t, lhs, path)
    right = _shape(t, rhs, path)
    shape = right if rhs is not ABSENT else left
    if (
        (lhs is not ABSENT and rhs is not ABSENT and left != right)
        or shape == "leaf"
        or not t.granular
        or (_empty(lhs) and _empty(rhs))
    ):
        if lhs is ABSENT:
            out[0].insert(path)
        elif rhs is ABSENT:
            out[2].insert(path)
        elif lhs != rhs or not same_value(lhs, rhs):  # Python's inequality implies upstream's
            out[1].insert(path)
        return
    if shape == "map":
        lmap = lhs if isinstance(lhs, dict) else {}
        rmap = rhs if isinstance(rhs, dict) else {}
        for key in list(lmap) + [k for k in rmap if k not in lmap]:
            lval, rval = lmap.get(key, ABSENT), rmap.get(key, ABSENT)
            child_type = _child_type(t, key, path)
            if fast and _unchanged(lval, rval, child_type, path, key, out):
                continue
            child = (*path, PathElement.field(key))
            _compare(lval, rval, child_type, child, out, fast)
            _mark_item(lval, rval, child, out)
        return
    element = t.element()
    assert element is not None
    litems = dict(_index_items(t, lhs, path, allow_duplicates=True))
    ritems = dict(_index_items(t, rhs, path, allow_duplicates=True))
    for pe in list(litems) + [pe for pe in ritems if pe not in litems]:
        lval, rval = litems.get(pe, ABSENT), ritems.get(pe, ABSENT)
        _compare(lval, rval, element, (*path, pe), out, fast)
        _mark_item(lval, rval, (*path, pe), out)


_PLAIN_SCALARS: Final = (str, int, float, bool)
# Lists, with their types, that compared identical without error: an identical list is
# still walked once, because naming its items may fail (an item of a list map without its
# key), and that failure is the write's; after that the bytes say it is quiet.
_QUIET_LISTS: dict[tuple[TypeInfo, bytes], None] = {}
_QUIET_LIMIT: Final = 4096


def _unchanged(lhs: Any, rhs: Any, t: TypeInfo, path: Path, key: str, out: _Builders) -> bool:
    """Whether the map entry ``key`` (under ``path``), present on both sides, is known to
    compare without a difference or an error, without the general walk: the same plain
    scalar where the type takes one, identical maps, identical lists already walked once.
    Most entries of a written object are such."""
    kind = type(lhs)
    if kind is not type(rhs):
        return False
    if kind is dict:
        return _identical(lhs, rhs)
    if kind is list:
        if lhs != rhs:
            return False
        encoded = orjson.dumps(lhs)
        if encoded != orjson.dumps(rhs):
            return False
        memo = (t, encoded)
        if memo not in _QUIET_LISTS:
            _compare(lhs, rhs, t, (*path, PathElement.field(key)), out, True)  # finds nothing
            if len(_QUIET_LISTS) > _QUIET_LIMIT:
                _QUIET_LISTS.clear()
            _QUIET_LISTS[memo] = None
        return True
    return kind in _PLAIN_SCALARS and lhs == rhs and t.kind != "map" and t.kind != "list"


def _identical(lhs: dict[str, Any], rhs: dict[str, Any]) -> bool:
    """Equal and encoded alike: Python's ``==`` alone takes ``True`` for ``1``, which
    ``same_value`` tells apart; orjson's bytes do too (a false "different" only costs the
    walk)."""
    return lhs == rhs and orjson.dumps(lhs) == orjson.dumps(rhs)


def _mark_item(lhs: Any, rhs: Any, path: Path, out: _Builders) -> None:
    if lhs is ABSENT:
        out[0].insert(path)
    elif rhs is ABSENT:
        out[2].insert(path)


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
    shape = _shape(t, value, path)
    if shape == "leaf" or not t.granular or _empty(value):
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
            kept = _remove(child, below, _child_type(t, key, path), (*path, pe))
            if kept is not ABSENT:
                out[key] = kept
        return out if out or not path else ABSENT
    element = t.element()
    assert element is not None
    items: list[Any] = []
    for pe, item in _index_items(t, value, path, allow_duplicates=True):
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
