"""``PathElement.key`` hands out one element per exact key: the same as a fresh one.

A list map's items are named on every write that walks them, so ``key`` keeps the elements
it made by their key values and the values' types. A kept element must be equal, hash,
order and print exactly as a freshly built one; keys that are equal in Python but not in
JSON (``1``, ``true``; ``0.0`` and ``-0.0``) must never share one.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.fieldmanager.fieldpath import PathElement

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from([0.0, -0.0, 1.0, 1.5]),
    st.sampled_from(["", "a", "Ready", "1"]),
)
_KEYS = st.dictionaries(st.sampled_from(["type", "name", "port", "protocol"]), _SCALARS, max_size=3)


def _fresh(fields: dict[str, Any]) -> PathElement:
    return PathElement("key", tuple(sorted(fields.items())))


def _same(a: PathElement, b: PathElement) -> bool:
    return (
        a == b
        and hash(a) == hash(b)
        and a.to_fields_v1_key() == b.to_fields_v1_key()
        and str(a) == str(b)
        and [type(v) for _, v in a.value] == [type(v) for _, v in b.value]
    )


@given(first=_KEYS, second=_KEYS)
def test_a_kept_key_is_the_one_a_fresh_build_gives(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    # ``second`` is asked for after ``first`` was kept: it must not get ``first``'s element
    # unless they are the same key in every respect.
    PathElement.key(first)
    got = PathElement.key(second)
    assert _same(got, _fresh(second))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"port": 1}, {"port": True}),
        ({"port": True}, {"port": 1}),
        ({"port": 0}, {"port": False}),
        ({"port": 0.0}, {"port": -0.0}),
        ({"port": 1}, {"port": 1.0}),
    ],
    ids=["1-then-true", "true-then-1", "0-then-false", "zero-then-minus-zero", "1-then-1.0"],
)
def test_keys_equal_in_python_only_get_their_own_element(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    kept = PathElement.key(first)
    got = PathElement.key(second)
    assert _same(got, _fresh(second))
    assert got is not kept


def test_the_same_key_is_one_element() -> None:
    assert PathElement.key({"type": "Ready"}) is PathElement.key({"type": "Ready"})
    assert PathElement.key({"b": 1, "a": "x"}) is PathElement.key({"a": "x", "b": 1})
