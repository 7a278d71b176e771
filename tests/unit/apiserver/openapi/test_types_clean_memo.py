"""A status part found clean before is not walked again, with the result of the walk.

``types._check_changed_memo`` files a changed container (below the root) that a full
``_check`` found clean the second time it came, by its schema node and bytes, and skips it
when the same JSON comes again. Write sequences (each write's stored object the one before)
go through the memo and through the walk it replaces (``_descend``), on HPAs and Pods with
random edits: the same mismatches every time. The table holds the values the memo must not
take for a filed one (equal in Python, not in JSON; same JSON, not equal), and the stored
objects that are not clean, which the walk trusts and the memo never files.
"""

from __future__ import annotations

import copy
import math
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.apiserver.openapi import types
from podscale.apiserver.openapi.types import type_mismatches

JSON = dict[str, Any]

HPA: JSON = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default", "resourceVersion": "7"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "maxReplicas": 10,
    },
    "status": {
        "currentReplicas": 3,
        "desiredReplicas": 3,
        "currentMetrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "current": {"averageUtilization": 33, "averageValue": "66m"},
                },
            }
        ],
        "conditions": [{"type": "AbleToScale", "status": "True", "reason": "Ready"}],
    },
}
POD: JSON = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web-1", "namespace": "default"},
    "spec": {"containers": [{"name": "app", "image": "nginx"}]},
    "status": {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [{"name": "app", "ready": True, "restartCount": 0}],
    },
}

_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1, 2),
    st.sampled_from([1.0, 2.5, 2**31, "", "a", "1", "66m", "True"]),
    st.sampled_from([[], {}, ["a"], {"name": "cpu"}]),
    st.just(math.nan),  # the same bytes as null
)
_PLACES = {
    "HorizontalPodAutoscaler": [
        ("status", "currentReplicas"),
        ("status", "desiredReplicas"),
        ("status", "currentMetrics", 0, "resource", "current", "averageUtilization"),
        ("status", "currentMetrics", 0, "resource", "current", "averageValue"),
        ("status", "currentMetrics", 0, "resource", "name"),
        ("status", "conditions", 0, "reason"),
        ("status", "conditions", 0, "status"),
        ("metadata", "labels"),
        ("spec", "minReplicas"),
    ],
    "Pod": [
        ("status", "phase"),
        ("status", "conditions", 0, "status"),
        ("status", "containerStatuses", 0, "ready"),
        ("status", "containerStatuses", 0, "restartCount"),
        ("metadata", "annotations"),
    ],
}


def _set(obj: JSON, place: tuple[Any, ...], value: Any) -> None:
    target: Any = obj
    for step in place[:-1]:
        target = target[step]
    target[place[-1]] = value


def _general(api_version: str, kind: str, new: JSON, old: JSON) -> list[Any]:
    """The check without the memo: every changed container walked as before it."""
    with mock.patch.object(types, "_check_changed_memo", types._descend):
        return type_mismatches(api_version, kind, new, old)


@settings(max_examples=200, deadline=None)
@given(
    template=st.sampled_from([HPA, POD]),
    writes=st.lists(
        st.lists(st.tuples(st.integers(0, 8), _LEAVES), min_size=1, max_size=3),
        min_size=1,
        max_size=6,
    ),
)
def test_a_write_sequence_finds_what_the_walk_finds(
    template: JSON, writes: list[list[tuple[int, Any]]]
) -> None:
    api_version, kind = str(template["apiVersion"]), str(template["kind"])
    places = _PLACES[kind]
    old = copy.deepcopy(template)
    for edits in writes:
        new = copy.deepcopy(old)
        for index, value in edits:
            _set(new, places[index % len(places)], copy.deepcopy(value))
        expected = _general(api_version, kind, new, old)
        assert type_mismatches(api_version, kind, new, old) == expected
        assert type_mismatches(api_version, kind, new, old) == expected  # now filed, if clean
        if not expected:
            old = new  # stored: the next write's old


def _with(value: Any) -> JSON:
    obj = copy.deepcopy(HPA)
    obj["status"]["currentMetrics"][0]["resource"]["current"]["averageUtilization"] = value
    return obj


def _file(obj: JSON) -> None:
    """Check ``obj`` over a stored object with another status until its status is filed."""
    for _ in range(2):  # the first time notes it, the second files it
        assert (
            type_mismatches("autoscaling/v2", "HorizontalPodAutoscaler", obj, _changed(obj)) == []
        )
    assert any(known[1] == obj["status"] for known in types._CLEAN.values())


def _changed(obj: JSON) -> JSON:
    """The stored object a write of ``obj``'s status changes: its status differs."""
    old = copy.deepcopy(obj)
    old["status"]["currentReplicas"] = 4
    old["status"]["currentMetrics"][0]["resource"]["current"]["averageUtilization"] = 99
    return old


@pytest.mark.parametrize(
    ("filed", "sent", "mismatch"),
    [
        (_with(1), _with(True), "status.currentMetrics[0].resource.current.averageUtilization"),
        (_with(1), _with(1.0), "status.currentMetrics[0].resource.current.averageUtilization"),
        (_with(1), _with(1.5), "status.currentMetrics[0].resource.current.averageUtilization"),
        (_with(2), _with("2"), "status.currentMetrics[0].resource.current.averageUtilization"),
        (
            _with(None),
            _with(math.nan),
            "status.currentMetrics[0].resource.current.averageUtilization",
        ),
        (_with(1), _with(1), None),
    ],
    ids=["true-for-1", "float-for-int", "fraction", "string", "nan-for-null", "same"],
)
def test_a_filed_value_is_not_taken_for_another(
    filed: JSON, sent: JSON, mismatch: str | None
) -> None:
    api_version, kind = "autoscaling/v2", "HorizontalPodAutoscaler"
    _file(filed)
    found = type_mismatches(api_version, kind, sent, _changed(sent))
    assert found == _general(api_version, kind, sent, _changed(sent))
    assert [m.path for m in found][:1] == ([mismatch] if mismatch else [])


def test_a_tuple_is_not_the_list_filed_with_its_bytes() -> None:
    api_version, kind = "autoscaling/v2", "HorizontalPodAutoscaler"
    filed = copy.deepcopy(HPA)
    old = _changed(filed)
    _file(filed)
    sent = copy.deepcopy(filed)
    sent["status"]["currentMetrics"] = tuple(sent["status"]["currentMetrics"])
    assert type_mismatches(api_version, kind, sent, old) == _general(api_version, kind, sent, old)
    assert type_mismatches(api_version, kind, sent, old) != []


def test_what_equals_a_mistyped_stored_value_is_trusted_but_never_filed() -> None:
    # No stored object has a mistyped value; the walk trusts what equals the stored one.
    api_version, kind = "autoscaling/v2", "HorizontalPodAutoscaler"
    stored = copy.deepcopy(HPA)
    stored["status"]["conditions"][0]["status"] = 7
    sent = copy.deepcopy(stored)
    sent["status"]["currentReplicas"] = 5  # the status changed, its mistyped part did not
    for _ in range(3):  # however often it comes
        assert type_mismatches(api_version, kind, sent, stored) == []
    # Against a stored object without it, the same status is walked and refused again.
    clean = _changed(sent)
    clean["status"]["conditions"][0]["status"] = "True"
    found = type_mismatches(api_version, kind, sent, clean)
    assert [m.path for m in found] == ["status.conditions[0].status"]
    assert found == _general(api_version, kind, sent, clean)


def test_a_full_memo_starts_over_and_still_answers_as_the_walk() -> None:
    api_version, kind = "autoscaling/v2", "HorizontalPodAutoscaler"
    with (
        mock.patch.object(types, "_CLEAN_LIMIT", 2),
        mock.patch.object(types, "_CLEAN", {}),
        mock.patch.object(types, "_SEEN_LIMIT", 3),
        mock.patch.object(types, "_SEEN", {}),
    ):
        for value in (1, 2, 1, 2, 3, 1, True, 2, "3", 3, 3, 1):
            sent = _with(value)
            old = _changed(sent)
            assert type_mismatches(api_version, kind, sent, old) == _general(
                api_version, kind, sent, old
            )
            assert len(types._CLEAN) <= 2
            assert len(types._SEEN) <= 3


def test_a_value_met_once_is_walked_as_before_and_only_noted() -> None:
    api_version, kind = "autoscaling/v2", "HorizontalPodAutoscaler"
    sent = _with(17)
    with (
        mock.patch.object(types, "_CLEAN", {}),
        mock.patch.object(types, "_SEEN", {}),
        mock.patch.object(types, "_check", wraps=types._check) as full,
    ):
        assert type_mismatches(api_version, kind, sent, _changed(sent)) == []
        assert types._CLEAN == {}
        assert any(encoded == orjson.dumps(sent["status"]) for _, encoded in types._SEEN)
        walked_once = full.call_count
        assert type_mismatches(api_version, kind, sent, _changed(sent)) == []
        # The second time: the whole status checked, filed with its parts.
        assert any(known[1] == sent["status"] for known in types._CLEAN.values())
        assert any(known[1] == sent["status"]["conditions"] for known in types._CLEAN.values())
        assert full.call_count > walked_once
        filed = full.call_count
        assert type_mismatches(api_version, kind, sent, _changed(sent)) == []
        assert full.call_count == filed  # the third: not walked at all


def _status_schema(api_version: str, kind: str) -> Any:
    root = types._root(str(types.schema_for_kind(api_version, kind)))
    return types._node(root).properties["status"]  # type: ignore[index]


@settings(max_examples=200, deadline=None)
@given(
    template=st.sampled_from([HPA, POD]),
    edits=st.lists(
        st.lists(st.tuples(st.integers(0, 8), _LEAVES), max_size=3), min_size=1, max_size=5
    ),
)
def test_a_status_is_clean_exactly_when_the_check_finds_nothing(
    template: JSON, edits: list[list[tuple[int, Any]]]
) -> None:
    api_version, kind = str(template["apiVersion"]), str(template["kind"])
    schema = _status_schema(api_version, kind)
    places = [p for p in _PLACES[kind] if p[0] == "status"]
    for batch in edits * 2:  # the second round meets what the first filed
        obj = copy.deepcopy(template)
        for index, value in batch:
            _set(obj, places[index % len(places)], copy.deepcopy(value))
        found: list[Any] = []
        types._check(obj["status"], schema, "S", "status", found)
        assert types._is_clean(obj["status"], schema) == (not found)
