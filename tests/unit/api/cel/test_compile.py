"""CRD-time checks of x-kubernetes-validations (podscale.api.cel.check_rules)."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.api.cel import check_rules
from podscale.api.field_errors import ErrorType

ROOT = "spec.validation.openAPIV3Schema"
AT = f"{ROOT}.properties[spec].x-kubernetes-validations[0]"


def _schema(entry: dict[str, Any], **extra: Any) -> dict[str, Any]:
    spec = {
        "type": "object",
        "properties": {
            "replicas": {"type": "integer"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "x-kubernetes-validations": [entry],
        **extra,
    }
    return {"type": "object", "properties": {"spec": spec}}


def test_valid_rules_have_no_errors() -> None:
    entry = {"rule": "self.replicas > 0", "messageExpression": "'got ' + string(self.replicas)"}
    assert check_rules(_schema(entry), ROOT) == []


def test_compile_error_text() -> None:
    (error,) = check_rules(_schema({"rule": "self.replicas >"}), ROOT)
    assert error.field == f"{AT}.rule"
    assert error.type is ErrorType.INVALID
    assert str(error).startswith(
        f'{AT}.rule: Invalid value: apiextensions.ValidationRule{{Rule:"self.replicas >", '
        'Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), '
        'FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:16: '
        "Syntax error:"
    )
    assert "\n | self.replicas >\n | ...............^" in error.detail


STATIC = [
    ("empty-rule", {"rule": "  "}, "rule", ErrorType.REQUIRED, "rule is not specified"),
    (
        "blank-message",
        {"rule": "true", "message": " "},
        "message",
        ErrorType.INVALID,
        "message must be non-empty if specified",
    ),
    (
        "message-newline",
        {"rule": "true", "message": "a\nb"},
        "message",
        ErrorType.INVALID,
        "message must not contain line breaks",
    ),
    (
        "multiline-rule-needs-message",
        {"rule": "true &&\ntrue"},
        "message",
        ErrorType.REQUIRED,
        "message must be specified if rule contains line breaks",
    ),
    (
        "blank-message-expression",
        {"rule": "true", "messageExpression": " "},
        "messageExpression",
        ErrorType.REQUIRED,
        "messageExpression must be non-empty if specified",
    ),
    (
        "bad-reason",
        {"rule": "true", "reason": "Nope"},
        "reason",
        ErrorType.NOT_SUPPORTED,
        'supported values: "FieldValueDuplicate", "FieldValueForbidden", '
        '"FieldValueInvalid", "FieldValueRequired"',
    ),
    (
        "bad-field-path",
        {"rule": "true", "fieldPath": ".nope"},
        "fieldPath",
        ErrorType.INVALID,
        "fieldPath must be a valid path: does not refer to a valid field",
    ),
    (
        "not-bool",
        {"rule": "1 + 2"},
        "rule",
        ErrorType.INVALID,
        "cel expression must evaluate to a bool",
    ),
    (
        "undeclared-function",
        {"rule": "nope(self)"},
        "rule",
        ErrorType.INVALID,
        "compilation failed: ERROR: <input>:1:5: undeclared reference to 'nope'",
    ),
    (
        "message-expression-compile",
        {"rule": "true", "messageExpression": "'a' +"},
        "messageExpression",
        ErrorType.INVALID,
        "messageExpression compilation failed: ERROR:",
    ),
    (
        "message-expression-not-string",
        {"rule": "true", "messageExpression": "1"},
        "messageExpression",
        ErrorType.INVALID,
        "messageExpression must evaluate to a string",
    ),
]


@pytest.mark.parametrize(
    ("entry", "field", "kind", "detail"), [s[1:] for s in STATIC], ids=[s[0] for s in STATIC]
)
def test_entry_errors(entry: dict[str, Any], field: str, kind: ErrorType, detail: str) -> None:
    (error,) = check_rules(_schema(entry), ROOT)
    assert (error.field, error.type) == (f"{AT}.{field}", kind)
    assert detail in error.detail


def test_valid_field_paths() -> None:
    for path in (".replicas", ".labels['a.b']", ".labels.x"):
        assert check_rules(_schema({"rule": "true", "fieldPath": path}), ROOT) == [], path


def test_transition_rule_under_atomic_list_items_is_refused() -> None:
    items = {"type": "object", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}
    schema = {
        "type": "object",
        "properties": {"list": {"type": "array", "items": items}},
    }
    (error,) = check_rules(schema, ROOT)
    assert str(error) == (
        f"{ROOT}.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "
        f'"self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the '
        f"schema within {ROOT}.properties[list].items"
    )


def test_transition_rule_under_list_map_items_is_allowed() -> None:
    items = {
        "type": "object",
        "properties": {"k": {"type": "string"}},
        "x-kubernetes-validations": [{"rule": "self == oldSelf"}],
    }
    entries = {
        "type": "array",
        "items": items,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["k"],
    }
    assert check_rules({"type": "object", "properties": {"list": entries}}, ROOT) == []


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": 1, "x-kubernetes-int-or-string": True},
        {"type": "object", "properties": ["spec"]},
        {"type": "object", "allOf": 1},
        {"type": "object", "allOf": "x", "items": [], "additionalProperties": True},
    ],
    ids=["properties-int", "properties-list", "allof-int", "allof-string"],
)
def test_malformed_schema_parts_are_left_to_the_schema_checks(schema: dict[str, Any]) -> None:
    assert check_rules(schema, ROOT) == []
