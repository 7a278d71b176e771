"""Pod names and pods built from the template (``podscale.controllers.replicaset.template``)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.replicaset import (
    controller_ref,
    pod_from_template,
    pod_name,
    random_suffix,
)
from podscale.controllers.replicaset.template import NAME_ALPHABET, pods_prefix


def make_rs(name: str = "web") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "prod", "uid": "rs-uid", "labels": {"x": "y"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {
                    "labels": {"app": "web", "tier": "front"},
                    "annotations": {"note": "hi"},
                    "finalizers": ["example.com/keep"],
                },
                "spec": {
                    "containers": [{"name": "app", "image": "nginx"}],
                    "futureField": {"a": 1},
                },
            },
        },
    }


def test_pod_from_template_carries_template_and_controller_ref() -> None:
    rs = make_rs()
    pod = pod_from_template(rs)
    assert pod["metadata"] == {
        "generateName": "web-",
        "namespace": "prod",
        "labels": {"app": "web", "tier": "front"},
        "annotations": {"note": "hi"},
        "finalizers": ["example.com/keep"],
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": "web",
                "uid": "rs-uid",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    assert pod["spec"] == rs["spec"]["template"]["spec"]
    assert (pod["apiVersion"], pod["kind"]) == ("v1", "Pod")


def test_pod_from_template_is_a_deep_copy() -> None:
    rs = make_rs()
    pod = pod_from_template(rs)
    pod["spec"]["containers"][0]["image"] = "changed"
    pod["metadata"]["labels"]["app"] = "changed"
    assert rs["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx"
    assert rs["spec"]["template"]["metadata"]["labels"]["app"] == "web"


def test_controller_ref_names_the_replica_set() -> None:
    assert controller_ref(make_rs("api"))["name"] == "api"


@pytest.mark.parametrize(
    ("rs_name", "suffix", "expected"),
    [
        ("web", "bcd24", "web-bcd24"),
        ("a" * 70, "xz789", "a" * 58 + "xz789"),
        ("Bad_Name", "bcdfg", "Bad_Namebcdfg"),
    ],
    ids=["short", "truncated-to-63", "invalid-prefix-uses-bare-name"],
)
def test_pod_name(rs_name: str, suffix: str, expected: str) -> None:
    assert pod_name(rs_name, suffix) == expected


@pytest.mark.parametrize(
    ("rs_name", "prefix"),
    [("web", "web-"), ("web.v2", "web.v2-"), ("UPPER", "UPPER")],
    ids=["plain", "dotted", "invalid"],
)
def test_pods_prefix(rs_name: str, prefix: str) -> None:
    assert pods_prefix(rs_name) == prefix


def test_random_suffix_is_deterministic_for_a_seed() -> None:
    assert random_suffix(random.Random(7)) == random_suffix(random.Random(7))


@given(st.integers())
def test_random_suffix_uses_upstream_alphabet(seed: int) -> None:
    suffix = random_suffix(random.Random(seed))
    assert len(suffix) == 5
    assert set(suffix) <= set(NAME_ALPHABET)
