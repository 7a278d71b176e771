"""Revision bookkeeping (``podscale.controllers.deployment.revisions``)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from podscale.controllers.deployment.fenceposts import Strategy
from podscale.controllers.deployment.proportional import (
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
)
from podscale.controllers.deployment.revisions import (
    LAST_APPLIED_ANNOTATION,
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    find_new_replica_set,
    find_old_replica_sets,
    last_revision,
    max_revision,
    new_replica_set_annotations,
    replica_sets_to_delete,
    revision_of,
)

from .builders import make_rs


def rev(value: str) -> dict[str, str]:
    return {REVISION_ANNOTATION: value}


REVISION_CASES = [
    ("no revisions", [], 0, 0),
    ("one revision", ["3"], 3, 0),
    ("max and previous", ["1", "4", "2"], 4, 2),
    ("duplicates of the max", ["4", "4"], 4, 4),
    ("garbled revisions skipped", ["x", "2", "5"], 5, 2),
]


@pytest.mark.parametrize(
    ("revisions", "highest", "previous"),
    [c[1:] for c in REVISION_CASES],
    ids=[c[0] for c in REVISION_CASES],
)
def test_max_and_last_revision(revisions: list[str], highest: int, previous: int) -> None:
    rss = [make_rs(f"rs{i}", 1, annotations=rev(r)) for i, r in enumerate(revisions)]
    assert max_revision(rss) == highest
    assert last_revision(rss) == previous


def test_revision_of() -> None:
    assert revision_of({}) == 0
    assert revision_of(rev("7")) == 7
    with pytest.raises(ValueError, match="invalid literal"):
        revision_of(rev("seven"))


def _rs_dict(name: str, created: str, image: str, hash_label: str = "") -> dict[str, Any]:
    labels = {"app": "web"} | ({"pod-template-hash": hash_label} if hash_label else {})
    return {
        "metadata": {"name": name, "creationTimestamp": created, "uid": f"uid-{name}"},
        "spec": {
            "replicas": 1,
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"image": image}]},
            },
        },
    }


def test_find_new_replica_set_prefers_the_oldest_match() -> None:
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"image": "v2"}]}}
    rss = [
        _rs_dict("late", "2026-01-01T00:00:09Z", "v2", "bbb"),
        _rs_dict("other", "2026-01-01T00:00:00Z", "v1", "ccc"),
        _rs_dict("early", "2026-01-01T00:00:05Z", "v2", "aaa"),
    ]
    found = find_new_replica_set(template, rss)
    assert found is not None
    assert found["metadata"]["name"] == "early"
    assert find_new_replica_set({"spec": {}}, rss) is None


def test_find_old_replica_sets_splits_wanted_from_all() -> None:
    new = make_rs("new", 3, age=9)
    a, b = make_rs("a", 2), make_rs("b", 0, 0)
    assert find_old_replica_sets(new, [a, new, b]) == ([a], [a, b])
    assert find_old_replica_sets(None, [a, b]) == ([a], [a, b])


# (id, deployment annotations, rs annotations, new revision, exists, expected, changed)
ANNOTATION_CASES: list[
    tuple[str, dict[str, str], dict[str, str], int, bool, dict[str, str], bool]
] = [
    (
        "new ReplicaSet gets revision and replicas annotations",
        {"team": "a", LAST_APPLIED_ANNOTATION: "{}", REVISION_ANNOTATION: "9"},
        {},
        3,
        False,
        {
            "team": "a",
            REVISION_ANNOTATION: "3",
            DESIRED_REPLICAS_ANNOTATION: "10",
            MAX_REPLICAS_ANNOTATION: "13",
        },
        True,
    ),
    (
        "existing up to date: unchanged",
        {"team": "a"},
        {"team": "a", **rev("3")},
        3,
        True,
        {"team": "a", **rev("3")},
        False,
    ),
    ("never lowers a revision", {}, rev("5"), 3, True, rev("5"), False),
    (
        "numeric, not string, comparison",
        {},
        rev("9"),
        10,
        True,
        {REVISION_ANNOTATION: "10", REVISION_HISTORY_ANNOTATION: "9"},
        True,
    ),
    (
        "rollback records the old revision",
        {},
        rev("2"),
        5,
        True,
        {REVISION_ANNOTATION: "5", REVISION_HISTORY_ANNOTATION: "2"},
        True,
    ),
    (
        "rollback appends to the history",
        {},
        {REVISION_ANNOTATION: "5", REVISION_HISTORY_ANNOTATION: "2"},
        7,
        True,
        {REVISION_ANNOTATION: "7", REVISION_HISTORY_ANNOTATION: "2,5"},
        True,
    ),
    ("garbled revision leaves everything", {"team": "a"}, rev("x"), 5, True, rev("x"), False),
]


@pytest.mark.parametrize(
    ("deployment_notes", "rs_notes", "new_revision", "exists", "expected", "changed"),
    [c[1:] for c in ANNOTATION_CASES],
    ids=[c[0] for c in ANNOTATION_CASES],
)
def test_new_replica_set_annotations(
    deployment_notes: dict[str, str],
    rs_notes: dict[str, str],
    new_revision: int,
    exists: bool,
    expected: dict[str, str],
    changed: bool,
) -> None:
    before = dict(rs_notes)
    result = new_replica_set_annotations(
        deployment_notes,
        rs_notes,
        new_revision,
        exists=exists,
        replicas=10,
        strategy=Strategy(max_surge=3, max_unavailable=2),
    )
    assert result == (expected, changed)
    assert rs_notes == before


def test_revision_history_drops_oldest_entries_past_2000_chars() -> None:
    history = ",".join(str(1000 + i) for i in range(400))  # 1999 characters
    result, _ = new_replica_set_annotations(
        {},
        {REVISION_ANNOTATION: "5000", REVISION_HISTORY_ANNOTATION: history},
        6000,
        exists=True,
        replicas=1,
        strategy=Strategy(),
    )
    kept = result[REVISION_HISTORY_ANNOTATION]
    assert len(kept) <= 2000
    assert kept.endswith(",1399,5000")
    assert not kept.startswith("1000,")


def _old(name: str, revision: str, **changes: Any) -> Any:
    base = make_rs(name, 0, 0, status_replicas=0, annotations=rev(revision))
    return dataclasses.replace(base, **changes)


CLEANUP_CASES: list[tuple[str, list[Any], int | None, list[str]]] = [
    ("no limit keeps all", [_old("a", "1"), _old("b", "2")], None, []),
    ("int32 max keeps all", [_old("a", "1"), _old("b", "2")], 2**31 - 1, []),
    ("within limit", [_old("a", "1"), _old("b", "2")], 2, []),
    ("lowest revisions go", [_old("c", "3"), _old("a", "1"), _old("b", "2")], 1, ["a", "b"]),
    ("limit zero deletes every old one", [_old("a", "1")], 0, ["a"]),
    (
        "never with pods wanted or reported",
        [_old("a", "1", replicas=1), _old("b", "2", status_replicas=1), _old("c", "3")],
        0,
        ["c"],
    ),
    ("never before status caught up", [_old("a", "1", generation=2, observed_generation=1)], 0, []),
    (
        "already deleting ones neither count nor go",
        [_old("a", "1", deleting=True), _old("b", "2"), _old("c", "3")],
        2,
        [],
    ),
]


@pytest.mark.parametrize(
    ("old", "limit", "expected"), [c[1:] for c in CLEANUP_CASES], ids=[c[0] for c in CLEANUP_CASES]
)
def test_replica_sets_to_delete(old: list[Any], limit: int | None, expected: list[str]) -> None:
    assert replica_sets_to_delete(old, limit) == expected
