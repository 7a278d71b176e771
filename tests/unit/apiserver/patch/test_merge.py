"""JSON merge patch (RFC 7386): table cases, kubectl's scale patch, and merge/diff properties."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.patch.merge import create_merge_patch, merge_values
from podscale.apiserver.patch.patcher import MERGE_PATCH, STRATEGIC_MERGE_PATCH, apply_patch


def _merge(obj: dict[str, Any], patch: Any, content_type: str = MERGE_PATCH) -> dict[str, Any]:
    return apply_patch(content_type, obj, orjson.dumps(patch), kind="Pod", api_version="v1")


@pytest.mark.parametrize(
    ("original", "patch", "expected"),
    [
        ({"a": "b"}, {"a": "c"}, {"a": "c"}),
        ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
        ({"a": "b"}, {"a": None}, {}),
        ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
        ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
        ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
        ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
        ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
        ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
        ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
        (
            {"a": {"b": 1}},
            {"a": {"c": [None, {"d": None}]}},
            {"a": {"b": 1, "c": [None, {"d": None}]}},
        ),
        ({"a": 1}, {}, {"a": 1}),
    ],
    ids=[
        "replace-scalar",
        "add-key",
        "null-deletes",
        "null-deletes-only-that-key",
        "scalar-replaces-list",
        "list-replaces-scalar",
        "nested-merge-and-delete",
        "lists-are-atomic",
        "stored-null-survives",
        "new-object-pruned-of-nulls",
        "arrays-kept-verbatim",
        "empty-patch",
    ],
)
def test_rfc7386_cases(
    original: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert _merge(original, patch) == expected


def test_kubectl_scale_patch_on_a_scale() -> None:
    scale = {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {"name": "foo", "namespace": "default", "resourceVersion": "7"},
        "spec": {"replicas": 1},
        "status": {"replicas": 1, "selector": "app=foo"},
    }
    for content_type in (MERGE_PATCH, STRATEGIC_MERGE_PATCH):
        result = apply_patch(
            content_type,
            scale,
            b'{"spec":{"replicas":3}}',
            kind="Scale",
            api_version="autoscaling/v1",
        )
        assert result == {**scale, "spec": {"replicas": 3}}


# JSON documents without nulls (a stored object never holds one) and with string keys.
_scalars = st.one_of(
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=3),
)
_keys = st.sampled_from(["a", "b", "c", "spec", "metadata"])
_documents = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=12,
)
_objects = st.dictionaries(_keys, _documents, max_size=4)


@given(_objects, _objects)
def test_merging_the_diff_reaches_the_target(
    original: dict[str, Any], target: dict[str, Any]
) -> None:
    patch = create_merge_patch(original, target)
    assert _merge(original, patch) == target


@given(_objects, _objects)
def test_merge_patch_is_idempotent(original: dict[str, Any], patch: dict[str, Any]) -> None:
    once = _merge(original, patch)
    assert _merge(once, patch) == once


@given(_objects, _objects)
def test_inputs_are_untouched(original: dict[str, Any], patch: dict[str, Any]) -> None:
    before = copy.deepcopy((original, patch))
    _merge(original, patch)
    assert (original, patch) == before


@given(_objects)
def test_a_document_merged_onto_itself_is_unchanged(doc: dict[str, Any]) -> None:
    assert _merge(doc, doc) == doc


@given(_objects, st.dictionaries(_keys, _scalars | st.dictionaries(_keys, _scalars), max_size=4))
def test_without_lists_or_directives_strategic_equals_merge(
    original: dict[str, Any], patch: dict[str, Any]
) -> None:
    # Scale has no merging lists, so a strategic patch must read exactly like a merge patch.
    as_merge = merge_values(copy.deepcopy(original), copy.deepcopy(patch))
    as_strategic = apply_patch(
        STRATEGIC_MERGE_PATCH,
        original,
        orjson.dumps(patch),
        kind="Scale",
        api_version="autoscaling/v1",
    )
    assert as_strategic == as_merge
