"""A status update hands the store its own decoding of the object it replaces, with the same
outcome as the store decoding it again.

``current.read_current`` reads the stored bytes and serves them; when serving left the
object as those bytes decode, ``update_status`` passes both to ``Store.update`` as its
``current`` hint. Random status writes of several kinds (wrong types, kept metadata,
writes that change nothing) go to two identical servers, one of which never gets the hint:
the replies, the errors, the stored bytes and the resourceVersions must be the same, and the
served object must not change under the write. The table says when there is no hint.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from itertools import count
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.errors import ApiError
from podscale.apiserver.operations import subresources
from podscale.apiserver.operations.current import Current, read_current
from podscale.apiserver.operations.write_verbs import create_object
from podscale.apiserver.registry.admission import WriteOptions
from podscale.apiserver.resources import to_served
from podscale.apiserver.state import ServerState
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]

HPA: JSON = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "maxReplicas": 10,
    },
}
DEPLOYMENT: JSON = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]},
        },
    },
}
POD: JSON = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"containers": [{"name": "app", "image": "nginx"}]},
}
NODE: JSON = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "web"}}

_KEYS = {
    "HorizontalPodAutoscaler": ["currentReplicas", "desiredReplicas", "currentMetrics"],
    "Deployment": ["replicas", "readyReplicas", "observedGeneration"],
    "Pod": ["phase", "qosClass", "conditions"],
    "Node": ["capacity", "allocatable", "conditions"],
}
_VALUES = st.one_of(
    st.integers(-1, 3),
    st.sampled_from([1.5, True, None, "", "Running", [], {}, {"cpu": "2"}, "x"]),
    st.just([{"type": "Ready", "status": "True"}]),
)
_OPTIONS = WriteOptions(dry_run=False, field_validation="", field_manager="m")


def _state() -> ServerState:
    clock = FakeClock(datetime(2026, 1, 2, tzinfo=UTC))
    uids = count()
    store = MemoryStore(clock, new_uid=lambda: f"uid-{next(uids)}")
    store.create(
        "namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    )
    return ServerState(store=store, clock=clock)


def _namespace(info: KindInfo) -> str | None:
    return "default" if info.namespaced else None


def _outcome(state: ServerState, info: KindInfo, body: JSON) -> Any:
    try:
        written = subresources.update_status(
            state, info, _namespace(info), "web", copy.deepcopy(body), _OPTIONS
        )
    except ApiError as err:
        return ("error", err.code, orjson.dumps(err.status))
    return ("ok", orjson.dumps(written.object))


def _without_hint(state: ServerState, info: KindInfo, namespace: str | None, name: str) -> Current:
    return Current(read_current(state, info, namespace, name).old, None)


@settings(max_examples=80, deadline=None)
@given(
    template=st.sampled_from([HPA, DEPLOYMENT, POD, NODE]),
    edits=st.lists(st.tuples(st.integers(0, 2), _VALUES, st.booleans()), min_size=1, max_size=4),
)
def test_a_status_write_with_the_hint_is_the_one_without(
    template: JSON, edits: list[tuple[int, Any, bool]]
) -> None:
    info = kind_for(str(template["apiVersion"]), str(template["kind"]))
    hinted, plain = _state(), _state()
    for state in (hinted, plain):
        create_object(state, info, _namespace(info), copy.deepcopy(template), _OPTIONS)
    for index, value, repeat in edits:
        stored = read_current(hinted, info, _namespace(info), "web").old
        body = copy.deepcopy(stored)
        if not repeat:  # else the write changes nothing
            body.setdefault("status", {})[_KEYS[info.kind][index]] = copy.deepcopy(value)
        got = _outcome(hinted, info, body)
        with mock.patch.object(subresources, "read_current", _without_hint):
            expected = _outcome(plain, info, body)
        assert got == expected
        assert hinted.store.revision == plain.store.revision
        resource, namespace = _resource(info), _namespace(info) or ""
        stored_bytes = [s.store.get_encoded(resource, namespace, "web") for s in (hinted, plain)]
        assert stored_bytes[0] == stored_bytes[1]


def _resource(info: KindInfo) -> str:
    return subresources.storage_resource(info)


def test_the_served_object_is_left_as_read_under_the_write() -> None:
    state, info = _state(), kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
    created = create_object(state, info, "default", copy.deepcopy(HPA), _OPTIONS).object
    body = {**created, "status": {"currentReplicas": 2, "desiredReplicas": 3}}
    subresources.update_status(state, info, "default", "web", copy.deepcopy(body), _OPTIONS)
    state_read = read_current(state, info, "default", "web")
    body = {**copy.deepcopy(state_read.old), "status": {"currentReplicas": 3, "desiredReplicas": 3}}
    assert state_read.hint is not None
    before = orjson.dumps(state_read.old)
    with mock.patch.object(subresources, "read_current", return_value=state_read):
        subresources.update_status(state, info, "default", "web", copy.deepcopy(body), _OPTIONS)
    assert orjson.dumps(state_read.old) == before  # nothing wrote into it: the hint held


@pytest.mark.parametrize(
    ("api_version", "status", "hinted"),
    [
        ("autoscaling/v2", {"currentReplicas": 1, "desiredReplicas": 1}, True),
        ("autoscaling/v2", {"currentReplicas": 1}, False),  # serving adds desiredReplicas
        ("autoscaling/v2", None, False),  # serving adds a status
        ("autoscaling/v1", {"currentReplicas": 1, "desiredReplicas": 1}, False),  # converted
    ],
    ids=["as-stored", "defaulted-when-served", "no-status", "other-version"],
)
def test_the_hint_is_given_only_for_an_object_served_as_stored(
    api_version: str, status: JSON | None, hinted: bool
) -> None:
    state = _state()
    stored = copy.deepcopy(HPA)
    if status is not None:
        stored["status"] = status
    state.store.create(_resource(kind_for("autoscaling/v2", "HorizontalPodAutoscaler")), stored)
    info = kind_for(api_version, "HorizontalPodAutoscaler")
    current = read_current(state, info, "default", "web")
    assert (current.hint is not None) == hinted
    if current.hint is not None:
        assert current.hint[1] is current.old
        assert orjson.loads(current.hint[0]) == current.old


def _object(api_version: str, kind: str, status: Any) -> JSON:
    namespaced = kind not in ("Node", "Namespace")
    meta: JSON = {"name": "obj", **({"namespace": "default"} if namespaced else {})}
    obj: JSON = {"apiVersion": api_version, "kind": kind, "metadata": meta}
    if status is not _ABSENT:
        obj["status"] = status
    return obj


_ABSENT = object()


@pytest.mark.parametrize(
    ("stored_as", "served_as", "kind", "status"),
    [
        ("v1", "v1", "ConfigMap", _ABSENT),
        ("v1", "v1", "Pod", {"phase": "Running"}),
        ("v1", "v1", "Pod", _ABSENT),
        ("apps/v1", "apps/v1", "ReplicaSet", {"replicas": 2}),
        ("apps/v1", "apps/v1", "ReplicaSet", {"readyReplicas": 2}),
        ("apps/v1", "apps/v1", "ReplicaSet", _ABSENT),
        ("apps/v1", "apps/v1", "ReplicaSet", "x"),
        ("apps/v1", "apps/v1", "ReplicaSet", []),
        ("v1", "v1", "Service", {"loadBalancer": {}}),
        ("v1", "v1", "Service", {}),
        ("autoscaling/v2", "autoscaling/v2", "HorizontalPodAutoscaler", {"currentReplicas": 0}),
        (
            "autoscaling/v2", "autoscaling/v1", "HorizontalPodAutoscaler",
            {"currentReplicas": 0, "desiredReplicas": 0},
        ),
        ("v1", "events.k8s.io/v1", "Event", _ABSENT),
        ("v1", "v1", "Node", {"phase": "Running"}),
    ],
    ids=[
        "configmap", "pod", "pod-without-status", "replicaset", "replicaset-filled-in",
        "replicaset-without-status", "replicaset-string-status", "replicaset-list-status",
        "service", "service-filled-in", "hpa-filled-in", "hpa-converted", "event-converted",
        "node",
    ],
)  # fmt: skip
def test_the_hint_is_given_exactly_when_serving_leaves_the_stored_bytes(
    stored_as: str, served_as: str, kind: str, status: Any
) -> None:
    state = _state()
    stored_info, info = kind_for(stored_as, kind), kind_for(served_as, kind)
    resource = _resource(stored_info)
    namespace = "default" if stored_info.namespaced else ""
    state.store.create(resource, _object(stored_as, kind, status))
    data = state.store.get_encoded(resource, namespace, "obj")
    served_alike = orjson.dumps(to_served(orjson.loads(data), info)) == data
    current = read_current(state, info, namespace or None, "obj")
    assert (current.hint is not None) == served_alike
    if current.hint is not None:
        assert current.hint == (data, current.old)
        assert current.hint[1] is current.old


def _status_writes(state: ServerState, dry_runs: list[bool], scribble: bool) -> list[JSON]:
    """HPA status writes, 15 s apart, each changing the status; a dry run's answer has its
    managedFields scribbled over when ``scribble``. The stored managedFields after each."""
    info = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
    create_object(state, info, "default", copy.deepcopy(HPA), _OPTIONS)
    stored = []
    for index, dry_run in enumerate(dry_runs):
        assert isinstance(state.clock, FakeClock)
        state.clock.advance(15)
        current = state.store.get(_resource(info), "default", "web")
        body = {**current, "status": {"currentReplicas": index % 2, "desiredReplicas": 1}}
        options = WriteOptions(dry_run=dry_run, field_validation="", field_manager="kcm")
        written = subresources.update_status(state, info, "default", "web", body, options)
        if dry_run and scribble:
            for entry in written.object["metadata"]["managedFields"]:
                entry["time"] = "1999-01-01T00:00:00Z"
                entry["fieldsV1"].clear()
        stored.append(state.store.get(_resource(info), "default", "web")["metadata"])
    return stored


def test_a_dry_run_answer_owns_its_managed_fields() -> None:
    """Status writes store entries that kept settlements share; a dry run answers with the
    object it made, whose entries a client may change: none of it may reach a later write."""
    dry_runs = [False, False, True, False, True, True, False, False]
    scribbled = _status_writes(_state(), dry_runs, scribble=True)
    untouched = _status_writes(_state(), dry_runs, scribble=False)
    assert scribbled == untouched
    assert scribbled[-1]["managedFields"][-1]["time"] == "2026-01-02T00:02:00Z"
