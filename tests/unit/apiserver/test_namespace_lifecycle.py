"""Namespace lifecycle through the in-process API: the NamespaceLifecycle admission rules
(missing, Terminating, immortal namespaces), the namespace strategy (Active, the
``kubernetes`` finalizer), deletion (Terminating, then gone once finalized), ``/finalize``
and metadata finalizers, each with upstream's Status."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest

from podscale.api.kinds import kind_for
from podscale.apiserver.errors import ApiError as ServerError
from podscale.apiserver.registry.namespace_lifecycle import IMMORTAL_NAMESPACES, admit, decide
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
T = TypeVar("T")
NAMESPACE = kind_for("v1", "Namespace")
POD = kind_for("v1", "Pod")
RS = kind_for("apps/v1", "ReplicaSet")
DEPLOYMENT = kind_for("apps/v1", "Deployment")
NODE = kind_for("v1", "Node")
START = datetime(2026, 4, 1, tzinfo=UTC)


def run(coro: Awaitable[T]) -> T:
    async def wrapper() -> T:
        return await coro

    return asyncio.run(wrapper())


def make_api() -> InProcessApi:
    clock = FakeClock(START)
    return InProcessApi.for_store(MemoryStore(clock), clock)


def error_of(coro: Awaitable[Any]) -> JSON:
    with pytest.raises(ApiError) as caught:
        run(coro)
    return caught.value.body


def pod(name: str = "p", namespace: str = "shop", **meta: Any) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, **meta},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def namespace(name: str = "shop", **spec: Any) -> JSON:
    return {"metadata": {"name": name}, "spec": spec}


@pytest.mark.parametrize(
    ("spec", "finalizers"),
    [({}, ["kubernetes"]), ({"finalizers": ["a.io/x"]}, ["a.io/x", "kubernetes"])],
    ids=["defaulted", "appended"],
)
def test_a_new_namespace_is_active_with_the_kubernetes_finalizer(
    spec: JSON, finalizers: list[str]
) -> None:
    api = make_api()
    created = run(api.create(NAMESPACE, None, {**namespace(**spec), "status": {"phase": "X"}}))
    assert created["spec"]["finalizers"] == finalizers
    assert created["status"] == {"phase": "Active"}


def test_the_system_namespaces_exist_from_the_start() -> None:
    names = [n["metadata"]["name"] for n in run(make_api().list(NAMESPACE))["items"]]
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]


def test_creating_in_a_missing_namespace_is_the_namespace_s_not_found() -> None:
    body = error_of(make_api().create(POD, "nope", pod(namespace="nope")))
    assert body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'namespaces "nope" not found',
        "reason": "NotFound",
        "details": {"name": "nope", "kind": "namespaces"},
        "code": 404,
    }


def test_creating_in_a_terminating_namespace_is_forbidden_with_its_cause() -> None:
    api = make_api()
    run(api.create(NAMESPACE, None, namespace()))
    run(api.delete(NAMESPACE, None, "shop"))
    body = error_of(api.create(POD, "shop", pod(name="", generateName="web-")))
    assert body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'pods "web-" is forbidden: unable to create new content in namespace shop '
        "because it is being terminated",
        "reason": "Forbidden",
        "details": {
            "name": "web-",
            "kind": "pods",
            "causes": [
                {
                    "reason": "NamespaceTerminating",
                    "message": "namespace shop is being terminated",
                    "field": "metadata.namespace",
                }
            ],
        },
        "code": 403,
    }


def test_a_terminating_namespace_still_takes_updates_and_deletes() -> None:
    api = make_api()
    run(api.create(NAMESPACE, None, namespace()))
    run(api.create(POD, "shop", pod()))
    run(api.delete(NAMESPACE, None, "shop"))
    patched = run(api.patch(POD, "shop", "p", {"metadata": {"labels": {"a": "b"}}}))
    assert patched["metadata"]["labels"] == {"a": "b"}
    run(api.delete(POD, "shop", "p"))


@pytest.mark.parametrize("name", sorted(IMMORTAL_NAMESPACES))
def test_system_namespaces_cannot_be_deleted(name: str) -> None:
    body = error_of(make_api().delete(NAMESPACE, None, name))
    assert (body["code"], body["reason"], body["message"]) == (
        403,
        "Forbidden",
        f'namespaces "{name}" is forbidden: this namespace may not be deleted',
    )
    assert body["details"] == {"name": name, "kind": "namespaces"}


def test_kube_node_lease_is_not_immortal() -> None:
    marked = run(make_api().delete(NAMESPACE, None, "kube-node-lease"))
    assert marked["status"]["phase"] == "Terminating"


def test_delete_marks_terminating_and_finalize_lets_it_go() -> None:
    api = make_api()
    run(api.create(NAMESPACE, None, namespace()))
    marked = run(api.delete(NAMESPACE, None, "shop"))
    assert marked["kind"] == "Namespace"
    assert marked["status"]["phase"] == "Terminating"
    assert marked["metadata"]["deletionTimestamp"] == "2026-04-01T00:00:00Z"
    assert "deletionGracePeriodSeconds" not in marked["metadata"]
    # A second delete changes nothing while spec.finalizers is set.
    assert run(api.delete(NAMESPACE, None, "shop")) == marked
    # An ordinary update cannot drop spec.finalizers, nor the phase.
    kept = run(api.update(NAMESPACE, None, {**marked, "spec": {"finalizers": []}}))
    assert kept["spec"]["finalizers"] == ["kubernetes"]
    assert kept["status"]["phase"] == "Terminating"
    finalized = {**kept, "spec": {"finalizers": []}}
    run(api.update(NAMESPACE, None, finalized, "finalize"))
    assert error_of(api.get(NAMESPACE, None, "shop"))["code"] == 404


def test_finalize_without_deletion_only_changes_the_finalizers() -> None:
    api = make_api()
    created = run(api.create(NAMESPACE, None, namespace()))
    body = {**created, "spec": {"finalizers": ["a.io/x"]}, "status": {"phase": "Terminating"}}
    written = run(api.update(NAMESPACE, None, body, "finalize"))
    assert (written["spec"]["finalizers"], written["status"]["phase"]) == (["a.io/x"], "Active")


def test_finalize_validates_finalizer_names_by_index() -> None:
    api = make_api()
    created = run(api.create(NAMESPACE, None, namespace()))
    body = {**created, "spec": {"finalizers": ["kubernetes", "custom"]}}
    err = error_of(api.update(NAMESPACE, None, body, "finalize"))
    assert err["code"] == 422
    assert err["details"]["causes"][0]["field"] == "spec.finalizers[1]"
    assert "neither a standard finalizer name nor is it fully qualified" in err["message"]


def test_finalize_takes_no_other_verb() -> None:
    api = make_api()
    run(api.create(NAMESPACE, None, namespace()))
    err = error_of(api.patch(NAMESPACE, None, "shop", {"spec": {}}, subresource="finalize"))
    assert err["code"] == 405


def test_metadata_finalizers_keep_a_finalized_namespace_until_removed() -> None:
    api = make_api()
    run(api.create(NAMESPACE, None, namespace()))
    marked = run(api.delete(NAMESPACE, None, "shop", propagation="Orphan"))
    assert marked["metadata"]["finalizers"] == ["orphan"]
    finalized = run(api.update(NAMESPACE, None, {**marked, "spec": {"finalizers": []}}, "finalize"))
    assert finalized["metadata"]["finalizers"] == ["orphan"]
    run(
        api.update(
            NAMESPACE, None, {**finalized, "metadata": {**finalized["metadata"], "finalizers": []}}
        )
    )
    assert error_of(api.get(NAMESPACE, None, "shop"))["code"] == 404


def test_a_namespace_without_spec_finalizers_goes_at_once() -> None:
    api = make_api()
    created = run(api.create(NAMESPACE, None, namespace()))
    run(api.update(NAMESPACE, None, {**created, "spec": {"finalizers": []}}, "finalize"))
    gone = run(api.delete(NAMESPACE, None, "shop"))
    assert gone["kind"] == "Namespace"  # namespaces return the deleted object
    assert error_of(api.get(NAMESPACE, None, "shop"))["code"] == 404


def test_a_stale_uid_precondition_is_a_conflict() -> None:
    from podscale.store.interface import Preconditions

    api = make_api()
    run(api.create(NAMESPACE, None, namespace()))
    err = error_of(api.delete(NAMESPACE, None, "shop", preconditions=Preconditions(uid="x")))
    assert err["code"] == 409
    assert "Precondition failed: UID in precondition: x" in err["message"]


@pytest.mark.parametrize(
    ("kind", "operation", "namespace_name", "stored", "code"),
    [
        (POD, "create", "shop", None, 404),
        (POD, "update", "shop", None, 404),
        (POD, "delete", "shop", None, None),
        (POD, "create", "shop", {"status": {"phase": "Active"}}, None),
        (POD, "create", "shop", {"status": {"phase": "Terminating"}}, 403),
        (POD, "update", "shop", {"status": {"phase": "Terminating"}}, None),
        (NODE, "create", None, None, None),
        (NAMESPACE, "create", None, None, None),
        (NAMESPACE, "delete", None, None, None),
    ],
    ids=[
        "create-missing",
        "update-missing",
        "delete-missing",
        "create-active",
        "create-terminating",
        "update-terminating",
        "cluster-scoped",
        "namespace-create",
        "namespace-delete",
    ],
)
def test_decide(
    kind: Any, operation: Any, namespace_name: str | None, stored: JSON | None, code: int | None
) -> None:
    verdict = decide(kind, operation, namespace_name, "x", stored)
    assert (verdict.code if verdict is not None else None) == code


@pytest.mark.parametrize(
    ("stored", "info", "operation"),
    [
        ({"metadata": {"name": "shop"}, "status": {"phase": "Active"}}, POD, "update"),
        ({"metadata": {"name": "shop"}, "status": {"phase": "Terminating"}}, POD, "update"),
        (None, POD, "update"),
        (None, DEPLOYMENT, "update"),
        ({"metadata": {"name": "shop"}, "status": {"phase": "Terminating"}}, POD, "create"),
        (None, POD, "create"),
        (None, NODE, "update"),
        (None, NAMESPACE, "update"),
        (None, POD, "delete"),
    ],
    ids=[
        "update-in-active",
        "update-in-terminating",
        "update-in-missing",
        "update-in-missing-apps",
        "create-in-terminating",
        "create-in-missing",
        "cluster-kind",
        "namespace-kind",
        "delete",
    ],
)
def test_admit_reads_what_decide_needs_and_decides_alike(
    stored: JSON | None, info: Any, operation: Any
) -> None:
    # An update only asks the store whether the namespace exists (no decode): the verdict
    # must be decide's over the whole stored namespace, whatever its phase.
    api = make_api()
    if stored is not None:
        api.state.store.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", **stored})
    expected = decide(info, operation, "shop", "p", stored)
    if expected is None:
        admit(api.state, info, operation, "shop", "p")
        return
    with pytest.raises(ServerError) as caught:
        admit(api.state, info, operation, "shop", "p")
    assert caught.value.status == expected.status
