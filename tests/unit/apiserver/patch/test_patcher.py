"""``apply_patch``: content-type dispatch, body decoding, limits and the error contract."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from podscale.apiserver.patch.patcher import (
    JSON_PATCH,
    MAX_DEPTH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    PatchError,
    apply_patch,
    supported_types,
)

BUILTIN_415 = (
    "the body of the request was in an unknown format - accepted media types include: "
    "application/json-patch+json, application/merge-patch+json, "
    "application/strategic-merge-patch+json"
)
CUSTOM_415 = (
    "the body of the request was in an unknown format - accepted media types include: "
    "application/json-patch+json, application/merge-patch+json"
)


def _rs() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "foo", "namespace": "default", "labels": {"app": "foo"}},
        "spec": {"replicas": 1, "x-future-field": {"kept": True}},
    }


def _patch(content_type: str, body: bytes, obj: dict[str, Any] | None = None) -> dict[str, Any]:
    return apply_patch(content_type, obj or _rs(), body, kind="ReplicaSet", api_version="apps/v1")


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        (MERGE_PATCH, b'{"spec":{"replicas":3}}'),
        (STRATEGIC_MERGE_PATCH, b'{"spec":{"replicas":3}}'),
        (JSON_PATCH, b'[{"op":"replace","path":"/spec/replicas","value":3}]'),
        (f"{MERGE_PATCH}; charset=utf-8", b'{"spec":{"replicas":3}}'),
        (f"{STRATEGIC_MERGE_PATCH};charset=UTF-8", b'{"spec":{"replicas":3}}'),
    ],
    ids=["merge", "strategic", "json-patch", "merge-with-charset", "smp-with-charset"],
)
def test_each_format_sets_replicas_and_keeps_unknown_fields(content_type: str, body: bytes) -> None:
    result = _patch(content_type, body)
    assert result["spec"] == {"replicas": 3, "x-future-field": {"kept": True}}
    assert result["metadata"] == _rs()["metadata"]


@pytest.mark.parametrize(
    ("content_type", "kind", "api_version", "message"),
    [
        ("application/apply-patch+yaml", "ReplicaSet", "apps/v1", BUILTIN_415),
        ("application/apply-patch+cbor", "ReplicaSet", "apps/v1", BUILTIN_415),
        ("application/json", "ReplicaSet", "apps/v1", BUILTIN_415),
        ("", "Pod", "v1", BUILTIN_415),
        ("text/plain", "Scale", "autoscaling/v1", BUILTIN_415),
        # upstream cuts at ";" but never trims or lowercases
        (" application/merge-patch+json", "Pod", "v1", BUILTIN_415),
        ("Application/Merge-Patch+JSON", "Pod", "v1", BUILTIN_415),
        (STRATEGIC_MERGE_PATCH, "Widget", "example.com/v1", CUSTOM_415),
        (STRATEGIC_MERGE_PATCH, "Pod", "v2", CUSTOM_415),
    ],
    ids=[
        "server-side-apply",
        "apply-cbor",
        "plain-json",
        "missing",
        "text",
        "leading-space",
        "wrong-case",
        "smp-custom-kind",
        "smp-unknown-version",
    ],
)
def test_unsupported_content_types_are_415(
    content_type: str, kind: str, api_version: str, message: str
) -> None:
    with pytest.raises(PatchError) as caught:
        apply_patch(content_type, {}, b"{}", kind=kind, api_version=api_version)
    assert (caught.value.code, caught.value.reason) == (415, "UnsupportedMediaType")
    assert str(caught.value) == message


def test_custom_kinds_still_take_json_and_merge_patches() -> None:
    assert supported_types("example.com/v1", "Widget") == (JSON_PATCH, MERGE_PATCH)
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"size": 1}}
    result = apply_patch(
        MERGE_PATCH, widget, b'{"spec":{"size":2}}', kind="Widget", api_version="example.com/v1"
    )
    assert result["spec"] == {"size": 2}


@pytest.mark.parametrize(
    ("content_type", "body", "message"),
    [
        (MERGE_PATCH, b"{not json", "Invalid JSON Patch"),
        (MERGE_PATCH, b"", "Invalid JSON Patch"),
        (MERGE_PATCH, b"\xff\xfe", "Invalid JSON Patch"),
        (MERGE_PATCH, b"null", "Invalid JSON Patch"),
        (MERGE_PATCH, b"3", "Invalid JSON Patch"),
        (MERGE_PATCH, b'"spec"', "Invalid JSON Patch"),
        (JSON_PATCH, b"[{", "error decoding patch: "),
        (JSON_PATCH, b"NaN", "error decoding patch: "),
        (STRATEGIC_MERGE_PATCH, b"{'single': 'quotes'}", "error decoding patch: "),
        (
            STRATEGIC_MERGE_PATCH,
            b"[1]",
            "json: cannot unmarshal array into Go value of type map[string]interface {}",
        ),
        (
            STRATEGIC_MERGE_PATCH,
            b'"x"',
            "json: cannot unmarshal string into Go value of type map[string]interface {}",
        ),
    ],
    ids=[
        "merge-syntax",
        "merge-empty",
        "merge-not-utf8",
        "merge-null",
        "merge-number",
        "merge-string",
        "json-patch-syntax",
        "json-patch-nan",
        "smp-syntax",
        "smp-array",
        "smp-string",
    ],
)
def test_undecodable_bodies_are_400(content_type: str, body: bytes, message: str) -> None:
    with pytest.raises(PatchError) as caught:
        _patch(content_type, body)
    assert (caught.value.code, caught.value.reason) == (400, "BadRequest")
    assert str(caught.value).startswith(message)


def _nested(depth: int) -> bytes:
    return b'{"spec":' * depth + b"1" + b"}" * depth


@pytest.mark.parametrize(
    "content_type", [MERGE_PATCH, STRATEGIC_MERGE_PATCH, JSON_PATCH], ids=["merge", "smp", "json"]
)
@pytest.mark.parametrize(
    "depth", [MAX_DEPTH + 1, 900, 5000], ids=["just-over-limit", "near-recursion", "past-orjson"]
)
def test_deeply_nested_bodies_are_400_not_a_crash(content_type: str, depth: int) -> None:
    with pytest.raises(PatchError) as caught:
        _patch(content_type, _nested(depth))
    assert caught.value.code == 400


def test_nesting_up_to_the_limit_is_applied() -> None:
    result = _patch(MERGE_PATCH, _nested(MAX_DEPTH - 1))
    node: Any = result
    for _ in range(MAX_DEPTH - 1):
        node = node["spec"]
    assert node == 1


def test_a_deep_original_is_copied_without_recursion() -> None:
    deep: Any = 1
    for _ in range(3000):
        deep = {"d": deep}
    obj = {**_rs(), "extra": deep}
    result = _patch(STRATEGIC_MERGE_PATCH, b'{"spec":{"replicas":2}}', obj)
    assert result["spec"]["replicas"] == 2
    assert result["extra"] is not deep


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        (MERGE_PATCH, b'{"metadata":{"labels":{"app":null,"new":"x"}},"spec":null}'),
        (STRATEGIC_MERGE_PATCH, b'{"metadata":{"labels":{"$patch":"replace","z":"1"}}}'),
        (JSON_PATCH, b'[{"op":"remove","path":"/spec/x-future-field/kept"}]'),
    ],
    ids=["merge", "smp", "json"],
)
def test_original_is_never_mutated(content_type: str, body: bytes) -> None:
    original = _rs()
    snapshot = copy.deepcopy(original)
    result = _patch(content_type, body, original)
    assert original == snapshot
    assert result != snapshot


def test_name_and_namespace_changes_are_applied_faithfully() -> None:
    # The handler, not this module, rejects a renamed object.
    result = _patch(MERGE_PATCH, b'{"metadata":{"name":"bar","namespace":"other"}}')
    assert (result["metadata"]["name"], result["metadata"]["namespace"]) == ("bar", "other")


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (
            PatchError(400, "BadRequest", "Invalid JSON Patch"),
            {"code": 400, "reason": "BadRequest", "message": "Invalid JSON Patch"},
        ),
        (
            PatchError(415, "UnsupportedMediaType", CUSTOM_415),
            {"code": 415, "reason": "UnsupportedMediaType", "message": CUSTOM_415},
        ),
    ],
    ids=["bad-request", "unsupported"],
)
def test_errors_render_as_status(error: PatchError, status: dict[str, Any]) -> None:
    rendered = error.to_status()
    assert rendered["kind"] == "Status"
    assert rendered["status"] == "Failure"
    assert {k: rendered[k] for k in status} == status
    assert "details" not in rendered


def test_an_array_merge_patch_is_422_invalid_on_the_patch_field() -> None:
    with pytest.raises(PatchError) as caught:
        _patch(MERGE_PATCH, b'[{"a":null}]')
    error = caught.value
    assert (error.code, error.reason) == (422, "Invalid")
    assert str(error).startswith(' "" is invalid: patch: Invalid value: "[{\\"a\\":null}]"')
    status = error.to_status()
    assert status["details"]["causes"][0]["field"] == "patch"
    assert status["message"] == str(error)


def test_result_is_plain_json() -> None:
    result = _patch(STRATEGIC_MERGE_PATCH, b'{"spec":{"template":{"spec":{"containers":[]}}}}')
    assert orjson.loads(orjson.dumps(result)) == result
