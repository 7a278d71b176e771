"""The field manager's shortcuts record exactly what the general walk records.

``compare.compare`` skips map entries it can tell unchanged (equal scalars, identical maps,
identical lists it has walked once); ``FieldSet.union``/``difference`` give back an operand
when the result holds the same paths; ``field_owners`` memoizes decoded and encoded
entries. Random objects of a typed schema (with values of the wrong shape now and then) and
random write sequences go through both: the entries, their ``fieldsV1`` bytes, order and
times, and any error, must be the same.
"""

from __future__ import annotations

import copy
import importlib
from functools import partial
from typing import Any
from unittest import mock

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.apiserver.fieldmanager import type_for
from podscale.apiserver.fieldmanager.compare import compare
from podscale.apiserver.fieldmanager.fieldpath import Path, PathElement
from podscale.apiserver.fieldmanager.fieldset import FieldSet
from podscale.apiserver.fieldmanager.managed import (
    ManagedEntry,
    decode_managed_fields,
    encode_managed_fields,
)
from podscale.apiserver.operations.field_owners import decode_entries, store_entries

# ``fieldmanager`` re-exports a function named ``merge``: the module is fetched by name.
merge_module = importlib.import_module("podscale.apiserver.fieldmanager.merge")

JSON = dict[str, Any]
_STR: JSON = {"type": "string"}
_INT: JSON = {"type": "integer"}
_STR_MAP: JSON = {"type": "object", "additionalProperties": _STR}
_CONDITION: JSON = {
    "type": "object",
    "properties": {"type": _STR, "status": _STR, "reason": _STR, "count": _INT},
}
SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "apiVersion": _STR,
        "kind": _STR,
        "metadata": {
            "type": "object",
            "properties": {
                "name": _STR,
                "uid": _STR,
                "labels": _STR_MAP,
                "finalizers": {"type": "array", "items": _STR, "x-kubernetes-list-type": "set"},
            },
        },
        "spec": {
            "type": "object",
            "properties": {
                "replicas": _INT,
                "selector": {**_STR_MAP, "x-kubernetes-map-type": "atomic"},
                "containers": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": _STR,
                            "image": _STR,
                            "args": {"type": "array", "items": _STR},
                            "env": {
                                "type": "array",
                                "items": _STR,
                                "x-kubernetes-list-type": "set",
                            },
                        },
                    },
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                },
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "replicas": _INT,
                "metrics": {"type": "array", "items": {"type": "object"}},
                "conditions": {
                    "type": "array",
                    "items": _CONDITION,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["type"],
                },
            },
        },
    },
}
TYPE = type_for(SCHEMA)

# Few distinct values, so that two draws often share subtrees; ``1``, ``1.0`` and ``True``
# are equal to Python and different to the field manager.
_odd = st.sampled_from([1, 1.0, True, None, {}, [], "x", {"a": 1}, [1]])
_text = st.sampled_from(["a", "b", "web"])
_small_int = st.sampled_from([0, 1, 2, 1.0, True])


def _maybe_odd(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(values, values, values, values, _odd)


_condition = st.fixed_dictionaries(
    {"type": st.sampled_from(["Ready", "Able"])},
    optional={"status": _text, "reason": _maybe_odd(_text), "count": _small_int},
)
_container = st.fixed_dictionaries(
    {"name": _maybe_odd(st.sampled_from(["app", "side"]))},
    optional={
        "image": _text,
        "args": st.lists(_text, max_size=2),
        "env": st.lists(_maybe_odd(_text), max_size=2),
    },
)
_object = st.fixed_dictionaries(
    {"apiVersion": st.just("v1"), "kind": st.just("Thing")},
    optional={
        "metadata": st.fixed_dictionaries(
            {"name": st.just("t")},
            optional={
                "labels": st.dictionaries(_text, _maybe_odd(_text), max_size=2),
                "finalizers": st.lists(_text, max_size=2),
            },
        ),
        "spec": _maybe_odd(
            st.fixed_dictionaries(
                {},
                optional={
                    "replicas": _maybe_odd(_small_int),
                    "selector": st.dictionaries(_text, _text, max_size=2),
                    "containers": _maybe_odd(st.lists(_container, max_size=3)),
                },
            )
        ),
        "status": st.fixed_dictionaries(
            {},
            optional={
                "replicas": _small_int,
                "metrics": st.lists(st.fixed_dictionaries({"v": _small_int}), max_size=2),
                "conditions": _maybe_odd(st.lists(_condition, max_size=3)),
                "extra": _odd,
            },
        ),
    },
)


@st.composite
def _next_version(draw: st.DrawFn, old: JSON) -> JSON:
    """A write of ``old``: each top-level entry and each entry below it is kept (a copy,
    as a status strategy copies the stored spec), replaced by a fresh draw, or dropped."""
    fresh = draw(_object)

    def mix(left: Any, right: Any, depth: int) -> Any:
        if not isinstance(left, dict) or not isinstance(right, dict) or depth > 2:
            choice = draw(st.sampled_from(["left", "left", "right"]))
            return copy.deepcopy(left if choice == "left" else right)
        out: JSON = {}
        for key in list(left) + [k for k in right if k not in left]:
            choice = draw(st.sampled_from(["keep", "keep", "mix", "fresh", "drop"]))
            if choice == "drop" or (choice == "fresh" and key not in right):
                continue
            if key not in left or choice == "fresh":
                out[key] = copy.deepcopy(right[key])
            elif choice == "keep" or key not in right:
                out[key] = copy.deepcopy(left[key])
            else:
                out[key] = mix(left[key], right[key], depth + 1)
        return out

    mixed = mix(old, fresh, 0)
    mixed.setdefault("metadata", {})["uid"] = "u-1"
    return mixed


@st.composite
def _writes(draw: st.DrawFn) -> list[tuple[JSON, str, str, str]]:
    """A created object and the writes after it: (object, manager, subresource, time)."""
    version = draw(_object)
    out = []
    for step in range(draw(st.integers(1, 6))):
        manager = draw(st.sampled_from(["kcm", "kubelet", "podscale"]))
        subresource = draw(st.sampled_from(["", "status"]))
        out.append((version, manager, subresource, f"2026-01-01T00:00:{step * 7 % 60:02d}Z"))
        version = draw(_next_version(version))
    return out


def _run(writes: list[tuple[JSON, str, str, str]], *, fast: bool) -> list[Any]:
    """Each write's outcome: the stored managedFields JSON, or the error's text."""
    general = partial(compare, shortcuts=False)
    outcomes: list[Any] = []
    raw: Any = None
    old: JSON = {}
    with mock.patch.object(merge_module, "compare", compare if fast else general):
        for obj, manager, subresource, now in writes:
            new = copy.deepcopy(obj)
            entries = decode_entries(raw) if fast else _decode_plain(raw)
            try:
                result = merge_module.update(
                    old, new, manager, entries, TYPE,
                    api_version="v1", now=now, subresource=subresource,
                )  # fmt: skip
            except ValueError as err:
                outcomes.append(("error", str(err)))
            else:
                if fast:
                    meta: JSON = {}
                    store_entries(meta, result)
                    raw = meta.get("managedFields")
                else:
                    raw = encode_managed_fields(result) or None
                outcomes.append(orjson.dumps(raw))
            old = {**new, "metadata": {**(new.get("metadata") or {}), "managedFields": raw}}
    return outcomes


def _decode_plain(raw: Any) -> list[ManagedEntry]:
    return decode_managed_fields(raw) if raw else []


@settings(max_examples=300, deadline=None)
@given(_writes())
def test_update_with_shortcuts_records_what_the_general_walk_records(
    writes: list[tuple[JSON, str, str, str]],
) -> None:
    assert _run(writes, fast=True) == _run(writes, fast=False)


@settings(max_examples=300, deadline=None)
@given(_object, st.data())
def test_compare_shortcuts_find_the_same_changes_and_errors(old: JSON, data: st.DataObject) -> None:
    new = data.draw(_next_version(old))
    outcomes = []
    for shortcuts in (True, False, True):  # the last one meets the lists it has walked
        try:
            diff = compare(old, new, TYPE, shortcuts=shortcuts)
        except ValueError as err:
            outcomes.append(("error", str(err)))
        else:
            outcomes.append(
                tuple(s.to_fields_v1() for s in (diff.added, diff.modified, diff.removed))
            )
    assert outcomes[0] == outcomes[1] == outcomes[2]


_names = st.sampled_from(["a", "b", "spec"])
_elements = st.one_of(
    _names.map(PathElement.field),
    st.dictionaries(_names, st.sampled_from([1, "x", True]), min_size=1, max_size=1).map(
        PathElement.key
    ),
    st.integers(0, 2).map(PathElement.index),
)
_paths = st.lists(st.lists(_elements, min_size=1, max_size=3).map(tuple), max_size=6)


@given(_paths, _paths)
def test_union_and_difference_hold_the_paths_of_the_plain_set_operations(
    left: list[Path], right: list[Path]
) -> None:
    a, b = FieldSet.of(left), FieldSet.of(right)
    for got, want in (
        (a.union(b), set(left) | set(right)),
        (a.difference(b), set(left) - set(right)),
        (a.union(a), set(left)),
        (a.difference(FieldSet()), set(left)),
    ):
        expected = FieldSet.of(want)
        assert got == expected
        assert hash(got) == hash(expected)
        assert got.to_fields_v1() == expected.to_fields_v1()
        assert orjson.dumps(got.to_fields_v1()) == orjson.dumps(expected.to_fields_v1())
