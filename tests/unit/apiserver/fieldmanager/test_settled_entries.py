"""``settled_entries.settled`` equals ``merge.settle_update`` and its general encoding.

What it keeps (per live entries' bytes, comparison and writer, with the writer's time cut
out) must give, for any ``now``, exactly the entries ``settle_update`` gives at that
``now`` (as ``field_owners.record_update`` stores them: empty ones dropped, in order) and
exactly ``orjson.dumps(managed.encode_managed_fields(...))``; a ``now`` that orders
differently against the other entries' times (a clock set back), other live entries,
another comparison or another writer are settled afresh, and more than ten entries (which
may be folded by time) are never kept. A kept result also answers with its JSON decoded
(entries shared between results, the writer's own): exactly ``orjson.loads`` of its bytes.
"""

from __future__ import annotations

import itertools

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.apiserver.fieldmanager.compare import Comparison
from podscale.apiserver.fieldmanager.fieldpath import Path, PathElement
from podscale.apiserver.fieldmanager.fieldset import FieldSet
from podscale.apiserver.fieldmanager.managed import ManagedEntry, encode_managed_fields
from podscale.apiserver.fieldmanager.merge import settle_update
from podscale.apiserver.operations import settled_entries
from podscale.apiserver.operations.field_owners import _entry_bytes
from podscale.apiserver.operations.settled_entries import settled

_F = PathElement.field
_TIMES = [None, "2026-01-01T00:00:00Z", "2026-01-01T00:00:15Z", "2026-01-01T00:01:00Z"]
_NOWS = ["2026-01-01T00:00:00Z", "2026-01-01T00:00:15Z", "2026-01-01T00:00:30Z"]
_PATHS: list[Path] = [
    (_F("spec"), _F("replicas")),
    (_F("status"), _F("replicas")),
    (_F("status"), _F("conditions"), PathElement.key({"type": "Ready"}), _F("status")),
    (_F("status"), _F("currentMetrics")),
    (_F("metadata"), _F("labels"), _F("app")),
    (_F("metadata"), _F("resourceVersion")),  # a stripped field: taken by no one
]


def _general(
    managed: list[ManagedEntry], diff: Comparison, manager: str, sub: str, now: str
) -> tuple[tuple[ManagedEntry, ...], bytes]:
    result = settle_update(diff, manager, managed, api_version="v1", now=now, subresource=sub)
    kept = tuple(e for e in result if not e.fields.empty())
    return kept, orjson.dumps(encode_managed_fields(kept))


def _fast(
    managed: list[ManagedEntry], diff: Comparison, manager: str, sub: str, now: str
) -> tuple[tuple[ManagedEntry, ...], bytes]:
    answer = settled(
        managed, diff, manager, api_version="v1", subresource=sub, now=now,
        entry_bytes=_entry_bytes,
    )  # fmt: skip
    if answer.shared is not None:  # a kept result's decoded entries: its very JSON
        assert answer.shared == orjson.loads(answer.encoded)
        assert [list(doc) for doc in answer.shared] == [
            list(doc) for doc in orjson.loads(answer.encoded)
        ]  # the keys in the same order
    return answer.entries, answer.encoded


_sets = st.lists(st.sampled_from(_PATHS), max_size=3).map(FieldSet.of)
_entries = st.lists(
    st.builds(
        ManagedEntry,
        st.sampled_from(["kcm", "kubelet", "podscale"]),
        st.sampled_from(["Update", "Apply"]),
        st.just("v1"),
        st.sampled_from(_TIMES),
        st.sampled_from(["", "status"]),
        _sets.filter(lambda s: not s.empty()),
    ),
    min_size=1,
    max_size=4,
    unique_by=lambda e: (e.manager, e.operation, e.subresource),
)
_Write = tuple[list[ManagedEntry], Comparison, str, str, str]
_writes = st.tuples(
    _entries,
    st.builds(Comparison, _sets, _sets, _sets),
    st.sampled_from(["kcm", "kubelet"]),
    st.sampled_from(["", "status"]),
    st.sampled_from(_NOWS),
)


@settings(max_examples=300)
@given(st.lists(_writes, min_size=1, max_size=6))
def test_kept_results_equal_the_general_path(writes: list[_Write]) -> None:
    for managed, diff, manager, sub, now in writes:
        for moment in (now, *_NOWS):  # the same key again, at every now: hits and misses
            assert _fast(managed, diff, manager, sub, moment) == _general(
                managed, diff, manager, sub, moment
            )


def _entry(manager: str, time: str | None, *paths: Path, sub: str = "status") -> ManagedEntry:
    return ManagedEntry(manager, "Update", "v1", time, sub, FieldSet.of(paths))


_STATUS = (_F("status"), _F("replicas"))
_METRICS = (_F("status"), _F("currentMetrics"))
_SPEC = (_F("spec"), _F("replicas"))
_CHANGED = Comparison(FieldSet(), FieldSet.of([_STATUS]), FieldSet())


@pytest.mark.parametrize(
    ("managed", "diff", "nows"),
    [
        (
            [_entry("podscale", "2026-01-01T00:00:00Z", _SPEC, sub=""),
             _entry("kcm", "2026-01-01T00:00:15Z", _STATUS)],
            _CHANGED,
            ["2026-01-01T00:00:30Z", "2026-01-01T00:00:45Z", "2026-01-01T00:01:00Z"],
        ),
        (
            [_entry("podscale", "2026-01-01T00:00:30Z", _SPEC, sub=""),
             _entry("kcm", "2026-01-01T00:00:00Z", _STATUS)],
            _CHANGED,
            ["2026-01-01T00:00:45Z", "2026-01-01T00:00:15Z", "2026-01-01T00:00:30Z"],
        ),
        (
            [_entry("kcm", "2026-01-01T00:00:00Z", _STATUS, _METRICS)],
            Comparison(FieldSet(), FieldSet(), FieldSet.of([_METRICS])),
            ["2026-01-01T00:00:30Z", "2026-01-01T00:01:00Z"],
        ),
        (
            [_entry("kubelet", "2026-01-01T00:00:00Z", _STATUS)],
            _CHANGED,
            ["2026-01-01T00:00:30Z", "2026-01-01T00:01:00Z"],
        ),
        (
            [_entry(f"m{i}", "2026-01-01T00:00:00Z", _SPEC) for i in range(11)],
            _CHANGED,
            ["2026-01-01T00:00:30Z", "2026-01-01T00:01:00Z"],
        ),
    ],
    ids=[
        "later-nows-reuse-the-kept-result",
        "a-now-before-another-entry-reorders-them",
        "a-removal-alone-holds-no-now",
        "a-field-taken-from-another-manager",
        "eleven-entries-are-folded-and-never-kept",
    ],
)  # fmt: skip
def test_each_now_gives_the_general_result(
    managed: list[ManagedEntry], diff: Comparison, nows: list[str]
) -> None:
    for now in nows:
        assert _fast(managed, diff, "kcm", "status", now) == _general(
            managed, diff, "kcm", "status", now
        )


def test_a_change_of_entries_comparison_or_writer_is_settled_afresh() -> None:
    settled_entries._kept.clear()
    managed = [_entry("kcm", "2026-01-01T00:00:00Z", _STATUS)]
    now = "2026-01-01T00:00:30Z"
    _fast(managed, _CHANGED, "kcm", "status", now)
    assert len(settled_entries._kept) == 1
    other_diff = Comparison(FieldSet.of([_METRICS]), FieldSet(), FieldSet())
    more = [*managed, _entry("kubelet", "2026-01-01T00:00:15Z", _METRICS)]
    for entries, diff, manager in [
        (managed, other_diff, "kcm"),
        (more, _CHANGED, "kcm"),
        (managed, _CHANGED, "kubelet"),
    ]:
        assert _fast(entries, diff, manager, "status", now) == _general(
            entries, diff, manager, "status", now
        )
    assert len(settled_entries._kept) == 4


def test_more_than_ten_entries_are_not_kept() -> None:
    settled_entries._kept.clear()
    managed = [_entry(f"m{i}", "2026-01-01T00:00:00Z", _SPEC) for i in range(10)]
    _fast(managed, _CHANGED, "kcm", "status", "2026-01-01T00:00:30Z")
    assert settled_entries._kept == {}


def test_the_writers_previous_time_is_no_part_of_what_is_kept() -> None:
    settled_entries._kept.clear()
    spec = _entry("podscale", "2026-01-01T00:00:00Z", _SPEC, sub="")
    times = ["2026-01-01T00:00:15Z", "2026-01-01T00:00:30Z", "2026-01-01T00:00:45Z"]
    for before, now in itertools.pairwise(times):  # each write stamps the next
        managed = [spec, _entry("kcm", before, _STATUS)]
        assert _fast(managed, _CHANGED, "kcm", "status", now) == _general(
            managed, _CHANGED, "kcm", "status", now
        )
    assert len(settled_entries._kept) == 1


def test_a_writer_that_took_nothing_keeps_its_own_time() -> None:
    settled_entries._kept.clear()
    removal = Comparison(FieldSet(), FieldSet(), FieldSet.of([_METRICS]))
    now = "2026-01-01T00:01:00Z"
    for before in ["2026-01-01T00:00:15Z", "2026-01-01T00:00:30Z", "2026-01-01T00:00:30Z"]:
        managed = [_entry("kcm", before, _STATUS, _METRICS)]
        assert _fast(managed, removal, "kcm", "status", now) == _general(
            managed, removal, "kcm", "status", now
        )
