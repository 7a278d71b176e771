"""Field paths and sets: the fieldsV1 encoding and its order, path text, set algebra."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.apiserver.fieldmanager.fieldpath import (
    Path,
    PathElement,
    format_path,
    path_from_strings,
)
from podscale.apiserver.fieldmanager.fieldset import FieldSet

F = PathElement.field
K = PathElement.key
V = PathElement.of_value
I = PathElement.index  # noqa: E741


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        ([(F("spec"), F("replicas"))], '{"f:spec":{"f:replicas":{}}}'),
        (
            [(F("metadata"), F("labels")), (F("metadata"), F("labels"), F("app"))],
            '{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}',
        ),
        (
            [(F("b"),), (F("a"),), (F("a"), F("x"))],
            '{"f:a":{".":{},"f:x":{}},"f:b":{}}',
        ),
        (
            [
                (F("c"), K({"port": 443})),
                (F("c"), K({"port": 80})),
                (F("c"), K({"port": 80}), F("x")),
            ],
            '{"f:c":{"k:{\\"port\\":80}":{".":{},"f:x":{}},"k:{\\"port\\":443}":{}}}',
        ),
        (
            [(F("c"), K({"protocol": "TCP", "containerPort": 80}))],
            '{"f:c":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{}}}',
        ),
        (
            [(I(2),), (V("x"),), (V(1),), (K({"a": 1}),), (F("z"),), (V(True),)],
            '{"f:z":{},"k:{\\"a\\":1}":{},"v:1":{},"v:\\"x\\"":{},"v:true":{},"i:2":{}}',
        ),
        ([(V("<a&b>"),)], '{"v:\\"\\\\u003ca\\\\u0026b\\\\u003e\\"":{}}'),
        ([(V(1.5),), (V(2.0),)], '{"v:1.5":{},"v:2":{}}'),
        ([], "{}"),
    ],
    ids=[
        "prefixes-are-children-not-members",
        "member-with-children-writes-dot-first",
        "field-names-sorted",
        "keys-sorted-by-value-not-text",
        "key-fields-sorted-by-name",
        "fields-then-keys-then-values-then-indices",
        "json-escapes-html-as-go",
        "floats-as-go-json",
        "empty-set",
    ],
)
def test_fields_v1_encoding_matches_upstream(paths: list[Path], expected: str) -> None:
    encoded = FieldSet.of(paths).to_fields_v1()
    assert json.dumps(encoded, separators=(",", ":")) == expected
    assert FieldSet.from_fields_v1(json.loads(expected)) == FieldSet.of(paths)


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (path_from_strings("spec", "replicas"), ".spec.replicas"),
        (
            (F("spec"), F("containers"), K({"name": "web"}), F("image")),
            '.spec.containers[name="web"].image',
        ),
        (
            (F("ports"), K({"protocol": "TCP", "containerPort": 80})),
            '.ports[containerPort=80,protocol="TCP"]',
        ),
        ((F("metadata"), F("finalizers"), V("a/b")), '.metadata.finalizers[="a/b"]'),
        ((F("args"), I(3)), ".args[3]"),
        ((F("x"), V('q"\n')), '.x[="q\\"\\n"]'),
        ((F("x"), V(2.5)), ".x[=2.5]"),
    ],
    ids=["fields", "list-map-key", "two-keys", "set-value", "index", "go-quoting", "float"],
)
def test_format_path_as_upstream_path_string(path: Path, text: str) -> None:
    assert format_path(path) == text


def test_true_and_one_are_different_elements() -> None:
    assert V(True) != V(1)
    assert len(FieldSet.of([(V(True),), (V(1),)]).leaves()) == 2
    assert V(1) == V(1.0)  # numbers compare by value, as upstream's value.Compare


def test_leaves_follow_upstream_iterate_order() -> None:
    fields = FieldSet.of([(F("b"), F("c")), (F("d"),), (F("a"),), (F("b"),)])
    assert [format_path(p) for p in fields.leaves()] == [".a", ".b", ".d", ".b.c"]


@pytest.mark.parametrize(
    "doc",
    [{"f:a": []}, {"x:a": {}}, {"k:[1]": {}}, {"i:x": {}}, {"v:{bad": {}}, []],
    ids=["child-not-object", "unknown-prefix", "key-not-object", "bad-index", "bad-json", "list"],
)
def test_malformed_fields_v1_is_a_value_error(doc: Any) -> None:
    with pytest.raises(ValueError, match=r"path element|JSON object|fieldsV1"):
        FieldSet.from_fields_v1(doc)


_names = st.sampled_from(["a", "b", "spec", "x.y", "ü"])
_scalars = st.one_of(
    st.integers(-5, 1000), st.sampled_from(["TCP", "a", "", "<&>"]), st.booleans(), st.none()
)
_elements = st.one_of(
    _names.map(F),
    st.dictionaries(_names, _scalars, min_size=1, max_size=2).map(K),
    _scalars.map(V),
    st.integers(0, 5).map(I),
)
_sets = st.lists(st.lists(_elements, min_size=1, max_size=4).map(tuple), max_size=8).map(
    FieldSet.of
)


@given(_sets)
def test_fields_v1_round_trip(fields: FieldSet) -> None:
    text = json.dumps(fields.to_fields_v1())
    assert FieldSet.from_fields_v1(json.loads(text)) == fields


@given(_sets, _sets, _sets)
def test_set_algebra_laws(a: FieldSet, b: FieldSet, c: FieldSet) -> None:
    assert a.union(b) == b.union(a)
    assert a.intersection(b) == b.intersection(a)
    assert a.union(b).union(c) == a.union(b.union(c))
    assert a.union(a) == a
    assert a.intersection(a) == a
    assert a.difference(a).empty()
    assert a.difference(b).intersection(b).empty()
    assert a.union(b).difference(b) == a.difference(b)
    assert a.difference(b.union(c)) == a.difference(b).difference(c)
    assert a.intersection(b.union(c)) == a.intersection(b).union(a.intersection(c))
    assert set(a.leaves()) | set(b.leaves()) == set(a.union(b).leaves())
    assert set(a.intersection(b).leaves()) == set(a.leaves()) & set(b.leaves())
    assert hash(a.union(b)) == hash(b.union(a))
