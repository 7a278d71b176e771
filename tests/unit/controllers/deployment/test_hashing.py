"""pod-template-hash and template matching (``podscale.controllers.deployment.hashing``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.deployment.hashing import (
    POD_TEMPLATE_HASH_LABEL,
    compute_hash,
    fnv32a,
    new_replica_set_name,
    safe_encode,
    templates_equal,
)

TEMPLATE: dict[str, Any] = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
}

FNV_CASES = [
    # Published FNV-1a 32-bit test vectors.
    ("empty input is the offset basis", b"", 0x811C9DC5),
    ("single a", b"a", 0xE40C292C),
    ("foobar", b"foobar", 0xBF9CF968),
]


@pytest.mark.parametrize(
    ("data", "expected"), [c[1:] for c in FNV_CASES], ids=[c[0] for c in FNV_CASES]
)
def test_fnv32a_vectors(data: bytes, expected: int) -> None:
    assert fnv32a(data) == expected


def test_fnv32a_continues_a_running_hash() -> None:
    assert fnv32a(b"bar", fnv32a(b"foo")) == fnv32a(b"foobar")


SAFE_CASES = [
    ("digits map past the vowel-free letters", "0123456789", "456789bcdf"),
    ("empty", "", ""),
]


@pytest.mark.parametrize(
    ("text", "expected"), [c[1:] for c in SAFE_CASES], ids=[c[0] for c in SAFE_CASES]
)
def test_safe_encode(text: str, expected: str) -> None:
    assert safe_encode(text) == expected


def test_hash_is_stable_and_uses_the_safe_alphabet() -> None:
    value = compute_hash(TEMPLATE)
    assert value == compute_hash({"spec": TEMPLATE["spec"], "metadata": TEMPLATE["metadata"]})
    assert set(value) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert 1 <= len(value) <= 10


def test_hash_changes_with_template_and_collision_count() -> None:
    changed = {**TEMPLATE, "spec": {"containers": [{"name": "web", "image": "nginx:1.28"}]}}
    hashes = {
        compute_hash(TEMPLATE),
        compute_hash(changed),
        compute_hash(TEMPLATE, 0),
        compute_hash(TEMPLATE, 1),
    }
    assert len(hashes) == 4


def test_new_replica_set_name() -> None:
    assert new_replica_set_name("web", "5d9c7b6f4") == "web-5d9c7b6f4"


EQUAL_CASES: list[tuple[str, dict[str, Any], bool]] = [
    ("identical", TEMPLATE, True),
    (
        "only the hash label differs",
        {**TEMPLATE, "metadata": {"labels": {"app": "web", POD_TEMPLATE_HASH_LABEL: "abc"}}},
        True,
    ),
    ("another label differs", {**TEMPLATE, "metadata": {"labels": {"app": "api"}}}, False),
    ("spec differs", {**TEMPLATE, "spec": {"containers": []}}, False),
]


@pytest.mark.parametrize(
    ("other", "expected"), [c[1:] for c in EQUAL_CASES], ids=[c[0] for c in EQUAL_CASES]
)
def test_templates_equal_ignores_only_the_hash_label(other: dict[str, Any], expected: bool) -> None:
    assert templates_equal(TEMPLATE, other) is expected
    assert TEMPLATE["metadata"]["labels"] == {"app": "web"}  # inputs untouched


@given(st.dictionaries(st.text(max_size=5), st.integers(), max_size=5), st.integers(0, 2**31 - 1))
def test_hash_only_uses_the_safe_alphabet(labels: dict[str, int], collisions: int) -> None:
    value = compute_hash({"metadata": {"labels": labels}}, collisions)
    assert value
    assert set(value) <= set("bcdfghjklmnpqrstvwxz2456789")
