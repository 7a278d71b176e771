"""The request-independent operations: options parsing, body decoding, paging, delete
policies, the scale round trip, and the errors they raise (as ``ApiError`` Status bodies)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.api.kinds import kind_for
from podscale.apiserver.errors import ApiError
from podscale.apiserver.operations import (
    delete as operations_delete,
)
from podscale.apiserver.operations import list_verbs, write_verbs
from podscale.apiserver.operations import (
    subresources as operations_subresources,
)
from podscale.apiserver.operations import (
    verbs as operations,
)
from podscale.apiserver.operations.types import DeleteOptions, EncodedBody, decode_payload
from podscale.apiserver.registry.admission import WriteOptions, parse_write_options
from podscale.apiserver.registry.bootstrap import ensure_system_namespaces
from podscale.apiserver.state import ServerState
from podscale.store.interface import WatchEvent
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
RS = kind_for("apps/v1", "ReplicaSet")
NAMESPACE = kind_for("v1", "Namespace")
WRITE = WriteOptions(dry_run=False, field_validation="Warn")


@pytest.fixture
def state(store: MemoryStore, clock: Any) -> ServerState:
    ensure_system_namespaces(store)
    return ServerState(store=store, clock=clock)


def status_of(action: Callable[[], object]) -> JSON:
    with pytest.raises(ApiError) as caught:
        action()
    return caught.value.status


@pytest.mark.parametrize(
    ("dry_run", "mode", "expected"),
    [
        ([], None, WriteOptions(False, "Warn")),
        (["All"], "Strict", WriteOptions(True, "Strict")),
        ([], "Ignore", WriteOptions(False, "Ignore")),
    ],
    ids=["defaults", "dry-run-strict", "ignore"],
)
def test_write_options_parse(dry_run: list[str], mode: str | None, expected: WriteOptions) -> None:
    assert parse_write_options(dry_run, mode) == expected


@pytest.mark.parametrize(
    ("dry_run", "mode", "message"),
    [
        (["Some"], None, 'dryRun: Unsupported value: "Some": supported values: "All"'),
        (
            [],
            "Loose",
            'fieldValidation: Unsupported value: "Loose": supported values: "Ignore", '
            '"Strict", "Warn"',
        ),
    ],
    ids=["dry-run", "field-validation"],
)
def test_write_options_refusals(dry_run: list[str], mode: str | None, message: str) -> None:
    status = status_of(lambda: parse_write_options(dry_run, mode))
    assert (status["code"], status["message"]) == (400, message)


@pytest.mark.parametrize(
    ("options", "finalizers"),
    [
        (DeleteOptions(), ()),
        (DeleteOptions(propagation_policy="Background"), ()),
        (DeleteOptions(propagation_policy="Orphan"), ("orphan",)),
        (DeleteOptions(propagation_policy="Foreground"), ("foregroundDeletion",)),
        (DeleteOptions(orphan_dependents=True), ("orphan",)),
        (DeleteOptions(propagation_policy="Background", orphan_dependents=True), ()),
    ],
    ids=["unset", "background", "orphan", "foreground", "orphan-dependents", "policy-wins"],
)
def test_propagation_policy_maps_to_finalizers(
    options: DeleteOptions, finalizers: tuple[str, ...]
) -> None:
    assert operations_delete.finalizers_for(options) == finalizers


def test_unknown_propagation_policy_is_invalid_delete_options() -> None:
    status = status_of(
        lambda: operations_delete.finalizers_for(DeleteOptions(propagation_policy="Later"))
    )
    assert status["code"] == 422
    assert status["details"]["kind"] == "DeleteOptions"
    assert status["details"]["causes"][0]["field"] == "propagationPolicy"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (EncodedBody(b"[1]"), 400),
        (EncodedBody(b"{", "application/json"), 400),
        (EncodedBody(b"<x/>", "application/xml"), 415),
    ],
    ids=["array", "truncated", "xml"],
)
def test_encoded_bodies_fail_as_the_http_server(body: EncodedBody, code: int) -> None:
    assert status_of(lambda: decode_payload(body))["code"] == code


def test_decoded_and_encoded_bodies_create_the_same_object(
    state: ServerState, make_rs: Callable[..., JSON]
) -> None:
    for namespace in ("one", "two"):
        write_verbs.create_object(state, NAMESPACE, None, {"metadata": {"name": namespace}}, WRITE)
    decoded = write_verbs.create_object(state, RS, "one", make_rs(), WRITE).object
    encoded_body = EncodedBody(orjson.dumps(make_rs()))
    encoded = write_verbs.create_object(state, RS, "two", encoded_body, WRITE).object
    for obj in (decoded, encoded):
        for key in ("namespace", "uid", "resourceVersion"):
            obj["metadata"].pop(key)
    assert decoded == encoded


def test_unknown_fields_become_warnings(state: ServerState, make_rs: Callable[..., JSON]) -> None:
    obj = make_rs()
    obj["spec"]["surprise"] = 1
    written = write_verbs.create_object(state, RS, "default", obj, WRITE)
    assert written.warnings == ['unknown field "spec.surprise"']


def test_list_pages_share_one_snapshot(state: ServerState, make_rs: Callable[..., JSON]) -> None:
    for name in ("a", "b", "c"):
        write_verbs.create_object(state, RS, "default", make_rs(name), WRITE)
    first = list_verbs.list_page(state, RS, "default", limit=2)
    assert first.metadata["resourceVersion"] == str(state.store.revision)
    assert first.metadata["remainingItemCount"] == 1
    write_verbs.create_object(state, RS, "default", make_rs("d"), WRITE)
    rest = list_verbs.list_page(state, RS, "default", continue_token=first.metadata["continue"])
    assert [i["metadata"]["name"] for i in rest.items] == ["c"]
    body = list_verbs.list_body(RS, rest)
    assert (body["kind"], body["items"][0]["kind"]) == ("ReplicaSetList", "ReplicaSet")


def test_unsupported_verb_is_method_not_allowed() -> None:
    operations.require_verb(RS, "deletecollection")
    status = status_of(lambda: operations.require_verb(NAMESPACE, "deletecollection"))
    assert (status["code"], status["reason"]) == (405, "MethodNotAllowed")


def test_pinned_patch_on_a_stale_version_is_conflict(
    state: ServerState, make_rs: Callable[..., JSON]
) -> None:
    write_verbs.create_object(state, RS, "default", make_rs(), WRITE)
    patch = EncodedBody(b'{"metadata":{"resourceVersion":"999"}}', "application/merge-patch+json")
    status = status_of(lambda: write_verbs.patch_object(state, RS, "default", "web", patch, WRITE))
    assert (status["code"], status["reason"]) == (409, "Conflict")


def test_dry_run_update_changes_nothing(state: ServerState, make_rs: Callable[..., JSON]) -> None:
    created = write_verbs.create_object(state, RS, "default", make_rs(), WRITE).object
    changed = copy.deepcopy(created)
    changed["spec"]["replicas"] = 9
    dry = WriteOptions(dry_run=True, field_validation="Warn")
    assert (
        write_verbs.update_object(state, RS, "default", "web", changed, dry).object["spec"][
            "replicas"
        ]
        == 9
    )
    assert operations.get_object(state, RS, "default", "web") == created


def test_status_update_keeps_spec_and_takes_labels(
    state: ServerState, make_rs: Callable[..., JSON]
) -> None:
    created = write_verbs.create_object(state, RS, "default", make_rs(), WRITE).object
    body = copy.deepcopy(created)
    body["spec"]["replicas"] = 8
    body["metadata"]["labels"] = {"changed": "yes"}
    body["status"] = {"replicas": 2, "readyReplicas": 2}
    saved = operations_subresources.update_status(state, RS, "default", "web", body, WRITE).object
    assert saved["spec"] == created["spec"]
    # Upstream's ReplicaSet status strategy resets only the spec: metadata goes through.
    assert saved["metadata"]["labels"] == {"changed": "yes"}
    assert saved["status"]["readyReplicas"] == 2


@settings(max_examples=25, deadline=None)
@given(replicas=st.integers(min_value=0, max_value=10_000))
def test_scale_writes_round_trip_through_the_parent(replicas: int) -> None:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    local = ServerState(store=MemoryStore(clock), clock=clock)
    ensure_system_namespaces(local.store)
    parent = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }
    write_verbs.create_object(local, RS, "default", parent, WRITE)
    scale = operations_subresources.get_scale(local, RS, "default", "web")
    scale["spec"]["replicas"] = replicas
    written = operations_subresources.update_scale(local, RS, "default", "web", scale, WRITE)
    assert written.object["spec"]["replicas"] == replicas
    assert operations.get_object(local, RS, "default", "web")["spec"]["replicas"] == replicas
    assert operations_subresources.get_scale(local, RS, "default", "web") == written.object


def _event(kind: str, tier: str) -> WatchEvent:
    obj = {"metadata": {"namespace": "default", "name": "x", "labels": {"tier": tier}}}
    return WatchEvent(kind, obj, 5)  # type: ignore[arg-type]


def _web(obj: JSON) -> bool:
    return bool(obj["metadata"]["labels"].get("tier") == "web")
