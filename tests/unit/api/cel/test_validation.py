"""Evaluation of x-kubernetes-validations rules against custom resources (podscale.api.cel)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.api.cel import evaluate, validate
from podscale.api.field_errors import ErrorType, invalid_status


def _schema(spec_rules: list[dict[str, Any]], **spec_props: Any) -> dict[str, Any]:
    props = {
        "replicas": {"type": "integer"},
        "maxReplicas": {"type": "integer"},
        "ratio": {"type": "number"},
        "name": {"type": "string"},
        "port": {"x-kubernetes-int-or-string": True},
        "tags": {"type": "array", "items": {"type": "string"}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "foo-bar": {"type": "string"},
        **spec_props,
    }
    return {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": props, "x-kubernetes-validations": spec_rules}
        },
    }


def _widget(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": spec,
    }


CASES = [
    (
        "int-compare-ok",
        "self.replicas <= self.maxReplicas",
        {"replicas": 1, "maxReplicas": 3},
        True,
    ),
    (
        "int-compare-bad",
        "self.replicas <= self.maxReplicas",
        {"replicas": 5, "maxReplicas": 3},
        False,
    ),
    ("number-is-double", "self.ratio == 1.0", {"ratio": 1}, True),
    ("has-absent", "!has(self.name)", {}, True),
    ("has-present", "has(self.name)", {"name": "x"}, True),
    ("size-code-points", "size(self.name) == 2", {"name": "hé"}, True),
    ("matches", "self.name.matches('^[a-z]+$')", {"name": "abc"}, True),
    ("startsWith", "self.name.startsWith('ab')", {"name": "abc"}, True),
    ("all-macro", "self.tags.all(t, t.size() < 4)", {"tags": ["a", "bb"]}, True),
    ("exists-macro", "self.tags.exists(t, t == 'x')", {"tags": ["a"]}, False),
    (
        "filter-map",
        "self.tags.filter(t, t != 'a').map(t, t + '!') == ['b!']",
        {"tags": ["a", "b"]},
        True,
    ),
    ("map-keys", "'app' in self.labels", {"labels": {"app": "web"}}, True),
    ("escaped-name", "self.foo__dash__bar == 'x'", {"foo-bar": "x"}, True),
    ("int-or-string-int", "type(self.port) == int", {"port": 80}, True),
    ("int-or-string-str", "type(self.port) == string", {"port": "http"}, True),
    ("isSorted", "self.tags.isSorted()", {"tags": ["a", "b", "c"]}, True),
    ("isSorted-false", "self.tags.isSorted()", {"tags": ["b", "a"]}, False),
    ("strings-ext", "self.name.lowerAscii().split('-') == ['a', 'b']", {"name": "A-B"}, True),
    ("list-sum", "[1, 2, 3].sum() == 6", {}, True),
    ("find-all", "self.name.findAll('[0-9]').size() == 2", {"name": "a1b2"}, True),
    ("sets", "sets.contains(self.tags, ['a'])", {"tags": ["a", "b"]}, True),
    ("optional", "self.?name.orValue('none') == 'none'", {}, True),
]


@pytest.mark.parametrize(("rule", "spec", "ok"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule_outcomes(rule: str, spec: dict[str, Any], ok: bool) -> None:
    errors = validate(_widget(**spec), None, _schema([{"rule": rule}]))
    assert (errors == []) is ok, errors


def test_message_and_kubectl_text() -> None:
    rule = {
        "rule": "self.replicas <= self.maxReplicas",
        "message": "replicas must not exceed maxReplicas",
    }
    errors = validate(_widget(replicas=5, maxReplicas=3), None, _schema([rule]))
    status = invalid_status("Widget", "example.com", "w", errors)
    assert status["message"] == (
        'Widget.example.com "w" is invalid: spec: Invalid value: "object": '
        "replicas must not exceed maxReplicas"
    )


def test_default_message_is_failed_rule() -> None:
    errors = validate(_widget(replicas=5), None, _schema([{"rule": "  self.replicas < 3 "}]))
    assert [str(e) for e in errors] == [
        'spec: Invalid value: "object": failed rule: self.replicas < 3'
    ]


def test_root_rule_path_prints_nil() -> None:
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object"}},
        "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('a')"}],
    }
    assert [str(e) for e in validate(_widget(), None, schema)] == [
        "<nil>: Invalid value: \"object\": failed rule: self.metadata.name.startsWith('a')"
    ]


MESSAGE_EXPRESSIONS = [
    ("used", "'replicas is ' + string(self.replicas)", "replicas is 5"),
    ("trimmed", "'  padded  '", "padded"),
    ("eval-error-falls-back", "self.missing + 'x'", "too many"),
    ("empty-falls-back", "''", "too many"),
    ("not-string-falls-back", "dyn(self.replicas)", "too many"),
    ("line-break-falls-back", "'a\\nb'", "too many"),
]


@pytest.mark.parametrize(
    ("expression", "detail"),
    [m[1:] for m in MESSAGE_EXPRESSIONS],
    ids=[m[0] for m in MESSAGE_EXPRESSIONS],
)
def test_message_expression(expression: str, detail: str) -> None:
    rule = {"rule": "self.replicas < 3", "message": "too many", "messageExpression": expression}
    errors = validate(_widget(replicas=5), None, _schema([rule]))
    assert [e.detail for e in errors] == [detail]


REASONS = [
    ("forbidden", "FieldValueForbidden", ErrorType.FORBIDDEN, "spec: Forbidden: no"),
    ("required", "FieldValueRequired", ErrorType.REQUIRED, "spec: Required value: no"),
    ("duplicate", "FieldValueDuplicate", ErrorType.DUPLICATE, 'spec: Duplicate value: "object"'),
    ("invalid", "FieldValueInvalid", ErrorType.INVALID, 'spec: Invalid value: "object": no'),
]


@pytest.mark.parametrize(
    ("reason", "kind", "text"), [r[1:] for r in REASONS], ids=[r[0] for r in REASONS]
)
def test_reason_sets_error_type(reason: str, kind: ErrorType, text: str) -> None:
    rule = {"rule": "false", "message": "no", "reason": reason}
    (error,) = validate(_widget(), None, _schema([rule]))
    assert (error.type, str(error)) == (kind, text)


@pytest.mark.parametrize(
    ("field_path", "where"),
    [(".replicas", "spec.replicas"), (".labels['a.b']", "spec.labels[a.b]")],
    ids=["child", "map-key"],
)
def test_field_path_moves_the_error(field_path: str, where: str) -> None:
    rule = {"rule": "false", "message": "no", "fieldPath": field_path}
    (error,) = validate(_widget(), None, _schema([rule]))
    assert error.field == where


EVAL_ERRORS = [
    ("no-such-key", "self.name == 'x'", {}, "no such key: name evaluating rule: self.name == 'x'"),
    ("division", "self.replicas / 0 == 1", {"replicas": 1}, "division by zero evaluating rule"),
    (
        "overload",
        "self.port > 1",
        {"port": "http"},
        "call arguments did not match a supported operator, function or macro signature for rule",
    ),
]


@pytest.mark.parametrize(
    ("rule", "spec", "text"), [e[1:] for e in EVAL_ERRORS], ids=[e[0] for e in EVAL_ERRORS]
)
def test_evaluation_errors(rule: str, spec: dict[str, Any], text: str) -> None:
    (error,) = validate(_widget(**spec), None, _schema([{"rule": rule}]))
    assert error.type is ErrorType.INVALID
    assert error.bad_value == "object"
    assert text in error.detail


# Transition rules: only on update, only where the node correlates with its old value.

_IMMUTABLE = {"rule": "self == oldSelf", "message": "is immutable"}


def test_transition_rule_skipped_on_create() -> None:
    schema = _schema([], name={"type": "string", "x-kubernetes-validations": [_IMMUTABLE]})
    assert validate(_widget(name="a"), None, schema) == []


def test_transition_rule_on_update() -> None:
    schema = _schema([], name={"type": "string", "x-kubernetes-validations": [_IMMUTABLE]})
    errors = validate(_widget(name="b"), _widget(name="a"), schema)
    assert [str(e) for e in errors] == ['spec.name: Invalid value: "string": is immutable']


def test_transition_rule_skipped_when_field_is_new() -> None:
    schema = _schema([], name={"type": "string", "x-kubernetes-validations": [_IMMUTABLE]})
    assert validate(_widget(name="b"), _widget(), schema) == []


def _list_schema(list_type: str) -> dict[str, Any]:
    items = {
        "type": "object",
        "properties": {"key": {"type": "string"}, "value": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": "self.value >= oldSelf.value", "message": "shrank"}],
    }
    entries: dict[str, Any] = {"type": "array", "items": items, "x-kubernetes-list-type": list_type}
    if list_type == "map":
        entries["x-kubernetes-list-map-keys"] = ["key"]
    return _schema([], entries=entries)


def test_list_map_items_correlate_by_key() -> None:
    old = _widget(entries=[{"key": "a", "value": 5}, {"key": "b", "value": 1}])
    new = _widget(entries=[{"key": "b", "value": 2}, {"key": "a", "value": 4}])
    errors = validate(new, old, _list_schema("map"))
    assert [str(e) for e in errors] == ['spec.entries[1]: Invalid value: "object": shrank']


def test_atomic_list_items_do_not_correlate() -> None:
    old = _widget(entries=[{"key": "a", "value": 5}])
    new = _widget(entries=[{"key": "a", "value": 1}])
    assert validate(new, old, _list_schema("atomic")) == []


def test_unchanged_invalid_value_ratchets_to_warning() -> None:
    schema = _schema(
        [], name={"type": "string", "x-kubernetes-validations": [{"rule": "self.size() < 3"}]}
    )
    old = _widget(name="toolong", replicas=1)
    new = _widget(name="toolong", replicas=2)
    outcome = evaluate(new, old, schema)
    assert outcome.errors == ()
    assert outcome.warnings == ('spec.name: Invalid value: "string": failed rule: self.size() < 3',)


def test_null_values_are_not_validated() -> None:
    schema = _schema(
        [],
        name={"type": "string", "nullable": True, "x-kubernetes-validations": [{"rule": "false"}]},
    )
    assert validate(_widget(name=None), None, schema) == []


def test_allof_rules_apply_to_the_node() -> None:
    schema = _schema([])
    schema["properties"]["spec"]["allOf"] = [
        {"x-kubernetes-validations": [{"rule": "false", "message": "m"}]}
    ]
    assert [str(e) for e in validate(_widget(), None, schema)] == [
        'spec: Invalid value: "object": m'
    ]


@settings(max_examples=60, deadline=None)
@given(replicas=st.integers(-(2**40), 2**40), maximum=st.integers(-(2**40), 2**40))
def test_comparison_matches_python(replicas: int, maximum: int) -> None:
    schema = _schema([{"rule": "self.replicas <= self.maxReplicas"}])
    errors = validate(_widget(replicas=replicas, maxReplicas=maximum), None, schema)
    assert (errors == []) is (replicas <= maximum)


@settings(max_examples=40, deadline=None)
@given(tags=st.lists(st.text(alphabet="abc", max_size=3), max_size=5))
def test_unchanged_object_never_fails_transition_rules(tags: list[str]) -> None:
    rule = {"rule": "self == oldSelf"}
    schema = _schema([rule])
    assert validate(_widget(tags=tags), _widget(tags=tags), schema) == []
