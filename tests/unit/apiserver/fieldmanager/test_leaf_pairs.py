"""A changed map entry settled as a leaf without the walk is recorded as the walk records it.

``compare._is_leaf_pair`` takes an entry present on both sides straight to the leaf case: two
plain scalars under a scalar (deduced, untyped) type, two lists under an atomic list type,
two maps under an atomic map type. Each case, and each near miss that must still be walked
(a value of the wrong shape is an error, a granular list is walked by items), goes through
``compare`` with and without its shortcuts: the same sets, or the same error.
"""

from __future__ import annotations

from typing import Any

import pytest

from podscale.apiserver.fieldmanager import type_for
from podscale.apiserver.fieldmanager.compare import compare

JSON = dict[str, Any]

SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "count": {"type": "integer"},
        "name": {"type": "string"},
        "free": {},
        "loose": {"x-kubernetes-preserve-unknown-fields": True},
        "metrics": {"type": "array", "items": {"type": "object"}},
        "selector": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "x-kubernetes-map-type": "atomic",
        },
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "conditions": {
            "type": "array",
            "items": {"type": "object", "properties": {"type": {"type": "string"}}},
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"],
        },
    },
}
TYPE = type_for(SCHEMA)

CASES = [
    ("scalar-changed", {"count": 1}, {"count": 2}),
    ("scalar-same", {"count": 1}, {"count": 1}),
    ("int-and-float-equal", {"count": 1}, {"count": 1.0}),
    ("bool-and-int", {"count": 1}, {"count": True}),
    ("string-changed", {"name": "a"}, {"name": "b"}),
    ("string-to-int", {"name": "a"}, {"name": 1}),
    ("untyped-scalar", {"free": "a"}, {"free": 2}),
    ("deduced-scalar", {"loose": "a"}, {"loose": "b"}),
    ("deduced-scalar-to-map", {"loose": "a"}, {"loose": {"k": "v"}}),
    ("atomic-list-changed", {"metrics": [{"v": 1}]}, {"metrics": [{"v": 2}]}),
    ("atomic-list-equal-values", {"metrics": [{"v": 1}]}, {"metrics": [{"v": 1.0}]}),
    ("atomic-list-to-map", {"metrics": [{"v": 1}]}, {"metrics": {"v": 1}}),
    ("atomic-map-changed", {"selector": {"a": "x"}}, {"selector": {"a": "y"}}),
    (
        "atomic-map-reordered",
        {"selector": {"a": "x", "b": "y"}},
        {"selector": {"b": "y", "a": "x"}},
    ),
    ("atomic-map-to-list", {"selector": {"a": "x"}}, {"selector": ["a"]}),
    ("granular-map-changed", {"labels": {"a": "x"}}, {"labels": {"a": "y", "b": "z"}}),
    ("granular-list-changed", {"conditions": [{"type": "A"}]}, {"conditions": [{"type": "B"}]}),
    ("scalar-where-map", {"labels": {"a": "x"}}, {"labels": "x"}),
    ("scalar-where-list", {"conditions": []}, {"conditions": 3}),
    ("list-where-scalar", {"count": 1}, {"count": [1]}),
    ("null-to-scalar", {"count": None}, {"count": 1}),
    (
        "several",
        {"count": 1, "name": "a", "metrics": []},
        {"count": 2, "name": "a", "metrics": [1]},
    ),
]


def _outcome(old: JSON, new: JSON, *, shortcuts: bool) -> Any:
    try:
        diff = compare(old, new, TYPE, shortcuts=shortcuts)
    except ValueError as err:
        return ("error", str(err))
    return tuple(s.to_fields_v1() for s in (diff.added, diff.modified, diff.removed))


@pytest.mark.parametrize(("old", "new"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_leaf_pair_is_recorded_as_the_walk_records_it(old: JSON, new: JSON) -> None:
    for left, right in ((old, new), (new, old)):
        assert _outcome(left, right, shortcuts=True) == _outcome(left, right, shortcuts=False)


def test_a_changed_scalar_and_atomic_list_are_modified() -> None:
    diff = compare({"count": 1, "metrics": [1]}, {"count": 2, "metrics": [2]}, TYPE)
    assert diff.modified.to_fields_v1() == {"f:count": {}, "f:metrics": {}}
    assert diff.added.empty()
    assert diff.removed.empty()
