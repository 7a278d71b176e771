"""Store contract: create, get, update, delete, metadata and finalizers, on both backends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from podscale.store.engine import VersionedStore
from podscale.store.interface import (
    AlreadyExistsError,
    ConflictError,
    NotFoundError,
    Preconditions,
    StoreError,
)

Pod = Callable[..., dict[str, Any]]


def test_create_sets_owned_metadata_and_keeps_the_rest(
    store: VersionedStore, make_pod: Pod
) -> None:
    given = make_pod("web-1")
    given["metadata"]["annotations"] = {"x": "y"}
    given["unknownField"] = {"kept": [1, 2]}
    created = store.create("pods", given)
    meta = created["metadata"]
    assert meta["uid"] == "uid-1"
    assert meta["creationTimestamp"] == "2026-11-22T10:00:00Z"
    assert meta["resourceVersion"] == "1"
    assert "generation" not in meta, "generation is the writer's (the API server's strategy)"
    assert meta["annotations"] == {"x": "y"}
    assert created["unknownField"] == {"kept": [1, 2]}
    assert "uid" not in given["metadata"], "the caller's dict is not mutated"
    assert store.get("pods", "default", "web-1") == created
    assert store.revision == 1


def test_revisions_are_global_and_strictly_increasing(store: VersionedStore, make_pod: Pod) -> None:
    first = store.create("pods", make_pod("a"))
    rs = {"metadata": {"name": "a", "namespace": "default"}, "spec": {"replicas": 1}}
    second = store.create("replicasets.apps", rs)
    node = store.create("nodes", {"metadata": {"name": "n1"}})
    versions = [int(o["metadata"]["resourceVersion"]) for o in (first, second, node)]
    assert versions == [1, 2, 3]
    assert store.get("nodes", "", "n1")["metadata"]["resourceVersion"] == "3"


def test_resource_revision_moves_with_writes_to_that_resource_only(
    store: VersionedStore, make_pod: Pod
) -> None:
    assert store.resource_revision("pods") == 0
    store.create("pods", make_pod("a"))
    store.create("nodes", {"metadata": {"name": "n1"}})
    assert (store.resource_revision("pods"), store.resource_revision("nodes")) == (1, 2)
    store.update("nodes", {"metadata": {"name": "n1"}, "spec": {"unschedulable": True}})
    assert (store.resource_revision("pods"), store.resource_revision("nodes")) == (1, 3)
    store.delete("pods", "default", "a")
    assert (store.resource_revision("pods"), store.resource_revision("nodes")) == (4, 3)


@pytest.mark.parametrize(
    ("resource", "namespace"),
    [("pods", "default"), ("pods", "other"), ("replicasets.apps", "default")],
    ids=["same-key", "other-namespace", "other-resource"],
)
def test_already_exists_only_for_the_same_key(
    store: VersionedStore, make_pod: Pod, resource: str, namespace: str
) -> None:
    store.create("pods", make_pod("web"))
    if (resource, namespace) == ("pods", "default"):
        with pytest.raises(AlreadyExistsError, match=r'^pods "web" already exists$'):
            store.create(resource, make_pod("web", namespace))
        assert store.revision == 1
    else:
        store.create(resource, make_pod("web", namespace))
        assert store.revision == 2


def test_not_found_messages(store: VersionedStore, make_pod: Pod) -> None:
    with pytest.raises(NotFoundError, match=r'^replicasets.apps "web" not found$') as info:
        store.get("replicasets.apps", "default", "web")
    assert (info.value.resource, info.value.name) == ("replicasets.apps", "web")
    with pytest.raises(NotFoundError):
        store.update("pods", make_pod("web"))
    with pytest.raises(NotFoundError):
        store.delete("pods", "default", "web")


def test_object_without_name_is_refused(store: VersionedStore) -> None:
    with pytest.raises(StoreError, match=r"metadata\.name"):
        store.create("pods", {"metadata": {"namespace": "default"}})


def test_handed_out_objects_are_copies(store: VersionedStore, make_pod: Pod) -> None:
    created = store.create("pods", make_pod("web"))
    created["spec"]["containers"][0]["image"] = "changed"
    got = store.get("pods", "default", "web")
    assert got["spec"]["containers"][0]["image"] == "nginx"
    got["metadata"]["labels"]["app"] = "changed"
    store.list("pods").items[0]["metadata"]["name"] = "changed"
    assert store.get("pods", "default", "web")["metadata"]["labels"] == {"app": "web"}


def test_update_with_stale_version_conflicts(store: VersionedStore, make_pod: Pod) -> None:
    created = store.create("pods", make_pod("web"))
    fresh = dict(created, status={"phase": "Running"})
    store.update("pods", fresh)
    with pytest.raises(ConflictError) as info:
        store.update("pods", dict(created, status={"phase": "Failed"}))
    assert str(info.value) == (
        'Operation cannot be fulfilled on pods "web": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    assert store.get("pods", "default", "web")["status"] == {"phase": "Running"}


def test_unconditional_update_wins(store: VersionedStore, make_pod: Pod) -> None:
    store.create("pods", make_pod("web"))
    blind = make_pod("web")
    blind["status"] = {"phase": "Succeeded"}
    blind["metadata"]["uid"] = "forged"
    blind["metadata"]["creationTimestamp"] = "1999-01-01T00:00:00Z"
    updated = store.update("pods", blind)
    assert updated["status"] == {"phase": "Succeeded"}
    assert updated["metadata"]["uid"] == "uid-1", "uid is kept from the stored object"
    assert updated["metadata"]["creationTimestamp"] == "2026-11-22T10:00:00Z"
    assert updated["metadata"]["resourceVersion"] == "2"


@pytest.mark.parametrize(
    ("change", "generation"),
    [
        (lambda o: o["spec"].update(nodeName="n1"), 3),
        (lambda o: o.update(extra={"a": 1}), 3),
        (lambda o: o["status"].update(phase="Running"), 3),
        (lambda o: o["metadata"].update(generation=4), 4),
        (lambda o: o["metadata"].pop("generation"), 3),
    ],
    ids=["spec", "new-top-level-field", "status", "writer-sets-it", "left-out-keeps-stored"],
)
def test_generation_is_the_writers_and_defaults_to_the_stored_one(
    store: VersionedStore, make_pod: Pod, change: Callable[[dict[str, Any]], Any], generation: int
) -> None:
    pod = make_pod("web")
    pod["metadata"]["generation"] = 3
    obj = store.create("pods", pod)
    assert obj["metadata"]["generation"] == 3
    change(obj)
    assert store.update("pods", obj)["metadata"]["generation"] == generation


def test_an_object_created_without_generation_never_gets_one(
    store: VersionedStore,
) -> None:
    node = store.create("nodes", {"metadata": {"name": "n1"}, "spec": {}})
    node["spec"]["unschedulable"] = True
    updated = store.update("nodes", node)
    assert updated["spec"] == {"unschedulable": True}
    assert "generation" not in updated["metadata"]


def test_noop_update_keeps_the_revision(store: VersionedStore, make_pod: Pod) -> None:
    created = store.create("pods", make_pod("web"))
    assert store.update("pods", created) == created
    assert store.revision == 1


def test_delete_without_finalizers_removes(store: VersionedStore, make_pod: Pod) -> None:
    store.create("pods", make_pod("web"))
    result = store.delete("pods", "default", "web")
    assert result.deleted is True
    assert result.object["metadata"]["resourceVersion"] == "2"
    assert result.object["metadata"]["name"] == "web"
    with pytest.raises(NotFoundError):
        store.get("pods", "default", "web")
    store.create("pods", make_pod("web"))  # the name is free again
    assert store.get("pods", "default", "web")["metadata"]["uid"] == "uid-2"


@pytest.mark.parametrize(
    ("existing", "to_add", "expected"),
    [
        (["example.com/guard"], (), ["example.com/guard"]),
        ([], ("orphan",), ["orphan"]),
        ([], ("foregroundDeletion",), ["foregroundDeletion"]),
        (["orphan"], ("foregroundDeletion",), ["foregroundDeletion"]),
        (["a", "foregroundDeletion"], ("orphan",), ["a", "orphan"]),
        (["orphan"], ("orphan",), ["orphan"]),
    ],
    ids=[
        "existing",
        "orphan",
        "foreground",
        "foreground-replaces-orphan",
        "orphan-replaces",
        "dup",
    ],
)
def test_delete_with_finalizers_marks_once(
    store: VersionedStore,
    make_pod: Pod,
    clock: Any,
    existing: list[str],
    to_add: tuple[str, ...],
    expected: list[str],
) -> None:
    obj = make_pod("web")
    obj["metadata"]["finalizers"] = existing
    obj["metadata"]["generation"] = 1
    store.create("pods", obj)
    clock.advance(30)
    first = store.delete("pods", "default", "web", finalizers_to_add=to_add)
    assert first.deleted is False
    meta = first.object["metadata"]
    assert meta["finalizers"] == expected
    assert meta["deletionTimestamp"] == "2026-11-22T10:00:30Z"
    assert meta["deletionGracePeriodSeconds"] == 0
    assert meta["generation"] == 2
    assert meta["resourceVersion"] == "2"
    clock.advance(30)
    again = store.delete("pods", "default", "web", finalizers_to_add=to_add)
    assert again.deleted is False
    assert again.object == first.object, "a repeated delete writes nothing"
    assert store.revision == 2


def test_finalizers_flow_ends_in_deletion_by_update(store: VersionedStore, make_pod: Pod) -> None:
    obj = make_pod("web")
    obj["metadata"]["finalizers"] = ["a", "b"]
    store.create("pods", obj)
    marked = store.delete("pods", "default", "web").object
    marked["metadata"]["finalizers"] = ["b"]
    marked["metadata"].pop("deletionTimestamp")  # an update cannot undo a deletion
    kept = store.update("pods", marked)
    assert kept["metadata"]["deletionTimestamp"] == "2026-11-22T10:00:00Z"
    assert kept["metadata"]["deletionGracePeriodSeconds"] == 0
    kept["metadata"]["finalizers"] = []
    gone = store.update("pods", kept)
    assert gone["metadata"]["resourceVersion"] == "4"
    assert gone["metadata"]["finalizers"] == ["b"], "the last stored state, as upstream"
    with pytest.raises(NotFoundError):
        store.get("pods", "default", "web")


def test_update_dropping_finalizers_without_deletion_keeps_object(
    store: VersionedStore, make_pod: Pod
) -> None:
    obj = make_pod("web")
    obj["metadata"]["finalizers"] = ["a"]
    created = store.create("pods", obj)
    created["metadata"]["finalizers"] = []
    assert store.update("pods", created)["metadata"]["finalizers"] == []
    assert store.get("pods", "default", "web")["metadata"]["resourceVersion"] == "2"


@pytest.mark.parametrize(
    ("preconditions", "message"),
    [
        (
            Preconditions(uid="other"),
            "Precondition failed: UID in precondition: other, UID in object meta: uid-1",
        ),
        (
            Preconditions(resource_version="9"),
            "Precondition failed: ResourceVersion in precondition: 9, "
            "ResourceVersion in object meta: 1",
        ),
        (
            Preconditions(uid="other", resource_version="9"),
            "Precondition failed: UID in precondition: other, UID in object meta: uid-1",
        ),
    ],
    ids=["uid", "resource-version", "uid-checked-first"],
)
def test_failed_delete_preconditions_conflict(
    store: VersionedStore, make_pod: Pod, preconditions: Preconditions, message: str
) -> None:
    store.create("pods", make_pod("web"))
    with pytest.raises(ConflictError) as info:
        store.delete("pods", "default", "web", preconditions=preconditions)
    assert str(info.value) == f'Operation cannot be fulfilled on pods "web": {message}'
    assert store.get("pods", "default", "web")["metadata"]["resourceVersion"] == "1"


def test_matching_delete_preconditions_delete(store: VersionedStore, make_pod: Pod) -> None:
    store.create("pods", make_pod("web"))
    result = store.delete(
        "pods", "default", "web", preconditions=Preconditions(uid="uid-1", resource_version="1")
    )
    assert result.deleted is True


def test_writes_after_close_are_refused(store: VersionedStore, make_pod: Pod) -> None:
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.create("pods", make_pod("web"))
