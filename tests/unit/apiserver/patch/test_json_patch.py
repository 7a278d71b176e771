"""JSON patch (RFC 6902) as upstream applies it: operations, pointers, errors and the limit."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from podscale.apiserver.patch.errors import GENERIC_INVALID
from podscale.apiserver.patch.patcher import JSON_PATCH, MAX_OPERATIONS, PatchError, apply_patch


def _pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "annotations": {"a/b": "slash", "m~n": "tilde"}},
        "spec": {
            "containers": [{"name": "web", "image": "nginx"}],
            "tolerations": [],
            "priority": 1,
        },
    }


def _apply(ops: Any, obj: dict[str, Any] | None = None) -> dict[str, Any]:
    return apply_patch(JSON_PATCH, obj or _pod(), orjson.dumps(ops), kind="Pod", api_version="v1")


def _at(obj: Any, *path: str | int) -> Any:
    for part in path:
        obj = obj[part]
    return obj


@pytest.mark.parametrize(
    ("ops", "path", "expected"),
    [
        ([{"op": "add", "path": "/spec/nodeName", "value": "n1"}], ("spec", "nodeName"), "n1"),
        (
            [{"op": "add", "path": "/spec/containers/-", "value": {"name": "b"}}],
            ("spec", "containers", 1, "name"),
            "b",
        ),
        (
            [{"op": "add", "path": "/spec/containers/0", "value": {"name": "first"}}],
            ("spec", "containers", 0, "name"),
            "first",
        ),
        (
            [{"op": "add", "path": "/spec/containers/1", "value": {"name": "end"}}],
            ("spec", "containers", 1, "name"),
            "end",
        ),
        (
            # evanphx v4 counts negative insert positions from one past the end
            [{"op": "add", "path": "/spec/containers/-2", "value": {"name": "neg"}}],
            ("spec", "containers", 0, "name"),
            "neg",
        ),
        ([{"op": "add", "path": "/spec/priority"}], ("spec", "priority"), None),
        ([{"op": "replace", "path": "/spec/priority", "value": 7}], ("spec", "priority"), 7),
        # evanphx v4: replace of a missing object key adds it
        ([{"op": "replace", "path": "/spec/hostname", "value": "h"}], ("spec", "hostname"), "h"),
        (
            [{"op": "replace", "path": "/spec/containers/0/image", "value": "httpd"}],
            ("spec", "containers", 0, "image"),
            "httpd",
        ),
        (
            [{"op": "replace", "path": "/metadata/annotations/a~1b", "value": "x"}],
            ("metadata", "annotations", "a/b"),
            "x",
        ),
        (
            [{"op": "replace", "path": "/metadata/annotations/m~0n", "value": "y"}],
            ("metadata", "annotations", "m~n"),
            "y",
        ),
        (
            [{"op": "copy", "from": "/spec/containers/0", "path": "/spec/initContainers"}],
            ("spec", "initContainers", "name"),
            "web",
        ),
        (
            [{"op": "move", "from": "/spec/priority", "path": "/spec/priorityValue"}],
            ("spec", "priorityValue"),
            1,
        ),
        (
            [
                {"op": "test", "path": "/spec/priority", "value": 1},
                {"op": "replace", "path": "/spec/priority", "value": 2},
            ],
            ("spec", "priority"),
            2,
        ),
        (
            [
                {"op": "test", "path": "/spec/missing", "value": None},
                {"op": "add", "path": "/spec/ok", "value": True},
            ],
            ("spec", "ok"),
            True,
        ),
    ],
    ids=[
        "add-key",
        "add-append-dash",
        "add-insert-front",
        "add-insert-at-end",
        "add-negative-index",
        "add-without-value-is-null",
        "replace",
        "replace-missing-key-adds",
        "replace-in-array",
        "pointer-escape-slash",
        "pointer-escape-tilde",
        "copy",
        "move",
        "test-then-replace",
        "test-missing-equals-null",
    ],
)
def test_operations(ops: list[dict[str, Any]], path: tuple[str | int, ...], expected: Any) -> None:
    assert _at(_apply(ops), *path) == expected


@pytest.mark.parametrize(
    ("ops", "check"),
    [
        ([{"op": "remove", "path": "/spec/priority"}], lambda o: "priority" not in o["spec"]),
        ([{"op": "remove", "path": "/spec/containers/0"}], lambda o: o["spec"]["containers"] == []),
        (
            [{"op": "remove", "path": "/spec/containers/-1"}],
            lambda o: o["spec"]["containers"] == [],
        ),
        (
            [{"op": "move", "from": "/spec/priority", "path": "/spec/p"}],
            lambda o: "priority" not in o["spec"],
        ),
        (
            [
                {"op": "copy", "from": "/spec/containers/0", "path": "/spec/containers/-"},
                {"op": "replace", "path": "/spec/containers/1/name", "value": "copy"},
            ],
            lambda o: [c["name"] for c in o["spec"]["containers"]] == ["web", "copy"],
        ),
    ],
    ids=[
        "remove-key",
        "remove-index",
        "remove-negative-index",
        "move-removes-source",
        "copy-is-deep",
    ],
)
def test_removals_and_copies(ops: list[dict[str, Any]], check: Any) -> None:
    assert check(_apply(ops))


def test_null_body_is_an_empty_patch() -> None:
    assert _apply(None) == _pod()


def test_operations_apply_in_order_and_all_or_nothing() -> None:
    original = _pod()
    with pytest.raises(PatchError):
        _apply(
            [
                {"op": "replace", "path": "/spec/priority", "value": 5},
                {"op": "remove", "path": "/spec/nope"},
            ],
            original,
        )
    assert original == _pod()


@pytest.mark.parametrize(
    ("ops", "detail"),
    [
        (
            [{"op": "test", "path": "/spec/priority", "value": 2}],
            "testing value /spec/priority failed",
        ),
        (
            [{"op": "test", "path": "/spec/priority", "value": 1.0}],
            "testing value /spec/priority failed",
        ),
        (
            [{"op": "test", "path": "/spec/priority", "value": True}],
            "testing value /spec/priority failed",
        ),
        ([{"op": "remove", "path": "/spec/nope"}], "Unable to remove nonexistent key: nope"),
        ([{"op": "add", "path": "/nope/deeper", "value": 1}], "doc is missing path"),
        ([{"op": "add", "path": "/spec/priority/x", "value": 1}], "doc is missing path"),
        ([{"op": "add", "path": "spec", "value": 1}], "doc is missing path"),
        ([{"op": "add", "path": "", "value": {}}], "doc is missing path"),
        ([{"op": "add", "path": "/spec/containers/5", "value": {}}], "invalid index"),
        ([{"op": "add", "path": "/spec/containers/x", "value": {}}], "proper array index"),
        ([{"op": "replace", "path": "/spec/containers/1", "value": {}}], "invalid index"),
        ([{"op": "remove", "path": "/spec/containers/-2"}], "invalid index"),
        ([{"op": "move", "from": "/spec/nope", "path": "/spec/x"}], "missing from path"),
        ([{"op": "copy", "from": "/spec/nope", "path": "/spec/x"}], "missing from path"),
        ([{"op": "add", "value": 1}], "failed to decode path"),
        ([{"op": "frobnicate", "path": "/spec"}], "Unexpected kind: frobnicate"),
        ([{"path": "/spec"}], "Unexpected kind: unknown"),
        ([None], "Unexpected kind: unknown"),
    ],
    ids=[
        "test-failed",
        "test-int-vs-float",
        "test-int-vs-bool",
        "remove-missing",
        "missing-parent",
        "parent-is-scalar",
        "no-leading-slash",
        "whole-document",
        "index-out-of-range",
        "index-not-a-number",
        "replace-past-end",
        "negative-out-of-range",
        "move-missing-source",
        "copy-missing-source",
        "missing-path",
        "unknown-op",
        "missing-op",
        "null-operation",
    ],
)
def test_operations_that_do_not_apply_are_generic_422(
    ops: list[dict[str, Any]], detail: str
) -> None:
    with pytest.raises(PatchError) as caught:
        _apply(ops)
    error = caught.value
    assert (error.code, error.reason, str(error)) == (422, "Invalid", GENERIC_INVALID)
    assert detail in error.detail


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"op": "add"}, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
        ("ops", "json: cannot unmarshal string into Go value of type jsonpatch.Patch"),
        ([1], "json: cannot unmarshal number into Go value of type jsonpatch.Operation"),
        ([[]], "json: cannot unmarshal array into Go value of type jsonpatch.Operation"),
    ],
    ids=["object", "string", "number-item", "array-item"],
)
def test_bodies_that_are_not_operation_lists_are_400(body: Any, message: str) -> None:
    with pytest.raises(PatchError) as caught:
        _apply(body)
    assert (caught.value.code, caught.value.reason, str(caught.value)) == (
        400,
        "BadRequest",
        message,
    )


@pytest.mark.parametrize(
    ("count", "fails"),
    [(MAX_OPERATIONS, False), (MAX_OPERATIONS + 1, True)],
    ids=["at-limit", "over-limit"],
)
def test_operation_limit(count: int, fails: bool) -> None:
    ops = [{"op": "test", "path": "/spec/priority", "value": 1}] * count
    if not fails:
        assert _apply(ops) == _pod()
        return
    with pytest.raises(PatchError) as caught:
        _apply(ops)
    assert (caught.value.code, caught.value.reason) == (413, "RequestEntityTooLarge")
    assert str(caught.value) == (
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, "
        "got 10001"
    )
