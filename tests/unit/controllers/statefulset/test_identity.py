"""Pod identity: ordinals from names, ordinal ranges, identity labels, new pod bodies."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.statefulset.identity import (
    POD_INDEX_LABEL,
    POD_NAME_LABEL,
    REVISION_LABEL,
    identity_matches,
    in_ordinal_range,
    is_member,
    new_stateful_pod,
    parent_and_ordinal,
    with_identity,
)

from .builders import make_pod, make_sts


def named(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default"}}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("web-0", ("web", 0)),
        ("web-12", ("web", 12)),
        ("my-web-3", ("my-web", 3)),
        ("web-007", ("web", 7)),
        ("web", ("", -1)),
        ("web-x", ("", -1)),
        ("web-", ("", -1)),
        ("web-2147483647", ("web", 2147483647)),
        ("web-2147483648", ("web", -1)),
    ],
    ids=[
        "zero",
        "two-digits",
        "dashed-parent",
        "leading-zeros",
        "no-dash",
        "not-a-number",
        "empty-ordinal",
        "int32-max",
        "int32-overflow",
    ],
)
def test_parent_and_ordinal_read_from_the_name(name: str, expected: tuple[str, int]) -> None:
    assert parent_and_ordinal(named(name)) == expected


@pytest.mark.parametrize(
    ("name", "start", "replicas", "inside"),
    [
        ("web-0", None, 3, True),
        ("web-2", None, 3, True),
        ("web-3", None, 3, False),
        ("web-0", None, 0, False),
        ("web-4", 5, 2, False),
        ("web-5", 5, 2, True),
        ("web-6", 5, 2, True),
        ("web-7", 5, 2, False),
        ("web", None, 3, False),
    ],
    ids=[
        "first",
        "last",
        "past-end",
        "scaled-to-zero",
        "below-start",
        "start",
        "end-from-start",
        "past-end-from-start",
        "no-ordinal",
    ],
)
def test_ordinal_range_honours_ordinals_start(
    name: str, start: int | None, replicas: int, inside: bool
) -> None:
    extra = {} if start is None else {"ordinals": {"start": start}}
    assert in_ordinal_range(named(name), make_sts(replicas, **extra)) is inside


@pytest.mark.parametrize(
    ("name", "member"),
    [("web-1", True), ("web-x-1", False), ("webapp-1", False), ("web1", False)],
    ids=["member", "other-parent", "prefix-only", "no-dash"],
)
def test_membership_is_by_name_only(name: str, member: bool) -> None:
    assert is_member(make_sts(), named(name)) is member


def test_new_pod_carries_identity_template_and_owner() -> None:
    sts = make_sts()
    sts["spec"]["template"]["metadata"]["annotations"] = {"note": "x"}
    pod = new_stateful_pod(sts, 4, "web-abc")
    assert pod["metadata"] == {
        "generateName": "web-",
        "name": "web-4",
        "namespace": "default",
        "labels": {
            "app": "web",
            POD_NAME_LABEL: "web-4",
            POD_INDEX_LABEL: "4",
            REVISION_LABEL: "web-abc",
        },
        "annotations": {"note": "x"},
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "StatefulSet",
                "name": "web",
                "uid": "sts-uid",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    assert pod["spec"]["hostname"] == "web-4"
    assert pod["spec"]["subdomain"] == "nginx"
    assert pod["spec"]["containers"] == [{"name": "c", "image": "nginx"}]
    assert "status" not in pod
    pod["spec"]["containers"][0]["image"] = "changed"
    assert sts["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx"


def test_new_pod_without_service_name_has_no_subdomain() -> None:
    sts = make_sts()
    del sts["spec"]["serviceName"]
    assert "subdomain" not in new_stateful_pod(sts, 0, "r")["spec"]


@pytest.mark.parametrize(
    ("mutate", "matches"),
    [
        (lambda pod: None, True),
        (lambda pod: pod["metadata"]["labels"].pop(POD_NAME_LABEL), False),
        (lambda pod: pod["metadata"]["labels"].update({POD_NAME_LABEL: "web-9"}), False),
        (lambda pod: pod["metadata"].update({"namespace": "other"}), False),
        (lambda pod: pod["metadata"]["labels"].pop(POD_INDEX_LABEL), True),
    ],
    ids=["fresh", "no-name-label", "wrong-name-label", "other-namespace", "no-index-label"],
)
def test_identity_matches_checks_name_namespace_and_name_label(mutate: Any, matches: bool) -> None:
    sts = make_sts()
    pod = make_pod(sts, 1)
    mutate(pod)
    assert identity_matches(sts, pod) is matches


def test_with_identity_restores_labels_without_touching_the_input() -> None:
    sts = make_sts()
    pod = make_pod(sts, 2)
    pod["metadata"]["labels"] = {"app": "web"}
    fixed = with_identity(sts, pod)
    assert fixed["metadata"]["labels"] == {
        "app": "web",
        POD_NAME_LABEL: "web-2",
        POD_INDEX_LABEL: "2",
    }
    assert identity_matches(sts, fixed)
    assert pod["metadata"]["labels"] == {"app": "web"}
    assert fixed["status"] == pod["status"]


@given(
    name=st.from_regex(r"[a-z]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True),
    ordinal=st.integers(min_value=0, max_value=2**31 - 1),
)
def test_new_pods_round_trip_their_identity(name: str, ordinal: int) -> None:
    sts = make_sts()
    sts["metadata"]["name"] = name
    pod = new_stateful_pod(sts, ordinal, "rev")
    assert parent_and_ordinal(pod) == (name, ordinal)
    assert identity_matches(sts, pod)
    assert is_member(sts, pod)
