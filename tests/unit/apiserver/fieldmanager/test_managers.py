"""``fieldmanager.managers``: manager names, fieldManager/force checks, apply bodies, 409s."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.field_errors import format_value
from podscale.apiserver.errors import ApiError
from podscale.apiserver.fieldmanager.managers import (
    APPLY_PATCH_YAML,
    conflict_status,
    field_manager_errors,
    manager_name,
    parse_apply_request,
    patch_options_errors,
    validate_field_manager,
)


@pytest.mark.parametrize(
    ("field_manager", "user_agent", "expected"),
    [
        ("ci", "kubectl/v1.33.0 (linux/amd64)", "ci"),
        (None, "kubectl/v1.33.0 (linux/amd64) kubernetes/abc", "kubectl"),
        ("", "kube-controller-manager/v1.33.0", "kube-controller-manager"),
        (None, None, ""),
        (None, "a\x07b/1", "ab"),
        (None, "x" * 200, "x" * 128),
        (None, "é" * 65, "é" * 64),
    ],
    ids=[
        "query-param-wins",
        "user-agent-prefix-before-slash",
        "empty-param-falls-back-to-user-agent",
        "no-user-agent-is-empty",
        "unprintable-dropped",
        "cut-to-128-bytes",
        "cut-counts-utf8-bytes",
    ],
)
def test_manager_name_as_manager_or_user_agent(
    field_manager: str | None, user_agent: str | None, expected: str
) -> None:
    assert manager_name(field_manager, user_agent) == expected


@pytest.mark.parametrize(
    ("name", "apply", "expected"),
    [
        ("kubectl", True, None),
        ("", False, None),
        ("", True, "fieldManager: Required value: is required for apply patch"),
        ("x" * 129, False, "fieldManager: Too long: may not be more than 128 bytes"),
        (
            "a\nb",
            False,
            'fieldManager: Invalid value: "a\\nb": invalid character U+000A (at position 1)',
        ),
    ],
    ids=["valid", "empty-ok-for-update", "required-for-apply", "too-long", "unprintable"],
)
def test_validate_field_manager_texts(name: str, apply: bool, expected: str | None) -> None:
    assert validate_field_manager(name, apply=apply) == expected


def test_force_forbidden_on_non_apply_patch() -> None:
    errors = patch_options_errors({"force": "true"}, apply=False)
    assert [str(e) for e in errors] == [
        "force: Forbidden: may not be specified for non-apply patch"
    ]


def _parse(body: bytes, query: dict[str, str] | None = None, **url: str) -> Any:
    where = {"api_version": "apps/v1", "kind": "Deployment", "name": "web", "namespace": "ns"}
    where.update(url)
    return parse_apply_request(
        APPLY_PATCH_YAML,
        body,
        {"fieldManager": "ci"} if query is None else query,
        **where,
    )


YAML_DEPLOYMENT = b"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    when: 2024-01-01
spec:
  replicas: 2
"""


def test_yaml_body_decodes_with_timestamps_as_strings() -> None:
    request = _parse(YAML_DEPLOYMENT, {"fieldManager": "ci", "force": "true"})
    assert request.field_manager == "ci"
    assert request.force is True
    assert request.obj["metadata"]["annotations"]["when"] == "2024-01-01"
    assert request.obj["spec"]["replicas"] == 2


def test_json_body_as_kubectl_sends_it() -> None:
    body = b'{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}}'
    request = _parse(body)
    assert request.obj["metadata"] == {"name": "web"}
    assert request.force is False


ERRORS = [
    (
        b"a: b",
        {},
        422,
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: '
        "is required for apply patch",
    ),
    (b"a: [", None, 400, "error decoding YAML: error converting YAML to JSON: yaml: "),
    (
        b"- a",
        None,
        400,
        "error decoding YAML: error unmarshaling JSON: while decoding JSON: "
        "json: cannot unmarshal array into Go value of type map[string]interface {}",
    ),
    (
        b"apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: web}",
        None,
        400,
        "Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, "
        "expected: apps/v1",
    ),
    (
        b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, managedFields: []}",
        None,
        400,
        "metadata.managedFields must be nil",
    ),
    (
        b"apiVersion: apps/v1\nkind: Service\nmetadata: {name: web}",
        None,
        400,
        "failed to create typed patch object (apps/v1, Kind=Service; /web): no corresponding "
        "type for apps/v1, Kind=Service",
    ),
    (
        b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}",
        None,
        400,
        "the name of the object (api) does not match the name on the URL (web)",
    ),
    (
        b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: other}",
        None,
        400,
        "the namespace of the object (other) does not match the namespace on the URL (ns)",
    ),
    (
        YAML_DEPLOYMENT,
        {"fieldManager": "ci", "force": "maybe"},
        400,
        'strconv.ParseBool: parsing "maybe": invalid syntax',
    ),
]


@pytest.mark.parametrize(
    ("body", "query", "code", "message"),
    ERRORS,
    ids=[
        "field-manager-required-for-apply",
        "bad-yaml",
        "body-not-an-object",
        "incorrect-version-in-apply-patch",
        "managed-fields-must-be-nil",
        "kind-without-type",
        "name-does-not-match-url",
        "namespace-does-not-match-url",
        "force-not-a-bool",
    ],
)
def test_apply_request_errors(
    body: bytes, query: dict[str, str] | None, code: int, message: str
) -> None:
    with pytest.raises(ApiError) as caught:
        _parse(body, query)
    assert caught.value.code == code
    assert caught.value.status["message"].startswith(message)


def test_other_content_type_is_unsupported() -> None:
    with pytest.raises(ApiError) as caught:
        parse_apply_request(
            "application/apply-patch+cbor",
            b"",
            {"fieldManager": "ci"},
            api_version="v1",
            kind="Pod",
            name="p",
        )
    assert caught.value.code == 415


def test_one_conflict_status() -> None:
    status = conflict_status([("hpa-controller", "apps/v1", ".spec.replicas")])
    assert status["code"] == 409
    assert status["reason"] == "Conflict"
    assert status["message"] == (
        'Apply failed with 1 conflict: conflict with "hpa-controller" using apps/v1: .spec.replicas'
    )
    assert status["details"] == {
        "causes": [
            {
                "reason": "FieldManagerConflict",
                "message": 'conflict with "hpa-controller" using apps/v1',
                "field": ".spec.replicas",
            }
        ]
    }


def test_conflicts_grouped_by_sorted_manager() -> None:
    status = conflict_status(
        [
            ("zeta", "", ".spec.replicas"),
            ("alpha", "apps/v1", ".spec.paused"),
            ("zeta", "", ".metadata.labels.app"),
            ("alpha", "apps/v1", ".status.replicas", "status"),
        ]
    )
    assert status["message"] == (
        "Apply failed with 4 conflicts: "
        'conflicts with "alpha" using apps/v1:\n- .spec.paused\n'
        'conflicts with "alpha" with subresource "status" using apps/v1:\n- .status.replicas\n'
        'conflicts with "zeta":\n- .spec.replicas\n- .metadata.labels.app'
    )
    assert [c["message"] for c in status["details"]["causes"]] == [
        'conflict with "zeta"',
        'conflict with "alpha" using apps/v1',
        'conflict with "zeta"',
        'conflict with "alpha" with subresource "status" using apps/v1',
    ]


def _rune_errors_by_hand(name: str) -> list[str]:
    """Every unprintable rune of ``name``, at its byte offset (the walk a printable name
    skips)."""
    texts, position = [], 0
    for char in name:
        if not char.isprintable():
            detail = f"invalid character U+{ord(char):04X} (at position {position})"
            texts.append(f'fieldManager: Invalid value: "{_go_quoted(name)}": {detail}')
        position += len(char.encode())
    return texts


def _go_quoted(name: str) -> str:
    return format_value(name)[1:-1]


@given(st.text(alphabet=st.sampled_from(["a", "é", "\n", "\x07", "\u2028", " ", "-"]), max_size=6))
def test_a_printable_name_skips_the_rune_walk_with_the_same_errors(name: str) -> None:
    found = [str(e) for e in field_manager_errors(name, apply=False)]
    assert found == _rune_errors_by_hand(name)
