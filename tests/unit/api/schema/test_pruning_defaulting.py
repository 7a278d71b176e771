"""Pruning and defaulting: upstream's rules, one example each."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.api.schema import apply_defaults, prune

SPEC: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "list": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"x": {"type": "integer"}}},
                },
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {
                        "inner": {"type": "object", "properties": {"k": {"type": "string"}}}
                    },
                },
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "properties": {"spec": {"type": "object", "properties": {}}},
                },
                "open": {"type": "object", "additionalProperties": True},
            },
        }
    },
}

PRUNE_CASES: list[tuple[str, dict[str, Any], dict[str, Any], list[str]]] = [
    ("unknown-spec-field", {"spec": {"a": "x", "foo": 1}}, {"spec": {"a": "x"}}, ["spec.foo"]),
    ("unknown-top-level-field", {"status2": {}, "spec": {}}, {"spec": {}}, ["status2"]),
    (
        "root-type-meta-kept",
        {"apiVersion": "v1", "kind": "K", "metadata": {"name": "n"}},
        {"apiVersion": "v1", "kind": "K", "metadata": {"name": "n"}},
        [],
    ),
    (
        "unknown-in-list-item",
        {"spec": {"list": [{"x": 1, "y": 2}]}},
        {"spec": {"list": [{"x": 1}]}},
        ["spec.list[0].y"],
    ),
    (
        "additional-properties-keep-keys",
        {"spec": {"labels": {"a": "b"}}},
        {"spec": {"labels": {"a": "b"}}},
        [],
    ),
    (
        "preserve-keeps-unknown-but-prunes-known",
        {"spec": {"free": {"any": {"deep": 1}, "inner": {"k": "v", "z": 1}}}},
        {"spec": {"free": {"any": {"deep": 1}, "inner": {"k": "v"}}}},
        ["spec.free.inner.z"],
    ),
    (
        "embedded-keeps-type-meta",
        {
            "spec": {
                "template": {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": "t", "bogus": 1},
                    "other": 1,
                }
            }
        },
        {"spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"}}}},
        ["spec.template.other", "spec.template.metadata.bogus"],
    ),
    (
        "root-metadata-cut-to-object-meta",
        {"metadata": {"name": "n", "zzz": 1, "ownerReferences": [{"name": "o", "extra": 1}]}},
        {"metadata": {"name": "n", "ownerReferences": [{"name": "o"}]}},
        ["metadata.ownerReferences[0].extra", "metadata.zzz"],
    ),
    (
        "additional-properties-true-empties-objects",
        {"spec": {"open": {"a": 1, "b": {"c": 1}}}},
        {"spec": {"open": {"a": 1, "b": {}}}},
        ["spec.open.b.c"],
    ),
    ("sorted", {"spec": {"z": 1, "b": 1}}, {"spec": {}}, ["spec.b", "spec.z"]),
]


@pytest.mark.parametrize(
    ("obj", "expected", "paths"), [c[1:] for c in PRUNE_CASES], ids=[c[0] for c in PRUNE_CASES]
)
def test_prune(obj: dict[str, Any], expected: dict[str, Any], paths: list[str]) -> None:
    assert prune(obj, SPEC) == paths
    assert obj == expected


def test_prune_not_at_resource_root_drops_type_meta() -> None:
    obj = {"apiVersion": "v1", "spec": {}}
    assert prune(obj, SPEC, is_resource_root=False) == []
    assert obj == {"spec": {}}


DEFAULTS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "default": {},
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "mode": {"type": "string", "nullable": True, "default": "auto"},
                "gone": {"type": "string"},
                "kept": {"type": "string", "nullable": True},
                "ports": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "default": {"port": 80},
                        "properties": {
                            "port": {"type": "integer"},
                            "proto": {"type": "string", "default": "TCP"},
                        },
                    },
                },
                "weights": {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "default": 5},
                },
            },
        }
    },
}

DEFAULT_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("missing-object-defaulted-then-inside", {}, {"spec": {"replicas": 1, "mode": "auto"}}),
    (
        "present-value-kept",
        {"spec": {"replicas": 3, "mode": "x"}},
        {"spec": {"replicas": 3, "mode": "x"}},
    ),
    (
        "null-non-nullable-defaulted",
        {"spec": {"replicas": None}},
        {"spec": {"replicas": 1, "mode": "auto"}},
    ),
    ("null-nullable-kept", {"spec": {"mode": None}}, {"spec": {"replicas": 1, "mode": None}}),
    (
        "null-non-nullable-without-default-dropped",
        {"spec": {"gone": None, "kept": None}},
        {"spec": {"replicas": 1, "mode": "auto", "kept": None}},
    ),
    (
        "list-items-and-null-items",
        {"spec": {"ports": [{"port": 1}, None]}},
        {
            "spec": {
                "replicas": 1,
                "mode": "auto",
                "ports": [{"port": 1, "proto": "TCP"}, {"port": 80, "proto": "TCP"}],
            }
        },
    ),
    (
        "additional-properties-null-defaulted",
        {"spec": {"weights": {"a": None, "b": 2}}},
        {"spec": {"replicas": 1, "mode": "auto", "weights": {"a": 5, "b": 2}}},
    ),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [c[1:] for c in DEFAULT_CASES], ids=[c[0] for c in DEFAULT_CASES]
)
def test_apply_defaults(obj: dict[str, Any], expected: dict[str, Any]) -> None:
    apply_defaults(obj, DEFAULTS)
    assert obj == expected


def test_defaults_are_copies() -> None:
    first: dict[str, Any] = {}
    second: dict[str, Any] = {}
    apply_defaults(first, DEFAULTS)
    apply_defaults(second, DEFAULTS)
    first["spec"]["replicas"] = 9
    assert second["spec"]["replicas"] == 1
    assert DEFAULTS["properties"]["spec"]["default"] == {}
