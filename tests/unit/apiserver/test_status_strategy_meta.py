"""Per-kind metadata rules of the main and status update strategies, and generation.

Upstream's status strategies keep the stored spec, and only some metadata: Deployments their
labels, Pods their owner references (and deletion timestamp); every other kind's status write
may change labels, annotations, finalizers and owner references. Generation starts at 1 and
moves on spec changes for workloads and Pods only (Deployments also on annotation changes);
status writes, HPAs, Nodes and Namespaces never move it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.errors import ApiError
from podscale.apiserver.operations import (
    binding as operations_binding,
)
from podscale.apiserver.operations import (
    subresources as operations_subresources,
)
from podscale.apiserver.operations import (
    verbs as operations,
)
from podscale.apiserver.operations import write_verbs
from podscale.apiserver.operations.types import EncodedBody
from podscale.apiserver.registry.admission import WriteOptions
from podscale.apiserver.registry.bootstrap import ensure_system_namespaces
from podscale.apiserver.registry.strategy import prepare_for_status_update, prepare_for_update
from podscale.apiserver.state import ServerState
from podscale.store.memory import MemoryStore

JSON = dict[str, Any]
WRITE = WriteOptions(dry_run=False, field_validation="Strict")
MERGE = "application/merge-patch+json"
OWNER = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "owner-uid"}


def _template(app: str) -> JSON:
    return {
        "metadata": {"labels": {"app": app}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]},
    }


def _workload(kind: str) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": _template("web"),
        },
    }


def _hpa() -> JSON:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "maxReplicas": 5,
        },
    }


def _pod() -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]},
    }


def _cluster(kind: str) -> JSON:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": "web", "labels": {"a": "b"}}}


BUILDERS: dict[str, tuple[KindInfo, Callable[[], JSON]]] = {
    "Deployment": (kind_for("apps/v1", "Deployment"), lambda: _workload("Deployment")),
    "ReplicaSet": (kind_for("apps/v1", "ReplicaSet"), lambda: _workload("ReplicaSet")),
    "StatefulSet": (kind_for("apps/v1", "StatefulSet"), lambda: _workload("StatefulSet")),
    "HorizontalPodAutoscaler": (kind_for("autoscaling/v2", "HorizontalPodAutoscaler"), _hpa),
    "Pod": (kind_for("v1", "Pod"), _pod),
    "Node": (kind_for("v1", "Node"), lambda: _cluster("Node")),
    "Namespace": (kind_for("v1", "Namespace"), lambda: _cluster("Namespace")),
}
KINDS = list(BUILDERS)


@pytest.fixture
def state(store: MemoryStore, clock: Any) -> ServerState:
    ensure_system_namespaces(store)
    return ServerState(store=store, clock=clock)


def _scope(info: KindInfo) -> str | None:
    return "default" if info.namespaced else None


def _create(state: ServerState, kind: str) -> tuple[KindInfo, JSON]:
    info, build = BUILDERS[kind]
    return info, write_verbs.create_object(state, info, _scope(info), build(), WRITE).object


def _update(state: ServerState, info: KindInfo, body: JSON, *, status: bool = False) -> JSON:
    write = operations_subresources.update_status if status else write_verbs.update_object
    return write(state, info, _scope(info), "web", body, WRITE).object


# -- status writes: what each kind's status strategy keeps --------------------------------

_META_CHANGES: dict[str, Callable[[JSON], None]] = {
    "labels": lambda meta: meta.update(labels={"changed": "yes"}),
    "annotations": lambda meta: meta.update(annotations={"example.com/note": "x"}),
    "finalizers": lambda meta: meta.update(finalizers=["example.com/guard"]),
    "ownerReferences": lambda meta: meta.update(ownerReferences=[dict(OWNER)]),
}
# Upstream status strategies that keep a metadata field from the stored object.
_KEPT_ON_STATUS = {("Deployment", "labels"), ("Pod", "ownerReferences")}


@pytest.mark.parametrize(
    ("kind", "field"),
    [(kind, field) for kind in KINDS for field in _META_CHANGES],
    ids=[f"{kind}-{field}" for kind in KINDS for field in _META_CHANGES],
)
def test_status_write_keeps_or_takes_metadata_per_kind(
    state: ServerState, kind: str, field: str
) -> None:
    info, created = _create(state, kind)
    body = copy.deepcopy(created)
    _META_CHANGES[field](body["metadata"])
    saved = _update(state, info, body, status=True)
    if (kind, field) in _KEPT_ON_STATUS:
        assert saved["metadata"].get(field) == created["metadata"].get(field)
    elif field == "labels":
        # Namespaces also carry their defaulted kubernetes.io/metadata.name label.
        assert body["metadata"]["labels"].items() <= saved["metadata"]["labels"].items()
        assert "app" not in saved["metadata"]["labels"]
    else:
        assert saved["metadata"][field] == body["metadata"][field]
    assert saved["metadata"].get("generation") == created["metadata"].get("generation")


_SPEC_CHANGES: dict[str, Callable[[JSON], None]] = {
    "Deployment": lambda spec: spec.update(replicas=7),
    "ReplicaSet": lambda spec: spec.update(replicas=7),
    "StatefulSet": lambda spec: spec.update(replicas=7),
    "HorizontalPodAutoscaler": lambda spec: spec.update(maxReplicas=9),
    "Pod": lambda spec: spec["containers"][0].update(image="nginx:1.27"),
    "Node": lambda spec: spec.update(unschedulable=True),
    "Namespace": lambda spec: spec.update(finalizers=[]),
}


@pytest.mark.parametrize("kind", KINDS, ids=KINDS)
def test_status_write_keeps_the_spec_and_generation(state: ServerState, kind: str) -> None:
    info, created = _create(state, kind)
    body = copy.deepcopy(created)
    _SPEC_CHANGES[kind](body.setdefault("spec", {}))
    saved = _update(state, info, body, status=True)
    assert saved.get("spec") == created.get("spec")
    assert saved["metadata"].get("generation") == created["metadata"].get("generation")


def test_deployment_revision_annotation_is_written_with_status(state: ServerState) -> None:
    info, created = _create(state, "Deployment")
    body = copy.deepcopy(created)
    body["metadata"]["annotations"] = {"deployment.kubernetes.io/revision": "1"}
    body["status"] = {"observedGeneration": 1, "replicas": 0}
    saved = _update(state, info, body, status=True)
    assert saved["metadata"]["annotations"] == {"deployment.kubernetes.io/revision": "1"}
    assert saved["metadata"]["generation"] == 1, "a status write never bumps generation"
    assert saved["status"]["observedGeneration"] == 1


def test_status_patch_follows_the_same_rules(state: ServerState) -> None:
    info, _ = _create(state, "Deployment")
    patch = b'{"metadata":{"labels":{"x":"y"},"annotations":{"a":"b"}},"spec":{"replicas":9}}'
    saved = operations_subresources.patch_status(
        state, info, "default", "web", EncodedBody(patch, MERGE), WRITE
    ).object
    assert saved["metadata"]["labels"] == {"app": "web"}
    assert saved["metadata"]["annotations"] == {"a": "b"}
    assert (saved["spec"]["replicas"], saved["metadata"]["generation"]) == (2, 1)


@pytest.mark.parametrize(
    ("kind", "rejected"),
    [("Pod", False), ("ReplicaSet", True), ("Deployment", True)],
    ids=["pod-drops-it", "replicaset-immutable", "deployment-immutable"],
)
def test_status_write_cannot_set_a_deletion_timestamp(
    state: ServerState, kind: str, rejected: bool
) -> None:
    info, created = _create(state, kind)
    body = copy.deepcopy(created)
    body["metadata"]["deletionTimestamp"] = "2026-01-02T03:04:05Z"
    if not rejected:
        assert "deletionTimestamp" not in _update(state, info, body, status=True)["metadata"]
        return
    with pytest.raises(ApiError) as caught:
        _update(state, info, body, status=True)
    cause = caught.value.status["details"]["causes"][0]
    assert (cause["field"], cause["message"]) == (
        "metadata.deletionTimestamp",
        'Invalid value: "2026-01-02T03:04:05Z": field is immutable',
    )


# -- main updates and generation ----------------------------------------------------------

_CREATED_GENERATION = {
    "Deployment": 1,
    "ReplicaSet": 1,
    "StatefulSet": 1,
    "Pod": 1,
    "HorizontalPodAutoscaler": None,
    "Node": None,
    "Namespace": None,
}


@pytest.mark.parametrize("kind", KINDS, ids=KINDS)
def test_created_generation_per_kind(state: ServerState, kind: str) -> None:
    _, created = _create(state, kind)
    assert created["metadata"].get("generation") == _CREATED_GENERATION[kind]


def _annotate(obj: JSON) -> None:
    obj["metadata"]["annotations"] = {"example.com/note": "x"}


def _relabel(obj: JSON) -> None:
    obj["metadata"]["labels"] = {**obj["metadata"]["labels"], "tier": "front"}


def _respec(obj: JSON) -> None:
    _SPEC_CHANGES[obj["kind"]](obj.setdefault("spec", {}))


_GENERATION_CASES: list[tuple[str, str, Callable[[JSON], None], int | None]] = [
    ("Deployment", "spec", _respec, 2),
    ("Deployment", "annotations", _annotate, 2),
    ("Deployment", "labels", _relabel, 1),
    ("ReplicaSet", "spec", _respec, 2),
    ("ReplicaSet", "annotations", _annotate, 1),
    ("StatefulSet", "spec", _respec, 2),
    ("StatefulSet", "annotations", _annotate, 1),
    ("Pod", "spec", _respec, 2),
    ("Pod", "annotations", _annotate, 1),
    ("HorizontalPodAutoscaler", "spec", _respec, None),
    ("Node", "spec", _respec, None),
    ("Namespace", "labels", _relabel, None),
]


@pytest.mark.parametrize(
    ("kind", "change", "expected"),
    [(kind, change, expected) for kind, _, change, expected in _GENERATION_CASES],
    ids=[f"{kind}-{what}" for kind, what, _, _ in _GENERATION_CASES],
)
def test_main_update_moves_generation_per_kind(
    state: ServerState, kind: str, change: Callable[[JSON], None], expected: int | None
) -> None:
    info, created = _create(state, kind)
    body = copy.deepcopy(created)
    change(body)
    assert body != created
    assert _update(state, info, body)["metadata"].get("generation") == expected


def test_forged_generation_on_update_is_ignored(state: ServerState) -> None:
    info, created = _create(state, "ReplicaSet")
    body = copy.deepcopy(created)
    body["metadata"]["generation"] = 40
    body["metadata"]["labels"] = {"app": "web", "tier": "front"}
    updated = _update(state, info, body)
    assert updated["metadata"]["generation"] == 1
    updated["metadata"]["generation"] = 40
    updated["metadata"]["labels"] = {"app": "web"}
    assert _update(state, info, updated, status=True)["metadata"]["generation"] == 1


def test_undefaulted_spec_and_empty_annotations_are_no_change(state: ServerState) -> None:
    """Upstream compares defaulted specs semantically: a client that leaves out defaulted
    fields, or sends ``annotations: {}`` for none, changes nothing."""
    info, created = _create(state, "Deployment")
    body = _workload("Deployment")
    body["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    body["metadata"]["annotations"] = {}
    assert _update(state, info, body)["metadata"]["generation"] == 1


def test_scale_write_bumps_the_parent_generation(state: ServerState) -> None:
    info, _ = _create(state, "Deployment")
    patch = EncodedBody(b'{"spec":{"replicas":5}}', MERGE)
    operations_subresources.patch_scale(state, info, "default", "web", patch, WRITE)
    parent = operations.get_object(state, info, "default", "web")
    assert (parent["spec"]["replicas"], parent["metadata"]["generation"]) == (5, 2)


# -- the pure strategy functions --------------------------------------------------------


def test_pod_status_write_keeps_qos_and_observed_generations() -> None:
    old: JSON = {
        "kind": "Pod",
        "metadata": {"name": "p", "generation": 2, "ownerReferences": [OWNER]},
        "spec": {"containers": []},
        "status": {
            "qosClass": "Burstable",
            "observedGeneration": 2,
            "conditions": [
                {"type": "Ready", "status": "False", "observedGeneration": 1},
                {"type": "Ready", "status": "False", "observedGeneration": 2},
            ],
        },
    }
    new: JSON = {
        "kind": "Pod",
        "metadata": {"name": "p", "deletionTimestamp": "2026-01-01T00:00:00Z"},
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": "Ready", "status": "True", "observedGeneration": 2},
                {"type": "Ready", "status": "True"},
                {"type": "Initialized", "status": "True"},
            ],
        },
    }
    prepare_for_status_update(new, old)
    assert new["metadata"] == {"name": "p", "generation": 2, "ownerReferences": [OWNER]}
    assert new["spec"] == {"containers": []}
    assert new["status"]["qosClass"] == "Burstable"
    assert new["status"]["observedGeneration"] == 2
    generations = [c.get("observedGeneration") for c in new["status"]["conditions"]]
    assert generations == [2, 2, None], "matched per type, in order"


@given(
    generation=st.one_of(st.none(), st.integers(min_value=0, max_value=50)),
    forged=st.one_of(st.none(), st.integers(min_value=0, max_value=50)),
    kind=st.sampled_from(KINDS),
    spec_changed=st.booleans(),
)
def test_update_generation_is_the_stored_one_or_one_more(
    generation: int | None, forged: int | None, kind: str, spec_changed: bool
) -> None:
    old: JSON = {"kind": kind, "metadata": {"name": "x"}, "spec": {"replicas": 1}}
    if generation is not None:
        old["metadata"]["generation"] = generation
    new = copy.deepcopy(old)
    if forged is not None:
        new["metadata"]["generation"] = forged
    if spec_changed:
        new["spec"]["replicas"] = 2
    prepare_for_update(new, old)
    bumps = spec_changed and kind in ("Deployment", "ReplicaSet", "StatefulSet", "Pod")
    if bumps:
        assert new["metadata"]["generation"] == (generation or 0) + 1
    else:
        assert new["metadata"].get("generation") == generation


def test_binding_sets_the_node_without_moving_generation(state: ServerState) -> None:
    """Upstream binds through storage directly, outside the Pod strategy: no bump."""
    info, _ = _create(state, "Pod")
    binding = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "web"},
        "target": {"kind": "Node", "name": "n1"},
    }
    operations_binding.create_binding(state, info, "default", "web", binding, WRITE)
    pod = operations.get_object(state, info, "default", "web")
    assert (pod["spec"]["nodeName"], pod["metadata"]["generation"]) == ("n1", 1)
