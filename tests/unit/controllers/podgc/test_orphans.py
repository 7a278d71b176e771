"""The pod GC's orphan decisions (podscale.controllers.podgc.orphans): the 40 s quarantine
of nodes the informer does not know, the pods of confirmed-gone nodes, and the Failed
status with a DisruptionTarget condition written before the force delete."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.podgc.orphans import (
    failed_status,
    orphaned_pods,
    quarantine_missing_nodes,
)

T0 = datetime(2026, 5, 1, tzinfo=UTC)
Q = timedelta(seconds=40)
JSON = dict[str, Any]


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


@pytest.mark.parametrize(
    ("quarantined", "bound", "existing", "now", "waiting", "due"),
    [
        ({}, ["a", "gone", "", "gone"], {"a"}, 0, {"gone": at(40)}, []),
        ({"gone": at(40)}, ["gone"], {"a"}, 20, {"gone": at(40)}, []),
        ({"gone": at(40)}, ["gone"], {"a"}, 40, {}, ["gone"]),
        ({"gone": at(40)}, ["gone"], {"a", "gone"}, 40, {}, []),
        ({"gone": at(40)}, [], set(), 60, {}, ["gone"]),
        ({"x": at(30), "y": at(50)}, ["x", "y", "z"], set(), 45, {"y": at(50), "z": at(85)}, ["x"]),
    ],
    ids=[
        "first-sight-quarantines",
        "still-waiting-keeps-the-first-deadline",
        "released-for-the-get",
        "back-in-the-informer-is-spared",
        "released-even-without-pods",
        "several-nodes",
    ],
)
def test_quarantine(
    quarantined: dict[str, datetime],
    bound: list[str],
    existing: set[str],
    now: float,
    waiting: dict[str, datetime],
    due: list[str],
) -> None:
    assert quarantine_missing_nodes(quarantined, bound, existing, at(now), Q) == (waiting, due)


@given(
    st.lists(st.sampled_from(["n1", "n2", "n3", ""]), max_size=12),
    st.sets(st.sampled_from(["n1", "n2", "n3"])),
    st.integers(min_value=0, max_value=39),
)
def test_no_node_is_due_before_its_quarantine_is_over(
    bound: list[str], existing: set[str], seconds: int
) -> None:
    waiting, due = quarantine_missing_nodes({}, bound, existing, T0, Q)
    assert due == []
    assert set(waiting) == {name for name in bound if name and name not in existing}
    _, later = quarantine_missing_nodes(waiting, bound, existing, at(seconds), Q)
    assert later == []


def pod(name: str, node: str, phase: str = "Running", **status: Any) -> JSON:
    return {
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {"nodeName": node},
        "status": {"phase": phase, **status},
    }


def test_orphaned_pods_are_those_of_gone_nodes_in_name_order() -> None:
    pods = [pod("b", "gone"), pod("a", "gone"), pod("c", "live"), pod("d", "")]
    assert [p["metadata"]["name"] for p in orphaned_pods(pods, {"gone"})] == ["a", "b"]


READY = {"type": "Ready", "status": "True", "lastTransitionTime": "2026-05-01T00:00:05Z"}
DISRUPTED = {
    "type": "DisruptionTarget",
    "status": "True",
    "lastTransitionTime": "2026-05-01T00:01:00Z",
    "reason": "DeletionByPodGC",
    "message": "PodGC: node no longer exists",
}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            pod("p", "gone", conditions=[READY]),
            {"phase": "Failed", "conditions": [READY, DISRUPTED]},
        ),
        (pod("p", "gone", "Pending"), {"phase": "Failed", "conditions": [DISRUPTED]}),
        (
            pod(
                "p",
                "gone",
                conditions=[{**DISRUPTED, "lastTransitionTime": "2026-05-01T00:00:30Z"}],
            ),
            {
                "phase": "Failed",
                "conditions": [{**DISRUPTED, "lastTransitionTime": "2026-05-01T00:00:30Z"}],
            },
        ),
        (
            pod("p", "gone", conditions=[{**DISRUPTED, "status": "False"}]),
            {"phase": "Failed", "conditions": [DISRUPTED]},
        ),
        (pod("p", "gone", "Succeeded"), None),
        (pod("p", "gone", "Failed"), None),
    ],
    ids=[
        "running",
        "pending",
        "already-disrupted-keeps-its-time",
        "false-condition-turns-true",
        "succeeded-untouched",
        "failed-untouched",
    ],
)
def test_failed_status(before: JSON, after: JSON | None) -> None:
    assert failed_status(before, "2026-05-01T00:01:00Z") == after
