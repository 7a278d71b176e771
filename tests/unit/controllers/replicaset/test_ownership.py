"""Adoption and release (``podscale.controllers.replicaset.ownership``)."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.controllers.replicaset import (
    adoption_patch,
    claim_action,
    classify_ownership,
    release_patch,
)
from podscale.controllers.replicaset.ownership import replica_sets_for_pod

RS_UID = "rs-uid"


def make_rs(*, deleting: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "web", "namespace": "default", "uid": RS_UID}
    if deleting:
        metadata["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    return {"metadata": metadata, "spec": {"selector": {"matchLabels": {"app": "web"}}}}


def ref(uid: str, *, controller: bool | None) -> dict[str, Any]:
    owner: dict[str, Any] = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "x", "uid": uid}
    if controller is not None:
        owner["controller"] = controller
    return owner


def make_pod(
    *,
    labels: dict[str, str] | None = None,
    refs: list[dict[str, Any]] | None = None,
    namespace: str = "default",
    deleting: bool = False,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": "p",
        "namespace": namespace,
        "uid": "pod-uid",
        "labels": {"app": "web"} if labels is None else labels,
    }
    if refs is not None:
        metadata["ownerReferences"] = refs
    if deleting:
        metadata["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    return {"metadata": metadata}


# The four ownerRef cases of upstream's adoption conformance test, plus label-driven release.
CASES = [
    (make_pod(), "orphan-match", "adopt"),
    (make_pod(refs=[ref(RS_UID, controller=False)]), "orphan-match", "adopt"),
    (make_pod(refs=[ref(RS_UID, controller=None)]), "orphan-match", "adopt"),
    (make_pod(refs=[ref(RS_UID, controller=True)]), "owned", "keep"),
    (make_pod(refs=[ref("other", controller=True)]), "other-controller", "ignore"),
    (
        make_pod(refs=[ref("other", controller=False), ref(RS_UID, controller=True)]),
        "owned",
        "keep",
    ),
    (
        make_pod(labels={"app": "db"}, refs=[ref(RS_UID, controller=True)]),
        "owned-no-longer-matching",
        "release",
    ),
    (make_pod(labels={"app": "db"}), "unrelated", "ignore"),
    (make_pod(labels={}), "unrelated", "ignore"),
    (make_pod(deleting=True), "unrelated", "ignore"),
    (make_pod(namespace="other"), "unrelated", "ignore"),
    (
        make_pod(labels={"app": "db"}, refs=[ref("other", controller=True)]),
        "other-controller",
        "ignore",
    ),
]
IDS = [
    "no-owner-refs",
    "owner-not-controller",
    "owner-controller-unset",
    "already-controller",
    "another-controller",
    "controller-among-other-owners",
    "labels-stopped-matching",
    "orphan-not-matching",
    "orphan-without-labels",
    "terminating-orphan",
    "orphan-in-other-namespace",
    "another-controller-not-matching",
]


@pytest.mark.parametrize(("pod", "ownership", "action"), CASES, ids=IDS)
def test_classify_and_claim(pod: dict[str, Any], ownership: str, action: str) -> None:
    assert classify_ownership(make_rs(), pod) == ownership
    assert claim_action(make_rs(), pod) == action


@pytest.mark.parametrize(
    ("pod", "action"),
    [
        (make_pod(), "ignore"),
        (make_pod(labels={"app": "db"}, refs=[ref(RS_UID, controller=True)]), "ignore"),
        (make_pod(refs=[ref(RS_UID, controller=True)]), "keep"),
    ],
    ids=["no-adoption", "no-release", "keeps-own-pods"],
)
def test_deleting_replica_set_neither_adopts_nor_releases(pod: dict[str, Any], action: str) -> None:
    assert claim_action(make_rs(deleting=True), pod) == action


def test_adoption_patch_sets_controller_ref_with_uid_precondition() -> None:
    patch = adoption_patch(make_rs(), make_pod())
    assert patch["metadata"]["uid"] == "pod-uid"
    (owner,) = patch["metadata"]["ownerReferences"]
    assert (owner["uid"], owner["controller"], owner["blockOwnerDeletion"]) == (RS_UID, True, True)


def test_release_patch_deletes_owner_ref_by_uid() -> None:
    patch = release_patch(make_rs(), make_pod())
    assert patch == {
        "metadata": {"ownerReferences": [{"$patch": "delete", "uid": RS_UID}], "uid": "pod-uid"}
    }


def selecting(name: str, selector: dict[str, Any] | None, ns: str = "default") -> dict[str, Any]:
    spec: dict[str, Any] = {} if selector is None else {"selector": selector}
    return {"metadata": {"name": name, "namespace": ns}, "spec": spec}


@pytest.mark.parametrize(
    ("labels", "replica_sets", "expected"),
    [
        (
            {"app": "web"},
            [
                selecting("match", {"matchLabels": {"app": "web"}}),
                selecting("expr", {"matchExpressions": [{"key": "app", "operator": "Exists"}]}),
                selecting("other", {"matchLabels": {"app": "db"}}),
            ],
            ["match", "expr"],
        ),
        ({"app": "web"}, [selecting("empty", {"matchLabels": {}})], []),
        ({"app": "web"}, [selecting("bare", {})], []),
        ({"app": "web"}, [selecting("none", None)], []),
        (
            {"app": "web"},
            [selecting("bad", {"matchExpressions": [{"key": "app", "operator": "Bogus"}]})],
            [],
        ),
        ({"app": "web"}, [selecting("elsewhere", {"matchLabels": {"app": "web"}}, "other")], []),
        ({}, [selecting("match", {"matchLabels": {"app": "web"}})], []),
    ],
    ids=[
        "matching-only",
        "empty-selector-matches-nothing",
        "bare-selector-matches-nothing",
        "missing-selector",
        "invalid-selector",
        "other-namespace",
        "pod-without-labels",
    ],
)
def test_replica_sets_for_pod(
    labels: dict[str, str], replica_sets: list[dict[str, Any]], expected: list[str]
) -> None:
    pod = {"metadata": {"name": "p", "namespace": "default", "labels": labels}}
    found = replica_sets_for_pod(pod, replica_sets)
    assert [rs["metadata"]["name"] for rs in found] == expected
