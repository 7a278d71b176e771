"""``TypeInfo.child`` kept per key name answers as a fresh lookup does.

A map node keeps the type under each key it was asked about (every walk asks at every key of
every write); the shared ``DEDUCED`` and ``UNTYPED`` keep nothing. Declared fields, keys
taken by ``additionalProperties``, keys a struct does not declare, and free-form objects are
asked twice of one node and once of a node built afresh: the same type (or None) each time.
"""

from __future__ import annotations

from typing import Any

import pytest

from podscale.apiserver.fieldmanager import type_for
from podscale.apiserver.fieldmanager.schema import DEDUCED, UNTYPED, TypeInfo

JSON = dict[str, Any]

STRUCT: JSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "items": {"type": "array", "items": {"type": "object"}},
    },
}
STRING_MAP: JSON = {"type": "object", "additionalProperties": {"type": "integer"}}
FREE: JSON = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def _shape(t: TypeInfo | None) -> Any:
    return None if t is None else (t.kind, t.atomic, t.list_type, t.keys)


@pytest.mark.parametrize(
    ("schema", "name"),
    [
        (STRUCT, "name"),
        (STRUCT, "labels"),
        (STRUCT, "items"),
        (STRUCT, "undeclared"),
        (STRING_MAP, "any-key"),
        (FREE, "anything"),
    ],
    ids=["declared", "declared-map", "declared-list", "undeclared", "additional", "free-form"],
)
def test_a_kept_child_is_the_fresh_one(schema: JSON, name: str) -> None:
    kept = type_for(schema)
    first, second = kept.child(name), kept.child(name)
    assert second is first
    assert _shape(first) == _shape(type_for(schema).child(name))


def test_the_shared_types_keep_nothing() -> None:
    for shared in (DEDUCED, UNTYPED):
        assert shared.child("some-key") is shared
        assert shared._children == {}
