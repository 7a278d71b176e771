"""A field set's ``fieldsV1`` bytes are joined from its subtrees' bytes: the same bytes.

``field_owners._fields_bytes`` encodes a set from the memoized bytes of its subtrees (a
pod's new set mostly holds subtrees met before). Random sets, encoded one after another
so that later ones meet subtrees of earlier ones (and sets that differ only below a
shared prefix: the memo is by each subtree's content), must give exactly
``orjson.dumps(to_fields_v1())``, the general encoding.
"""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.fieldmanager.fieldpath import Path, PathElement
from podscale.apiserver.fieldmanager.fieldset import FieldSet
from podscale.apiserver.operations.field_owners import _fields_bytes

_names = st.sampled_from(["a", "b", "spec", "é\\"])
_elements = st.one_of(
    _names.map(PathElement.field),
    st.dictionaries(_names, st.sampled_from([1, "x", True, None, 1.5]), min_size=1, max_size=2).map(
        PathElement.key
    ),
    st.sampled_from(["v", 2, False]).map(PathElement.of_value),
    st.integers(0, 2).map(PathElement.index),
)
_paths = st.lists(st.lists(_elements, min_size=1, max_size=4).map(tuple), max_size=8)


@given(st.lists(_paths, min_size=1, max_size=4))
def test_joined_bytes_are_the_general_encoding(sets: list[list[Path]]) -> None:
    for paths in sets:
        fields = FieldSet.of(paths)
        assert _fields_bytes(fields) == orjson.dumps(fields.to_fields_v1())


_F = PathElement.field


@pytest.mark.parametrize(
    "paths",
    [
        [],
        [(_F("status"),)],
        [(_F("status"),), (_F("status"), _F("phase"))],
        [(_F("status"), _F("podIPs"), PathElement.key({"ip": "10.0.0.1"}))],
        [(_F("status"), _F("podIPs"), PathElement.key({"ip": "10.0.0.2"}))],
        [(_F("status"), _F("podIPs")), (_F("status"), _F("podIPs"), PathElement.key({"ip": "a"}))],
    ],
    ids=["empty", "leaf", "member-with-children", "pod-ip-1", "pod-ip-2", "list-member-and-item"],
)
def test_a_set_sharing_subtrees_with_earlier_ones_is_encoded_exactly(paths: list[Path]) -> None:
    fields = FieldSet.of(paths)
    assert _fields_bytes(fields) == orjson.dumps(fields.to_fields_v1())
    assert _fields_bytes(fields) == orjson.dumps(fields.to_fields_v1())  # from the memo
