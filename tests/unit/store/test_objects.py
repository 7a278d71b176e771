"""The pure metadata rules (``podscale.store.objects``) on their own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.store import objects
from podscale.store.interface import ConflictError


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (datetime(2026, 11, 22, 10, 0, tzinfo=UTC), "2026-11-22T10:00:00Z"),
        (datetime(2026, 11, 22, 10, 0, 59, 999999, tzinfo=UTC), "2026-11-22T10:00:59Z"),
        (
            datetime(2026, 11, 22, 12, 30, tzinfo=timezone(timedelta(hours=2, minutes=30))),
            "2026-11-22T10:00:00Z",
        ),
        (datetime(2026, 1, 2, 3, 4, 5), "2026-01-02T03:04:05Z"),
    ],
    ids=["utc", "drops-fraction", "converts-offset", "naive-is-utc"],
)
def test_format_timestamp(moment: datetime, expected: str) -> None:
    assert objects.format_timestamp(moment) == expected


def stored(**meta: Any) -> dict[str, Any]:
    base = {"name": "web", "namespace": "d", "uid": "u1", "resourceVersion": "5", "generation": 3}
    return {"metadata": {**base, **meta}, "spec": {"replicas": 1}, "status": {"ready": 1}}


@pytest.mark.parametrize(
    ("incoming_version", "conflict"),
    [("5", False), ("", False), (None, False), ("4", True), ("6", True)],
    ids=["matching", "empty", "absent", "older", "newer"],
)
def test_check_update_version(incoming_version: str | None, conflict: bool) -> None:
    incoming = stored(resourceVersion=incoming_version)
    if incoming_version is None:
        del incoming["metadata"]["resourceVersion"]
    if conflict:
        with pytest.raises(ConflictError, match=r'^Operation cannot be fulfilled on rs "web": '):
            objects.check_update_version("rs", stored(), incoming)
    else:
        objects.check_update_version("rs", stored(), incoming)


def test_stamp_updated_keeps_deletion_fields_and_does_not_mutate() -> None:
    old = stored(deletionTimestamp="2026-01-01T00:00:00Z", deletionGracePeriodSeconds=0)
    incoming = stored(uid="other", resourceVersion="")
    incoming["metadata"].pop("generation")
    result = objects.stamp_updated(old, incoming, revision=9)
    assert result["metadata"] == {
        "name": "web",
        "namespace": "d",
        "uid": "u1",
        "resourceVersion": "9",
        "generation": 3,
        "deletionTimestamp": "2026-01-01T00:00:00Z",
        "deletionGracePeriodSeconds": 0,
    }
    assert incoming["metadata"]["uid"] == "other"


def test_stamp_updated_drops_forged_deletion_fields() -> None:
    incoming = stored(deletionTimestamp="2026-01-01T00:00:00Z", deletionGracePeriodSeconds=0)
    result = objects.stamp_updated(stored(), incoming, revision=9)
    assert "deletionTimestamp" not in result["metadata"]
    assert "deletionGracePeriodSeconds" not in result["metadata"]


@pytest.mark.parametrize(
    ("meta", "finalized"),
    [
        ({}, False),
        ({"deletionTimestamp": "t"}, True),
        ({"deletionTimestamp": "t", "finalizers": []}, True),
        ({"deletionTimestamp": "t", "finalizers": ["a"]}, False),
        ({"finalizers": []}, False),
    ],
    ids=["live", "deleting-no-finalizers", "deleting-empty", "deleting-finalizer", "no-deletion"],
)
def test_is_finalized(meta: dict[str, Any], finalized: bool) -> None:
    assert objects.is_finalized({"metadata": meta}) is finalized


def test_mark_deleting_without_generation_does_not_invent_one() -> None:
    obj = {"metadata": {"name": "n", "finalizers": ["x"]}}
    marked, remove = objects.mark_deleting(obj, (), timestamp="t", revision=2)
    assert remove is False
    assert marked is not None
    assert "generation" not in marked["metadata"]


def test_mark_deleting_keeps_an_earlier_timestamp() -> None:
    obj = stored(finalizers=["x"], deletionTimestamp="early", deletionGracePeriodSeconds=0)
    marked, remove = objects.mark_deleting(obj, ("orphan",), timestamp="late", revision=6)
    assert remove is False
    assert marked is not None
    assert marked["metadata"]["deletionTimestamp"] == "early"
    assert marked["metadata"]["generation"] == 3, "generation bumps only on the first mark"
    assert marked["metadata"]["finalizers"] == ["x", "orphan"]


@given(
    spec=st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
    status=st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
    labels=st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=3),
    generation=st.one_of(st.none(), st.integers(min_value=0, max_value=9)),
)
def test_generation_is_never_derived_from_the_content(
    spec: dict[str, int], status: dict[str, int], labels: dict[str, str], generation: int | None
) -> None:
    old = stored()
    meta: dict[str, Any] = {"name": "web", "labels": labels}
    if generation is not None:
        meta["generation"] = generation
    incoming = {"metadata": meta, "spec": spec, "status": status}
    result = objects.stamp_updated(old, incoming, revision=6)
    assert result["metadata"]["generation"] == (3 if generation is None else generation)
    assert (result["spec"], result["status"]) == (spec, status)
    assert result["metadata"]["labels"] == labels


@pytest.mark.parametrize(
    ("given", "expected"),
    [({}, None), ({"generation": 1}, 1), ({"generation": 5}, 5)],
    ids=["none-stays-none", "one", "client-value"],
)
def test_stamp_created_keeps_the_writers_generation(
    given: dict[str, Any], expected: int | None
) -> None:
    obj = {"metadata": {"name": "n", **given}}
    created = objects.stamp_created(obj, uid="u", timestamp="t", revision=1)
    assert created["metadata"].get("generation") == expected


def _namespace(spec_finalizers: list[str], finalizers: list[str] | None = None) -> Any:
    meta: Any = {"name": "shop", "resourceVersion": "3"}
    if finalizers is not None:
        meta["finalizers"] = finalizers
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": meta,
        "spec": {"finalizers": spec_finalizers},
        "status": {"phase": "Active"},
    }


@pytest.mark.parametrize(
    ("namespace", "added", "remove", "metadata_finalizers"),
    [
        (_namespace(["kubernetes"]), (), False, None),
        (_namespace(["kubernetes"]), ("orphan",), False, ["orphan"]),
        (_namespace([]), (), True, None),
        (_namespace([], ["a.io/x"]), (), False, ["a.io/x"]),
    ],
    ids=["spec-finalizer", "with-policy", "finalized", "metadata-finalizer"],
)
def test_a_deleted_namespace_turns_terminating_while_finalizers_hold_it(
    namespace: Any, added: tuple[str, ...], remove: bool, metadata_finalizers: Any
) -> None:
    marked, must_remove = objects.mark_deleting(
        namespace, added, timestamp="2026-01-01T00:00:00Z", revision=4
    )
    assert must_remove is remove
    if remove:
        return
    assert marked is not None
    meta = marked["metadata"]
    assert (meta["deletionTimestamp"], meta.get("finalizers")) == (
        "2026-01-01T00:00:00Z",
        metadata_finalizers,
    )
    assert "deletionGracePeriodSeconds" not in meta  # upstream's namespace mark has none
    assert marked["status"]["phase"] == "Terminating"
    assert objects.is_finalized(marked) is False


@pytest.mark.parametrize(
    ("spec_finalizers", "finalizers", "finalized"),
    [([], [], True), (["kubernetes"], [], False), ([], ["orphan"], False)],
    ids=["both-empty", "spec-holds", "metadata-holds"],
)
def test_a_marked_namespace_goes_once_both_finalizer_lists_are_empty(
    spec_finalizers: list[str], finalizers: list[str], finalized: bool
) -> None:
    namespace = _namespace(spec_finalizers, finalizers)
    namespace["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert objects.is_finalized(namespace) is finalized
