"""Typed walks: field sets and merges over each list and map type, deduced types, errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from podscale.apiserver.fieldmanager import MergeError, TypeInfo, merge, to_field_set, type_for
from podscale.apiserver.fieldmanager.compare import compare
from podscale.apiserver.fieldmanager.fieldset import FieldSet
from podscale.apiserver.fieldmanager.typed import remove_fields

DEDUCED = type_for(None)


def _spec(**fields: Any) -> dict[str, Any]:
    return {"spec": fields}


@pytest.mark.parametrize(
    ("obj", "fields_v1"),
    [
        (_spec(replicas=3), {"f:spec": {"f:replicas": {}}}),
        (_spec(selector={"matchLabels": {"a": "b"}}), {"f:spec": {"f:selector": {}}}),
        (_spec(nodeSelector={"a": "b"}), {"f:spec": {"f:nodeSelector": {}}}),
        ({"metadata": {"labels": {"a": "b"}}}, {"f:metadata": {"f:labels": {"f:a": {}}}}),
        (
            {"metadata": {"finalizers": ["x", "a"]}},
            {"f:metadata": {"f:finalizers": {'v:"a"': {}, 'v:"x"': {}}}},
        ),
        (
            _spec(containers=[{"name": "w", "args": ["a"]}]),
            {"f:spec": {"f:containers": {'k:{"name":"w"}': {".": {}, "f:args": {}, "f:name": {}}}}},
        ),
        (
            _spec(containers=[{"name": "w", "ports": [{"containerPort": 80}]}]),
            {
                "f:spec": {
                    "f:containers": {
                        'k:{"name":"w"}': {
                            ".": {},
                            "f:name": {},
                            "f:ports": {
                                'k:{"containerPort":80,"protocol":"TCP"}': {
                                    ".": {},
                                    "f:containerPort": {},
                                }
                            },
                        }
                    }
                }
            },
        ),
        (_spec(strategy={}), {"f:spec": {"f:strategy": {}}}),
        (_spec(strategy=None), {"f:spec": {"f:strategy": {}}}),
        (_spec(containers=[]), {}),
        (
            _spec(config={"a": {"b": 1}, "l": [1]}),
            {"f:spec": {"f:config": {"f:a": {".": {}, "f:b": {}}, "f:l": {}}}},
        ),
    ],
    ids=[
        "scalar-leaf",
        "atomic-struct-is-one-leaf",
        "atomic-map-is-one-leaf",
        "granular-map-entries-are-members",
        "set-items-are-values",
        "list-map-items-are-members-with-one-key",
        "list-map-two-keys-with-defaulted-key",
        "empty-struct-is-member",
        "null-struct-is-member",
        "empty-granular-list-sets-nothing",
        "preserve-unknown-fields-is-deduced",
    ],
)
def test_to_field_set(deployment: TypeInfo, obj: dict[str, Any], fields_v1: dict[str, Any]) -> None:
    assert to_field_set(obj, deployment).to_fields_v1() == fields_v1


def test_deduced_type_owns_every_map_entry_and_lists_whole() -> None:
    obj = {"spec": {"a": {"b": 1}, "l": [{"x": 1}]}}
    assert to_field_set(obj, DEDUCED).to_fields_v1() == {
        "f:spec": {".": {}, "f:a": {".": {}, "f:b": {}}, "f:l": {}}
    }


@pytest.mark.parametrize(
    ("live", "applied", "expected"),
    [
        (_spec(replicas=1, paused=True), _spec(replicas=2), _spec(replicas=2, paused=True)),
        (
            _spec(selector={"matchLabels": {"a": "1", "b": "2"}}),
            _spec(selector={"matchLabels": {"a": "1"}}),
            _spec(selector={"matchLabels": {"a": "1"}}),
        ),
        (
            _spec(nodeSelector={"a": "1"}),
            _spec(nodeSelector={"b": "2"}),
            _spec(nodeSelector={"b": "2"}),
        ),
        (
            {"metadata": {"labels": {"a": "1"}}},
            {"metadata": {"labels": {"b": "2"}}},
            {"metadata": {"labels": {"a": "1", "b": "2"}}},
        ),
        (
            {"metadata": {"finalizers": ["a", "b"]}},
            {"metadata": {"finalizers": ["c", "a"]}},
            {"metadata": {"finalizers": ["c", "a", "b"]}},
        ),
        (
            _spec(
                containers=[{"name": "a", "image": "1", "args": ["x"]}, {"name": "b", "image": "1"}]
            ),
            _spec(containers=[{"name": "a", "image": "2", "args": ["y", "z"]}]),
            _spec(
                containers=[
                    {"name": "a", "image": "2", "args": ["y", "z"]},
                    {"name": "b", "image": "1"},
                ]
            ),
        ),
        (
            _spec(containers=[{"name": "a"}, {"name": "x"}, {"name": "b"}]),
            _spec(containers=[{"name": "b"}, {"name": "y"}, {"name": "a"}]),
            _spec(containers=[{"name": "x"}, {"name": "b"}, {"name": "y"}, {"name": "a"}]),
        ),
        (
            _spec(containers=[{"name": "w", "ports": [{"containerPort": 80, "name": "http"}]}]),
            _spec(containers=[{"name": "w", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]),
            _spec(
                containers=[
                    {
                        "name": "w",
                        "ports": [{"containerPort": 80, "name": "http", "protocol": "TCP"}],
                    }
                ]
            ),
        ),
        (_spec(strategy=None), _spec(strategy={}), _spec(strategy={})),
        (
            _spec(config={"a": {"b": 1}, "l": [1, 2]}),
            _spec(config={"a": {"c": 2}, "l": [3]}),
            _spec(config={"a": {"b": 1, "c": 2}, "l": [3]}),
        ),
    ],
    ids=[
        "scalar-takes-applied-value",
        "atomic-struct-replaced-whole",
        "atomic-map-replaced-whole",
        "granular-map-keeps-live-keys",
        "set-union-in-applied-order",
        "list-map-merges-by-key-and-atomic-list-replaced",
        "shared-items-in-applied-order-live-only-in-place",
        "defaulted-key-matches-item-without-it",
        "empty-and-null-stay-distinct",
        "deduced-maps-merge-lists-replace",
    ],
)
def test_merge(
    deployment: TypeInfo, live: dict[str, Any], applied: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert merge(live, applied, deployment) == expected


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            _spec(containers=[{"name": "a"}, {"name": "a"}]),
            '.spec.containers: duplicate entries for key [name="a"]',
        ),
        (
            _spec(containers=[{"image": "a"}]),
            ".spec.containers: associative list with keys has an element that omits key field"
            ' "name"',
        ),
        (_spec(bogus=1), ".spec.bogus: field not declared in schema"),
        (_spec(replicas={"a": 1}), ".spec.replicas: expected scalar, got map"),
        (_spec(containers={"a": 1}), ".spec.containers: expected list, got map"),
    ],
    ids=[
        "duplicate-key",
        "missing-key-field",
        "undeclared-field",
        "map-for-scalar",
        "map-for-list",
    ],
)
def test_configurations_that_do_not_fit_the_type(
    deployment: TypeInfo, obj: dict[str, Any], message: str
) -> None:
    with pytest.raises(MergeError) as merging:
        merge({}, obj, deployment)
    assert str(merging.value).startswith(message)
    if "duplicate" in message:
        return  # a live list may hold duplicates: only a configuration is refused them
    with pytest.raises(MergeError) as collecting:
        to_field_set(obj, deployment)
    assert str(collecting.value).startswith(message)


def test_compare_marks_added_subtrees_and_modified_leaves(deployment: TypeInfo) -> None:
    old = {"metadata": {"labels": {"a": "1"}}, "spec": {"replicas": 1}}
    new = {"metadata": {"labels": {"a": "2"}}, "spec": {"replicas": 1, "strategy": {"type": "R"}}}
    diff = compare(old, new, deployment)
    assert diff.modified.to_fields_v1() == {"f:metadata": {"f:labels": {"f:a": {}}}}
    assert diff.added.to_fields_v1() == {"f:spec": {"f:strategy": {".": {}, "f:type": {}}}}
    assert compare(new, old, deployment).removed == diff.added


def test_remove_fields_drops_members_with_their_subtrees(deployment: TypeInfo) -> None:
    obj = _spec(containers=[{"name": "a", "image": "1"}, {"name": "b"}], replicas=2)
    fields = FieldSet.from_fields_v1(
        {"f:spec": {"f:containers": {'k:{"name":"a"}': {}, 'k:{"name":"b"}': {"f:x": {}}}}}
    )
    assert remove_fields(obj, fields, deployment) == _spec(containers=[{"name": "b"}], replicas=2)


_leaf = st.one_of(st.integers(0, 3), st.sampled_from(["a", "b"]), st.booleans())
_json = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["p", "q", "r"]), inner, min_size=1, max_size=3),
    ),
    max_leaves=8,
)
_objects = st.dictionaries(st.sampled_from(["a", "b", "c"]), _json, max_size=3)
_containers = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["a", "b", "c"])},
        optional={"image": st.sampled_from(["1", "2"]), "args": st.lists(st.just("x"), max_size=2)},
    ),
    max_size=3,
    unique_by=lambda c: c["name"],
)
_deployments = st.fixed_dictionaries(
    {},
    optional={
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                "labels": st.dictionaries(st.sampled_from(["x", "y"]), st.just("v")),
                "finalizers": st.lists(st.sampled_from(["f", "g"]), unique=True),
            },
        ),
        "spec": st.fixed_dictionaries(
            {}, optional={"replicas": st.integers(0, 3), "containers": _containers}
        ),
    },
)


def _superset(a: FieldSet, b: FieldSet) -> bool:
    return b.difference(a).empty()


def _has_empty_map(value: Any) -> bool:
    """An empty map in a configuration only says "present": merged over a non-empty live
    map it is no longer a member, upstream as here, so the property excludes it."""
    if isinstance(value, dict):
        return not value or any(_has_empty_map(v) for v in value.values())
    return False


@given(_objects, _objects)
def test_merge_keeps_every_applied_field_deduced(
    live: dict[str, Any], applied: dict[str, Any]
) -> None:
    assume(not any(_has_empty_map(v) for v in applied.values()))
    assert _superset(
        to_field_set(merge(live, applied, DEDUCED), DEDUCED), to_field_set(applied, DEDUCED)
    )


@given(_deployments, _deployments)
def test_merge_keeps_every_applied_field_typed(
    deployment: TypeInfo, live: dict[str, Any], applied: dict[str, Any]
) -> None:
    assume(not any(_has_empty_map(v) for v in applied.values()))
    t = deployment
    merged = merge(live, applied, t)
    assert _superset(to_field_set(merged, t), to_field_set(applied, t))
    assert merge(merged, applied, t) == merged  # applying again changes nothing
