"""Tests for podscale.api.validation.objectmeta: metadata rules on create and update."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.api.field_errors import FieldPath
from podscale.api.validation.names import validate_dns1123_label_name
from podscale.api.validation.objectmeta import (
    validate_immutable_field,
    validate_object_meta,
    validate_object_meta_update,
)

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
KEY_NAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)

OK_META: dict[str, Any] = {"name": "web", "namespace": "default"}


def _ref(**overrides: Any) -> dict[str, Any]:
    ref: dict[str, Any] = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "u1"}
    ref.update(overrides)
    return ref


def _messages(meta: dict[str, Any], *, namespaced: bool = True) -> list[str]:
    return [str(e) for e in validate_object_meta(meta, namespaced=namespaced)]


@pytest.mark.parametrize(
    ("meta", "namespaced", "expected"),
    [
        (OK_META, True, []),
        ({"name": "node-1"}, False, []),
        (
            {"namespace": "default"},
            True,
            ["metadata.name: Required value: name or generateName is required"],
        ),
        (
            {"name": "My_HPA", "namespace": "default"},
            True,
            [f'metadata.name: Invalid value: "My_HPA": {SUBDOMAIN_MSG}'],
        ),
        (
            {"name": "a" * 254, "namespace": "default"},
            True,
            [f'metadata.name: Invalid value: "{"a" * 254}": must be no more than 253 characters'],
        ),
        (
            {"name": "web-x1", "generateName": "web-", "namespace": "default"},
            True,
            [],
        ),
        (
            {"name": "x", "generateName": "Web-", "namespace": "default"},
            True,
            [f'metadata.generateName: Invalid value: "Web-": {SUBDOMAIN_MSG}'],
        ),
        ({"name": "web"}, True, ["metadata.namespace: Required value"]),
        (
            {"name": "web", "namespace": "a.b"},
            True,
            ['metadata.namespace: Invalid value: "a.b": must not contain dots'],
        ),
        (
            {"name": "node-1", "namespace": "default"},
            False,
            ["metadata.namespace: Forbidden: not allowed on this type"],
        ),
        (
            {**OK_META, "generation": -1},
            True,
            ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"],
        ),
        (
            {**OK_META, "labels": {"-bad": "x"}},
            True,
            [f'metadata.labels: Invalid value: "-bad": {KEY_NAME_MSG}'],
        ),
        (
            {**OK_META, "annotations": {"k": "v" * 262144}},
            True,
            ["metadata.annotations: Too long: may not be more than 262144 bytes"],
        ),
    ],
    ids=[
        "valid-namespaced",
        "valid-cluster-scoped",
        "name-missing",
        "name-not-subdomain",
        "name-too-long",
        "generate-name-with-generated-name",
        "generate-name-invalid",
        "namespace-missing",
        "namespace-not-label",
        "namespace-on-cluster-kind",
        "negative-generation",
        "bad-label-key",
        "annotations-too-large",
    ],
)
def test_validate_object_meta(meta: dict[str, Any], namespaced: bool, expected: list[str]) -> None:
    assert _messages(meta, namespaced=namespaced) == expected


def test_custom_name_validator_is_used_for_name() -> None:
    errors = validate_object_meta(
        {"name": "a.b"}, namespaced=False, name_validator=validate_dns1123_label_name
    )
    assert [str(e) for e in errors] == [
        'metadata.name: Invalid value: "a.b": must not contain dots'
    ]


def test_custom_path_prefixes_every_error() -> None:
    errors = validate_object_meta({}, namespaced=True, path=FieldPath("spec", "template", "meta"))
    assert [e.field for e in errors] == ["spec.template.meta.name", "spec.template.meta.namespace"]


@pytest.mark.parametrize(
    ("refs", "expected"),
    [
        ([_ref()], []),
        ([_ref(apiVersion="v1", kind="Node")], []),
        (
            [_ref(apiVersion="")],
            ['metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty'],
        ),
        (
            [_ref(apiVersion="a/b/c")],
            [
                'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be '
                "empty"
            ],
        ),
        (
            [_ref(kind="")],
            ['metadata.ownerReferences.kind: Invalid value: "": must not be empty'],
        ),
        (
            [_ref(name="")],
            ['metadata.ownerReferences.name: Invalid value: "": must not be empty'],
        ),
        (
            [_ref(uid="")],
            ['metadata.ownerReferences.uid: Invalid value: "": must not be empty'],
        ),
        (
            [_ref(apiVersion="v1", kind="Event")],
            [
                "metadata.ownerReferences: Invalid value: "
                '{"apiVersion":"v1","kind":"Event","name":"a","uid":"u1"}: '
                "/v1, Kind=Event is disallowed from being an owner"
            ],
        ),
        ([_ref(controller=True), _ref(name="b", controller=False)], []),
        (
            [_ref(controller=True), _ref(name="b", uid="u2", controller=True)],
            [
                "metadata.ownerReferences: Invalid value: "
                '[{"apiVersion":"apps/v1","controller":true,"kind":"ReplicaSet","name":"a",'
                '"uid":"u1"},{"apiVersion":"apps/v1","controller":true,"kind":"ReplicaSet",'
                '"name":"b","uid":"u2"}]: Only one reference can have Controller set to true. '
                'Found "true" in references for ReplicaSet/a and ReplicaSet/b'
            ],
        ),
    ],
    ids=[
        "valid",
        "core-group",
        "empty-api-version",
        "unparsable-api-version",
        "empty-kind",
        "empty-name",
        "empty-uid",
        "event-owner-banned",
        "one-controller",
        "two-controllers",
    ],
)
def test_owner_references(refs: list[dict[str, Any]], expected: list[str]) -> None:
    assert _messages({**OK_META, "ownerReferences": refs}) == expected


@pytest.mark.parametrize(
    ("finalizers", "expected"),
    [
        (["example.com/cleanup", "kubernetes", "orphan"], []),
        (
            ["cleanup"],
            [
                'metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard '
                "finalizer name nor is it fully qualified"
            ],
        ),
        (
            ["example.com/-x"],
            [f'metadata.finalizers: Invalid value: "example.com/-x": {KEY_NAME_MSG}'],
        ),
        (
            ["orphan", "foregroundDeletion"],
            [
                'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer '
                "orphan and foregroundDeletion cannot be both set"
            ],
        ),
    ],
    ids=["valid", "unqualified-nonstandard", "bad-qualified-name", "orphan-and-foreground"],
)
def test_finalizers(finalizers: list[str], expected: list[str]) -> None:
    assert _messages({**OK_META, "finalizers": finalizers}) == expected


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"manager": "kubectl", "operation": "Update", "fieldsType": "FieldsV1"}, []),
        (
            {"manager": "kubectl", "operation": "Patch"},
            [
                'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or '
                "`Update`"
            ],
        ),
        (
            {"manager": "kubectl", "operation": "Apply", "fieldsType": "FieldsV2"},
            ['metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`'],
        ),
        (
            {"manager": "m" * 129, "operation": "Apply"},
            ["metadata.managedFields[0].manager: Too long: may not be more than 128 bytes"],
        ),
    ],
    ids=["valid", "bad-operation", "bad-fields-type", "manager-too-long"],
)
def test_managed_fields(entry: dict[str, Any], expected: list[str]) -> None:
    assert _messages({**OK_META, "managedFields": [entry]}) == expected


OLD: dict[str, Any] = {
    "name": "web",
    "namespace": "default",
    "uid": "u1",
    "resourceVersion": "5",
    "generation": 2,
    "creationTimestamp": "2026-01-01T00:00:00Z",
}


@pytest.mark.parametrize(
    ("changes", "old_changes", "expected"),
    [
        ({}, {}, []),
        ({"resourceVersion": ""}, {}, []),
        ({"name": "other"}, {}, ['metadata.name: Invalid value: "other": field is immutable']),
        (
            {"namespace": "kube-system"},
            {},
            ['metadata.namespace: Invalid value: "kube-system": field is immutable'],
        ),
        ({"uid": "u2"}, {}, ['metadata.uid: Invalid value: "u2": field is immutable']),
        (
            {"creationTimestamp": "2026-02-01T00:00:00Z"},
            {},
            [
                'metadata.creationTimestamp: Invalid value: "2026-02-01T00:00:00Z": field is '
                "immutable"
            ],
        ),
        (
            {"deletionTimestamp": "2026-02-01T00:00:00Z"},
            {},
            [
                'metadata.deletionTimestamp: Invalid value: "2026-02-01T00:00:00Z": field is '
                "immutable"
            ],
        ),
        (
            {"generation": 1},
            {},
            ["metadata.generation: Invalid value: 1: must not be decremented"],
        ),
        (
            {
                "deletionTimestamp": "2026-02-01T00:00:00Z",
                "finalizers": ["example.com/b", "example.com/a", "example.com/keep"],
            },
            {"deletionTimestamp": "2026-02-01T00:00:00Z", "finalizers": ["example.com/keep"]},
            [
                "metadata.finalizers: Forbidden: no new finalizers can be added if the object is "
                'being deleted, found new finalizers []string{"example.com/a", "example.com/b"}'
            ],
        ),
        (
            {"finalizers": ["example.com/new"]},
            {},
            [],
        ),
        (
            {"labels": {"app": "a/b"}},
            {},
            [
                'metadata.labels: Invalid value: "a/b": a valid label must be an empty string or '
                "consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
                "an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
                "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ],
        ),
    ],
    ids=[
        "unchanged",
        "unconditional-update-allowed",
        "name-changed",
        "namespace-changed",
        "uid-changed",
        "creation-timestamp-changed",
        "deletion-timestamp-set",
        "generation-decremented",
        "finalizer-added-while-deleting",
        "finalizer-added-while-live",
        "bad-new-label",
    ],
)
def test_validate_object_meta_update(
    changes: dict[str, Any], old_changes: dict[str, Any], expected: list[str]
) -> None:
    new = {**OLD, **changes}
    old = {**OLD, **old_changes}
    assert [str(e) for e in validate_object_meta_update(new, old)] == expected


def test_update_requires_resource_version_when_unconditional_update_is_not_allowed() -> None:
    new = {**OLD, "resourceVersion": ""}
    errors = validate_object_meta_update(new, OLD, allow_unconditional_update=False)
    assert [str(e) for e in errors] == [
        'metadata.resourceVersion: Invalid value: "": must be specified for an update'
    ]


def test_validate_immutable_field_compares_deeply() -> None:
    path = FieldPath("spec", "selector")
    assert validate_immutable_field({"a": ["1"]}, {"a": ["1"]}, path) == []
    assert [str(e) for e in validate_immutable_field({"a": "2"}, {"a": "1"}, path)] == [
        'spec.selector: Invalid value: {"a":"2"}: field is immutable'
    ]
