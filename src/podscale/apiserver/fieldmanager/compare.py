"""Typed compare: what a write added, changed and removed.

structured-merge-diff's ``typed.Compare`` over plain decoded JSON and the ``TypeInfo`` of
``schema``, on the ground of ``walk`` (shapes, list item names, ``same_value``), filling
``fieldset.FieldSetBuilder`` tries; its siblings ``typed.to_field_set`` and ``typed.merge``
build sets and objects. ``merge.update`` calls it on every write the API server records.

It settles the entries a write left alone (equal scalars, identical maps, identical lists
already walked) without walking them, a changed scalar or atomic entry as the leaf it is
(``_is_leaf_pair``), and replays what a pair of lists met before compared to
(``_compare_lists``); ``shortcuts=False`` is the plain walk they are tested against.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

import orjson

from podscale.apiserver.fieldmanager.fieldpath import Path, PathElement
from podscale.apiserver.fieldmanager.fieldset import FieldSet, FieldSetBuilder
from podscale.apiserver.fieldmanager.schema import TypeInfo
from podscale.apiserver.fieldmanager.walk import (
    ABSENT,
    field_type,
    index_items,
    is_empty,
    same_value,
    shape_of,
)

__all__ = ["Comparison", "compare"]


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


class _Inserts(Protocol):
    """Where a walk puts what it finds: a ``FieldSetBuilder`` or a ``_Recorder`` over one."""

    def insert(self, path: Path) -> None: ...


_Builders = tuple[_Inserts, _Inserts, _Inserts]


def _compare(lhs: Any, rhs: Any, t: TypeInfo, path: Path, out: _Builders, fast: bool) -> None:
    if type(lhs) is dict and type(rhs) is dict and _identical(lhs, rhs):
        return  # nothing below changed: most of an object, on most writes
    left = shape_of(t, lhs, path)
    right = shape_of(t, rhs, path)
    shape = right if rhs is not ABSENT else left
    if (
        (lhs is not ABSENT and rhs is not ABSENT and left != right)
        or shape == "leaf"
        or not t.granular
        or (is_empty(lhs) and is_empty(rhs))
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
            child_type = field_type(t, key, path)
            if fast:
                if _unchanged(lval, rval, child_type, path, key, out):
                    continue
                if _is_leaf_pair(lval, rval, child_type):
                    if lval != rval or not same_value(lval, rval):
                        out[1].insert((*path, PathElement.field(key)))
                    continue
            child = (*path, PathElement.field(key))
            _compare(lval, rval, child_type, child, out, fast)
            _mark_item(lval, rval, child, out)
        return
    if fast and type(lhs) is list and type(rhs) is list:
        _compare_lists(lhs, rhs, t, path, out)
        return
    _compare_items(lhs, rhs, t, path, out, fast)


def _compare_items(lhs: Any, rhs: Any, t: TypeInfo, path: Path, out: _Builders, fast: bool) -> None:
    element = t.element()
    assert element is not None
    litems = dict(index_items(t, lhs, path, allow_duplicates=True))
    ritems = dict(index_items(t, rhs, path, allow_duplicates=True))
    for pe in list(litems) + [pe for pe in ritems if pe not in litems]:
        lval, rval = litems.get(pe, ABSENT), ritems.get(pe, ABSENT)
        _compare(lval, rval, element, (*path, pe), out, fast)
        _mark_item(lval, rval, (*path, pe), out)


# What two lists of a type compared to, by their bytes: the paths added, modified and
# removed below the list, relative to it. A list's comparison is a function of its type
# and the two JSON values alone (the path only prefixes what it finds, and its errors,
# which are never kept: a pair that failed is walked again). A controller's status flips
# between a few states (a condition's reason and message back and forth), each pair met
# again and again; naming every item of both lists was most of such a write's compare.
_LIST_PAIRS: dict[tuple[TypeInfo, bytes, bytes], tuple[tuple[Path, ...], ...]] = {}
_LIST_PAIRS_LIMIT: Final = 2048


class _Recorder:
    """A builder that also notes what is inserted below ``prefix`` (``_compare_lists``)."""

    __slots__ = ("_builder", "_cut", "paths")

    def __init__(self, builder: _Inserts, prefix: Path) -> None:
        self._builder = builder
        self._cut = len(prefix)
        self.paths: list[Path] = []

    def insert(self, path: Path) -> None:
        self._builder.insert(path)
        self.paths.append(path[self._cut :])


def _compare_lists(lhs: list[Any], rhs: list[Any], t: TypeInfo, path: Path, out: _Builders) -> None:
    try:
        key = (t, orjson.dumps(lhs), orjson.dumps(rhs))
    except TypeError:  # beyond JSON: nothing to key it by
        _compare_items(lhs, rhs, t, path, out, True)
        return
    known = _LIST_PAIRS.get(key)
    if known is not None:
        for builder, relative in zip(out, known, strict=True):
            for tail in relative:
                builder.insert((*path, *tail))
        return
    recorders = (
        _Recorder(out[0], path),
        _Recorder(out[1], path),
        _Recorder(out[2], path),
    )
    _compare_items(lhs, rhs, t, path, recorders, True)
    if len(_LIST_PAIRS) > _LIST_PAIRS_LIMIT:
        _LIST_PAIRS.clear()
    _LIST_PAIRS[key] = tuple(tuple(r.paths) for r in recorders)


_PLAIN_SCALARS: Final = (str, int, float, bool)
_PLAIN_SCALAR_TYPES: Final = frozenset(_PLAIN_SCALARS)
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


_SCALAR_TYPES: Final = frozenset({"scalar", "deduced", "untyped"})


def _is_leaf_pair(lhs: Any, rhs: Any, t: TypeInfo) -> bool:
    """Whether ``_compare`` of a map entry present on both sides would go straight to its
    leaf case (no error, no walk below it): two plain scalars where the type takes a scalar
    (or deduces or does not type it), or two lists (maps) where the type is an atomic list
    (map). Then the entry is modified exactly when its values differ (``same_value``), and
    nothing else is recorded for it. A changed leaf (a metric's value, an atomic list of
    metrics) is most of what a status write changes."""
    left, right = type(lhs), type(rhs)
    kind = t.kind
    if left in _PLAIN_SCALAR_TYPES and right in _PLAIN_SCALAR_TYPES:
        return kind in _SCALAR_TYPES
    if left is not right or t.granular:
        return False
    return (kind == "list" and left is list) or (kind == "map" and left is dict)


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
