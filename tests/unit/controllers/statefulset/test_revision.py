"""Revision names: FNV-1 over the Go-encoded template patch, collision count, truncation."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api import apply_defaults
from podscale.controllers.statefulset.revision import (
    current_and_update_revisions,
    fnv32,
    pod_revision,
    revision_data,
    revision_hash,
    revision_name,
)

from .builders import make_pod, make_sts


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b"", 0x811C9DC5), (b"a", 0x050C5D7E), (b"foobar", 0x31F0B262)],
    ids=["empty", "a", "foobar"],
)
def test_fnv32_is_fnv1_not_fnv1a(data: bytes, expected: int) -> None:
    assert fnv32(data) == expected


def defaulted_set(**template_meta: Any) -> dict[str, Any]:
    """A set as the API server stores it: defaulted, so its template is complete."""
    sts: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "test", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": "foo"}},
            "template": {
                "metadata": {"labels": {"app": "foo"}, **template_meta},
                "spec": {"containers": [{"name": "test", "image": "test"}]},
            },
        },
    }
    return apply_defaults(sts)


def test_revision_name_matches_a_real_cluster() -> None:
    # A v1.34 cluster named this template's revision "test-776999688b" (collisionCount 0).
    sts = defaulted_set(annotations={"test": "value"})
    assert revision_name(sts) == "test-776999688b"
    assert revision_data(sts).startswith(b'{"spec":{"template":{"$patch":"replace","metadata":')
    assert b'"resources":{}' in revision_data(sts)


def test_collision_count_changes_the_hash() -> None:
    sts = make_sts()
    bumped = copy.deepcopy(sts)
    bumped["status"] = {"collisionCount": 1}
    assert revision_hash(sts) == revision_hash(sts, 0)
    assert revision_hash(bumped) == revision_hash(sts, 1) != revision_hash(sts)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("spec", "replicas"), 9),
        (("spec", "podManagementPolicy"), "Parallel"),
        (("metadata", "labels"), {"x": "y"}),
    ],
    ids=["replicas", "policy", "set-labels"],
)
def test_only_the_template_names_the_revision(path: tuple[str, str], value: Any) -> None:
    sts = make_sts()
    changed = copy.deepcopy(sts)
    changed[path[0]][path[1]] = value
    assert revision_name(changed) == revision_name(sts)


def test_a_template_change_is_a_new_revision() -> None:
    assert revision_name(make_sts(image="nginx:1")) != revision_name(make_sts(image="nginx:2"))


def test_go_escapes_html_characters() -> None:
    sts = make_sts()
    sts["spec"]["template"]["metadata"]["annotations"] = {"a": "<b>&é"}
    assert b'"a":"\\u003cb\\u003e\\u0026\xc3\xa9"' in revision_data(sts)


def test_long_names_are_cut_to_223_characters_before_the_hash() -> None:
    sts = make_sts()
    sts["metadata"]["name"] = "a" * 250
    name = revision_name(sts)
    assert re.fullmatch(r"a{223}-[bcdfghjklmnpqrstvwxz2456789]+", name)


@pytest.mark.parametrize(
    ("status", "expected_current"),
    [({}, "update"), ({"currentRevision": "web-old"}, "web-old")],
    ids=["first-sync", "rollout-in-progress"],
)
def test_current_revision_comes_from_status(status: dict[str, Any], expected_current: str) -> None:
    sts = make_sts()
    sts["status"] = status
    current, update = current_and_update_revisions(sts)
    assert update == revision_name(sts)
    assert current == (update if expected_current == "update" else expected_current)


def test_pod_revision_reads_the_label() -> None:
    sts = make_sts()
    assert pod_revision(make_pod(sts, 0, revision="web-r1")) == "web-r1"
    assert pod_revision({"metadata": {}}) == ""


@given(image=st.text(min_size=1, max_size=30), collisions=st.integers(0, 1000))
def test_revision_names_are_deterministic_and_safe(image: str, collisions: int) -> None:
    sts = make_sts(image=image)
    name = revision_name(sts, collisions)
    assert name == revision_name(copy.deepcopy(sts), collisions)
    assert re.fullmatch(r"web-[bcdfghjklmnpqrstvwxz2456789]{1,10}", name)
