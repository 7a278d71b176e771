"""``fieldmanager.types.schema_for_kind``: the resolved schema a kind's objects merge by."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.api.kinds import kind_for
from podscale.apiserver.customresources.definitions import custom_kinds
from podscale.apiserver.fieldmanager.types import resolve_schema, schema_for_kind
from podscale.apiserver.state import ServerState
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock


def _state() -> ServerState:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    return ServerState(store=MemoryStore(clock), clock=clock)


def _refs(value: Any) -> list[str]:
    # Every reference points into components/schemas; none may survive resolution.
    text = json.dumps(value)
    return ["#/components/schemas/"] if "#/components/schemas/" in text else []


def _at(schema: Any, *path: str) -> Any:
    for step in path:
        schema = schema["items"] if step == "[]" else schema["properties"][step]
    return schema


CASES = [
    (
        "apps",
        "v1",
        "Deployment",
        "",
        ("spec", "template", "spec", "containers"),
        {"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
    ),
    (
        "apps",
        "v1",
        "Deployment",
        "",
        ("spec", "selector"),
        {"x-kubernetes-map-type": "atomic"},
    ),
    (
        "",
        "v1",
        "Pod",
        "",
        ("metadata", "ownerReferences"),
        {"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["uid"]},
    ),
    (
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "status",
        ("status", "conditions"),
        {"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]},
    ),
    ("apps", "v1", "Deployment", "scale", ("spec", "replicas"), {"type": "integer"}),
    ("", "v1", "Service", "", ("spec", "selector"), {"x-kubernetes-map-type": "atomic"}),
]


@pytest.mark.parametrize(
    ("group", "version", "kind", "sub", "path", "expected"),
    CASES,
    ids=[
        "deployment-containers-map-by-name",
        "deployment-label-selector-atomic-struct",
        "object-meta-owner-references-map-by-uid",
        "status-subresource-uses-parent-kind",
        "scale-subresource-uses-autoscaling-v1-scale",
        "service-selector-atomic-map",
    ],
)
def test_builtin_kinds_resolve_with_markers(
    group: str, version: str, kind: str, sub: str, path: tuple[str, ...], expected: dict[str, Any]
) -> None:
    info = kind_for(f"{group}/{version}" if group else version, kind)
    schema = schema_for_kind(_state(), info, sub)
    assert schema is not None
    assert _refs(schema) == []
    node = _at(schema, *path)
    assert {k: node.get(k) for k in expected} == expected


def test_scale_subresource_schema_is_scale_kind() -> None:
    info = kind_for("apps/v1", "Deployment")
    schema = schema_for_kind(_state(), info, "scale")
    assert schema is not None
    assert schema["x-kubernetes-group-version-kind"][0]["kind"] == "Scale"


def test_unknown_subresource_has_no_schema() -> None:
    info = kind_for("apps/v1", "Deployment")
    assert schema_for_kind(_state(), info, "nonesuch") is None


def test_recursive_type_is_cut_to_untyped() -> None:
    # JSONSchemaProps contains itself; the recurrence becomes {} (merges deduce it).
    info = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
    schema = schema_for_kind(_state(), info)
    assert schema is not None
    props = _at(schema, "spec", "versions", "[]", "schema", "openAPIV3Schema", "properties")
    assert props == {"type": "object", "additionalProperties": {}}
    assert _refs(schema) == []


def test_resolve_schema_shares_and_cuts() -> None:
    table: dict[str, dict[str, Any]] = {
        "A": {"type": "object", "properties": {"self": {"$ref": "#/components/schemas/A"}}},
        "B": {
            "type": "object",
            "properties": {
                "x": {"allOf": [{"$ref": "#/components/schemas/C"}], "description": "d"},
                "y": {"$ref": "#/components/schemas/C"},
            },
        },
        "C": {"type": "string"},
    }
    a = resolve_schema({"$ref": "#/components/schemas/A"}, table)
    assert a == {"type": "object", "properties": {"self": {}}}
    b = resolve_schema({"$ref": "#/components/schemas/B"}, table)
    assert b["properties"] == {"x": {"type": "string", "description": "d"}, "y": {"type": "string"}}


def _crd() -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com", "resourceVersion": "1"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {
                        "status": {},
                        "scale": {
                            "specReplicasPath": ".spec.replicas",
                            "statusReplicasPath": ".status.replicas",
                        },
                    },
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {
                                        "replicas": {"type": "integer"},
                                        "ports": {
                                            "type": "array",
                                            "x-kubernetes-list-type": "map",
                                            "x-kubernetes-list-map-keys": ["port"],
                                            "items": {
                                                "type": "object",
                                                "properties": {"port": {"type": "integer"}},
                                            },
                                        },
                                    },
                                }
                            },
                        }
                    },
                }
            ],
        },
        "status": {"acceptedNames": {"plural": "widgets", "kind": "Widget"}},
    }


def test_custom_resource_uses_crd_structural_schema() -> None:
    (info,) = custom_kinds(_crd())
    state = _state()
    schema = schema_for_kind(state, info)
    assert schema is not None
    assert _at(schema, "spec", "ports")["x-kubernetes-list-map-keys"] == ["port"]
    # metadata is the built-in ObjectMeta, resolved: owner references merge by uid.
    assert _at(schema, "metadata", "ownerReferences")["x-kubernetes-list-type"] == "map"
    assert _refs(schema) == []
    # Same CRD snapshot: the memoized tree is returned again.
    assert schema_for_kind(state, info) is schema
    assert schema_for_kind(state, info, "status") is schema
    scale = schema_for_kind(state, info, "scale")
    assert scale is not None
    assert scale["x-kubernetes-group-version-kind"][0]["kind"] == "Scale"
