"""Schema validation texts and field paths, one row per rule, as kube-apiserver prints them."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.api.field_errors import invalid_status
from podscale.api.schema import validate


def _spec(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}


CASES: list[tuple[str, dict[str, Any], Any, list[str]]] = [
    (
        "type-integer-got-string",
        _spec(replicas={"type": "integer"}),
        {"spec": {"replicas": "string"}},
        [
            (
                'spec.replicas: Invalid value: "string": spec.replicas in body must be '
                'of type integer: "string"'
            )
        ],
    ),
    (
        "type-object-got-number",
        _spec(field={"type": "object"}),
        {"spec": {"field": 1.5}},
        [
            (
                'spec.field: Invalid value: "number": spec.field in body must be of '
                'type object: "number"'
            )
        ],
    ),
    (
        "type-integer-accepts-integral-float",
        _spec(replicas={"type": "integer"}),
        {"spec": {"replicas": 3.0}},
        [],
    ),
    (
        "type-number-accepts-integer",
        _spec(ratio={"type": "number"}),
        {"spec": {"ratio": 3}},
        [],
    ),
    (
        "type-boolean-is-not-integer",
        _spec(replicas={"type": "integer"}),
        {"spec": {"replicas": True}},
        [
            (
                'spec.replicas: Invalid value: "boolean": spec.replicas in body must be '
                'of type integer: "boolean"'
            )
        ],
    ),
    (
        "null-not-nullable",
        _spec(field={"type": "object"}),
        {"spec": {"field": None}},
        ['spec.field: Invalid value: "null": spec.field in body must be of type object: "null"'],
    ),
    (
        "null-nullable",
        _spec(field={"type": "object", "nullable": True}),
        {"spec": {"field": None}},
        [],
    ),
    ("null-untyped", _spec(field={}), {"spec": {"field": None}}, []),
    (
        "int-or-string-rejects-float",
        _spec(port={"x-kubernetes-int-or-string": True}),
        {"spec": {"port": 1.5}},
        [
            (
                'spec.port: Invalid value: "number": spec.port in body must be of type '
                'integer,string: "number"'
            )
        ],
    ),
    (
        "int-or-string-rejects-null",
        _spec(port={"x-kubernetes-int-or-string": True}),
        {"spec": {"port": None}},
        [
            (
                'spec.port: Invalid value: "null": spec.port in body must be of type '
                'integer,string: "null"'
            )
        ],
    ),
    (
        "int-or-string-accepts-both",
        _spec(a={"x-kubernetes-int-or-string": True}, b={"x-kubernetes-int-or-string": True}),
        {"spec": {"a": 1, "b": "50%"}},
        [],
    ),
    (
        "required",
        {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "required": ["image"],
                    "properties": {"image": {"type": "string"}},
                }
            },
        },
        {"spec": {}},
        ["spec.image: Required value"],
    ),
    (
        "required-at-root",
        {"type": "object", "required": ["spec"], "properties": {"spec": {"type": "object"}}},
        {},
        ["spec: Required value"],
    ),
    (
        "enum-string",
        _spec(mode={"type": "string", "enum": ["a", "b"]}),
        {"spec": {"mode": "x"}},
        ['spec.mode: Unsupported value: "x": supported values: "a", "b"'],
    ),
    (
        "enum-keeps-schema-order-and-prints-numbers-as-json",
        _spec(level={"type": "integer", "enum": [3, 1, 2]}),
        {"spec": {"level": 5}},
        ['spec.level: Unsupported value: 5: supported values: "3", "1", "2"'],
    ),
    (
        "enum-and-type-both-fail",
        _spec(level={"type": "integer", "enum": [1, 2]}),
        {"spec": {"level": "x"}},
        [
            (
                'spec.level: Invalid value: "string": spec.level in body must be of '
                'type integer: "string"'
            ),
            'spec.level: Unsupported value: "x": supported values: "1", "2"',
        ],
    ),
    (
        "max-length",
        _spec(name={"type": "string", "maxLength": 3}),
        {"spec": {"name": "abcd"}},
        ["spec.name: Too long: may not be more than 3 bytes"],
    ),
    (
        "min-length",
        _spec(name={"type": "string", "minLength": 3}),
        {"spec": {"name": "ab"}},
        ['spec.name: Invalid value: "ab": spec.name in body should be at least 3 chars long'],
    ),
    (
        "pattern",
        _spec(name={"type": "string", "pattern": "^[a-z]+$"}),
        {"spec": {"name": "ABC"}},
        ["spec.name: Invalid value: \"ABC\": spec.name in body should match '^[a-z]+$'"],
    ),
    (
        "pattern-is-a-search",
        _spec(name={"type": "string", "pattern": "[0-9]"}),
        {"spec": {"name": "ab1c"}},
        [],
    ),
    (
        "format-email",
        _spec(email={"type": "string", "format": "email"}),
        {"spec": {"email": "nope"}},
        ['spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"'],
    ),
    (
        "format-date-time-keeps-declared-name",
        _spec(at={"type": "string", "format": "date-time"}),
        {"spec": {"at": "yesterday"}},
        [
            (
                'spec.at: Invalid value: "yesterday": spec.at in body must be of type '
                'date-time: "yesterday"'
            )
        ],
    ),
    (
        "format-int32-is-ignored",
        _spec(n={"type": "integer", "format": "int32"}),
        {"spec": {"n": 2**40}},
        [],
    ),
    (
        "format-unknown-is-ignored",
        _spec(s={"type": "string", "format": "color"}),
        {"spec": {"s": "red"}},
        [],
    ),
    (
        "maximum",
        _spec(replicas={"type": "integer", "maximum": 10}),
        {"spec": {"replicas": 11}},
        [
            (
                "spec.replicas: Invalid value: 11: spec.replicas in body should be less "
                "than or equal to 10"
            )
        ],
    ),
    (
        "exclusive-maximum",
        _spec(replicas={"type": "integer", "maximum": 10, "exclusiveMaximum": True}),
        {"spec": {"replicas": 10}},
        ["spec.replicas: Invalid value: 10: spec.replicas in body should be less than 10"],
    ),
    (
        "minimum",
        _spec(replicas={"type": "integer", "minimum": 1}),
        {"spec": {"replicas": 0}},
        [
            (
                "spec.replicas: Invalid value: 0: spec.replicas in body should be "
                "greater than or equal to 1"
            )
        ],
    ),
    (
        "exclusive-minimum-float",
        _spec(ratio={"type": "number", "minimum": 0.5, "exclusiveMinimum": True}),
        {"spec": {"ratio": 0.5}},
        ["spec.ratio: Invalid value: 0.5: spec.ratio in body should be greater than 0.5"],
    ),
    (
        "maximum-float-bound-printed-like-go",
        _spec(big={"type": "number", "maximum": 1000000}),
        {"spec": {"big": 2000000.5}},
        [
            (
                "spec.big: Invalid value: 2000000.5: spec.big in body should be less "
                "than or equal to 1e+06"
            )
        ],
    ),
    (
        "multiple-of",
        _spec(n={"type": "integer", "multipleOf": 5}),
        {"spec": {"n": 7}},
        ["spec.n: Invalid value: 7: spec.n in body should be a multiple of 5"],
    ),
    (
        "multiple-of-fraction",
        _spec(n={"type": "number", "multipleOf": 0.5}),
        {"spec": {"n": 0.7}},
        ["spec.n: Invalid value: 0.7: spec.n in body should be a multiple of 0.5"],
    ),
    (
        "min-items",
        _spec(tags={"type": "array", "minItems": 2, "items": {"type": "string"}}),
        {"spec": {"tags": ["a"]}},
        ["spec.tags: Invalid value: 1: spec.tags in body should have at least 2 items"],
    ),
    (
        "max-items",
        _spec(tags={"type": "array", "maxItems": 2, "items": {"type": "string"}}),
        {"spec": {"tags": ["a", "b", "c"]}},
        ["spec.tags: Too many: 3: must have at most 2 items"],
    ),
    (
        "unique-items",
        _spec(tags={"type": "array", "uniqueItems": True, "items": {"type": "string"}}),
        {"spec": {"tags": ["a", "a"]}},
        ['spec.tags: Invalid value: "": spec.tags in body shouldn\'t contain duplicates'],
    ),
    (
        "item-path",
        _spec(
            ports={
                "type": "array",
                "items": {"type": "object", "properties": {"port": {"type": "integer"}}},
            }
        ),
        {"spec": {"ports": [{"port": 1}, {"port": "x"}]}},
        [
            (
                'spec.ports[1].port: Invalid value: "string": spec.ports[1].port in '
                'body must be of type integer: "string"'
            )
        ],
    ),
    (
        "min-properties-stops-the-object",
        _spec(
            labels={
                "type": "object",
                "minProperties": 2,
                "additionalProperties": {"type": "string"},
            }
        ),
        {"spec": {"labels": {"a": 1}}},
        ["spec.labels: Invalid value: 1: spec.labels in body should have at least 2 properties"],
    ),
    (
        "max-properties",
        _spec(
            labels={
                "type": "object",
                "maxProperties": 1,
                "additionalProperties": {"type": "string"},
            }
        ),
        {"spec": {"labels": {"a": "1", "b": "2"}}},
        ["spec.labels: Too many: 2: must have at most 1 items"],
    ),
    (
        "additional-properties-schema-path-uses-dots",
        _spec(labels={"type": "object", "additionalProperties": {"type": "string"}}),
        {"spec": {"labels": {"app": 1}}},
        [
            (
                'spec.labels.app: Invalid value: "integer": spec.labels.app in body '
                'must be of type string: "integer"'
            )
        ],
    ),
    (
        "additional-properties-false",
        _spec(
            closed={
                "type": "object",
                "additionalProperties": False,
                "properties": {"a": {"type": "string"}},
            }
        ),
        {"spec": {"closed": {"a": "x", "b": "y"}}},
        ['spec.closed: Invalid value: "b": spec.closed.b in body is a forbidden property'],
    ),
    (
        "any-of",
        _spec(
            v={
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "x-kubernetes-int-or-string": True,
            }
        ),
        {"spec": {"v": True}},
        [
            (
                'spec.v: Invalid value: "boolean": spec.v in body must be of type '
                'integer,string: "boolean"'
            ),
            ': Invalid value: "": "spec.v" must validate at least one schema (anyOf)',
            'spec.v: Invalid value: "boolean": spec.v in body must be of type integer: "boolean"',
        ],
    ),
    (
        "one-of-none",
        _spec(v={"oneOf": [{"minimum": 5}, {"maximum": 1}]}),
        {"spec": {"v": 3}},
        [
            (
                ': Invalid value: "": "spec.v" must validate one and only one schema '
                "(oneOf). Found none valid"
            ),
            "spec.v: Invalid value: 3: spec.v in body should be greater than or equal to 5",
        ],
    ),
    (
        "one-of-two",
        _spec(v={"oneOf": [{"minimum": 1}, {"maximum": 5}]}),
        {"spec": {"v": 3}},
        [
            (
                ': Invalid value: "": "spec.v" must validate one and only one schema '
                "(oneOf). Found 2 valid alternatives"
            )
        ],
    ),
    (
        "all-of",
        _spec(v={"type": "string", "allOf": [{"minLength": 2}, {"maxLength": 5}]}),
        {"spec": {"v": "a"}},
        [
            'spec.v: Invalid value: "a": spec.v in body should be at least 2 chars long',
            ': Invalid value: "": "spec.v" must validate all the schemas (allOf)',
        ],
    ),
    (
        "not",
        _spec(v={"type": "string", "not": {"enum": ["forbidden"]}}),
        {"spec": {"v": "forbidden"}},
        [': Invalid value: "": "spec.v" must not validate the schema (not)'],
    ),
    (
        "list-map-duplicate",
        _spec(
            ports={
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}}},
            }
        ),
        {"spec": {"ports": [{"name": "http"}, {"name": "http"}, {"name": "http"}]}},
        ['spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http"}'],
    ),
    (
        "list-map-two-keys",
        _spec(
            ports={
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port", "protocol"],
                "items": {
                    "type": "object",
                    "properties": {"port": {"type": "integer"}, "protocol": {"type": "string"}},
                },
            }
        ),
        {
            "spec": {
                "ports": [
                    {"port": 80, "protocol": "TCP"},
                    {"port": 80, "protocol": "UDP"},
                    {"port": 80, "protocol": "TCP"},
                ]
            }
        },
        ['spec.ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}'],
    ),
    (
        "list-map-missing-key",
        _spec(
            ports={
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}}},
            }
        ),
        {"spec": {"ports": [{}, {}]}},
        ["spec.ports[1]: Duplicate value: map[string]interface {}{}"],
    ),
    (
        "list-map-item-not-object",
        _spec(
            ports={
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object"},
            }
        ),
        {"spec": {"ports": [{"name": "a"}, 5]}},
        [
            (
                'spec.ports[1]: Invalid value: "integer": spec.ports[1] in body must be '
                'of type object: "integer"'
            ),
            "spec.ports[1]: Invalid value: 5: must be an object for an array of list-type map",
        ],
    ),
    (
        "list-set-duplicate",
        _spec(tags={"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}),
        {"spec": {"tags": ["a", "b", "a"]}},
        ['spec.tags[2]: Duplicate value: "a"'],
    ),
    (
        "list-set-int-and-float-differ",
        _spec(tags={"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "number"}}),
        {"spec": {"tags": [1, 1.0]}},
        [],
    ),
    (
        "list-set-under-additional-properties-uses-key-path",
        _spec(
            groups={
                "type": "object",
                "additionalProperties": {
                    "type": "array",
                    "x-kubernetes-list-type": "set",
                    "items": {"type": "string"},
                },
            }
        ),
        {"spec": {"groups": {"g1": ["x", "x"]}}},
        ['spec.groups[g1][1]: Duplicate value: "x"'],
    ),
    (
        "embedded-resource-needs-type-meta",
        _spec(
            template={
                "type": "object",
                "x-kubernetes-embedded-resource": True,
                "x-kubernetes-preserve-unknown-fields": True,
            }
        ),
        {"spec": {"template": {"metadata": {"name": "ok"}}}},
        ["spec.template.apiVersion: Required value", "spec.template.kind: Required value"],
    ),
    (
        "embedded-resource-kind-and-name",
        _spec(
            template={
                "type": "object",
                "x-kubernetes-embedded-resource": True,
                "x-kubernetes-preserve-unknown-fields": True,
            }
        ),
        {
            "spec": {
                "template": {"apiVersion": "a/b/c", "kind": "My_Kind", "metadata": {"name": "a/b"}}
            }
        },
        [
            (
                'spec.template.apiVersion: Invalid value: "a/b/c": unexpected '
                "GroupVersion string: a/b/c"
            ),
            (
                'spec.template.kind: Invalid value: "My_Kind": may have mixed case, '
                "but should otherwise match: a DNS-1035 label must consist of lower "
                "case alphanumeric characters or '-', start with an alphabetic "
                "character, and end with an alphanumeric character (e.g. 'my-name',  or "
                "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
            ),
            "spec.template.metadata.name: Invalid value: \"a/b\": may not contain '/'",
        ],
    ),
    (
        "embedded-resource-metadata-not-object",
        _spec(
            template={
                "type": "object",
                "x-kubernetes-embedded-resource": True,
                "x-kubernetes-preserve-unknown-fields": True,
            }
        ),
        {"spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": "x"}}},
        [
            (
                'spec.template.metadata: Invalid value: "x": json: cannot unmarshal '
                "string into Go value of type v1.ObjectMeta"
            )
        ],
    ),
]


@pytest.mark.parametrize(
    ("schema", "value", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_validation_texts(schema: dict[str, Any], value: Any, expected: list[str]) -> None:
    assert [str(e) for e in validate(value, schema)] == expected


def test_path_prefix_is_applied_to_field_but_not_to_message() -> None:
    errors = validate(
        {"n": "x"}, {"type": "object", "properties": {"n": {"type": "integer"}}}, "spec"
    )
    assert [str(e) for e in errors] == [
        'spec.n: Invalid value: "string": n in body must be of type integer: "string"'
    ]


def test_type_errors_become_a_kubectl_status() -> None:
    errors = validate({"spec": {"replicas": "string"}}, _spec(replicas={"type": "integer"}))
    status = invalid_status("Widget", "example.com", "w1", errors)
    assert status["message"] == (
        'Widget.example.com "w1" is invalid: spec.replicas: Invalid value: "string": '
        'spec.replicas in body must be of type integer: "string"'
    )
    assert status["details"]["causes"][0]["reason"] == "FieldValueTypeInvalid"


def test_enum_on_null_fails_even_when_nullable() -> None:
    """kube-openapi never matches a null against an enum, nullable or not."""
    schema = _spec(mode={"type": "string", "nullable": True, "enum": ["a"]})
    assert [str(e) for e in validate({"spec": {"mode": None}}, schema)] == [
        'spec.mode: Unsupported value: null: supported values: "a"'
    ]
