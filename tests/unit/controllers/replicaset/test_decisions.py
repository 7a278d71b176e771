"""Create/delete plans and slow-start batches (``podscale.controllers.replicaset.decisions``)."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.replicaset import filter_active_pods, plan_replicas, slow_start_batches
from podscale.hpa.conditions import format_time

NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def make_rs(replicas: int | None, *, deleting: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "web", "namespace": "default", "uid": "rs-uid"}
    if deleting:
        metadata["deletionTimestamp"] = format_time(NOW)
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": "web"}}}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"metadata": metadata, "spec": spec}


def make_pod(
    name: str, *, phase: str = "Running", ready: bool = True, **extra: Any
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "uid": f"uid-{name}", **extra}
    return {
        "metadata": metadata,
        "spec": {"nodeName": "node-1"},
        "status": {
            "phase": phase,
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def running(count: int) -> list[dict[str, Any]]:
    return [make_pod(f"p{i}") for i in range(count)]


@pytest.mark.parametrize(
    ("replicas", "pods", "burst", "diff", "to_create", "deleted"),
    [
        (3, running(3), 500, 0, 0, 0),
        (5, running(2), 500, -3, 3, 0),
        (1, running(4), 500, 3, 0, 3),
        (0, running(2), 500, 2, 0, 2),
        (None, [], 500, -1, 1, 0),
        (600, [], 500, -600, 500, 0),
        (0, running(8), 5, 8, 0, 5),
        (2, [*running(2), make_pod("gone", phase="Failed")], 500, 0, 0, 0),
        (2, [*running(1), make_pod("done", phase="Succeeded")], 500, -1, 1, 0),
        (2, [*running(2), make_pod("t", deletionTimestamp=format_time(NOW))], 500, 0, 0, 0),
    ],
    ids=[
        "steady",
        "scale-up",
        "scale-down",
        "scale-to-zero",
        "replicas-default-to-one",
        "create-capped-by-burst",
        "delete-capped-by-burst",
        "failed-pod-not-counted",
        "succeeded-pod-replaced",
        "terminating-pod-not-counted",
    ],
)
def test_plan_counts(
    replicas: int | None,
    pods: list[dict[str, Any]],
    burst: int,
    diff: int,
    to_create: int,
    deleted: int,
) -> None:
    plan = plan_replicas(make_rs(replicas), pods, now=NOW, burst=burst)
    assert (plan.diff, plan.to_create, len(plan.to_delete)) == (diff, to_create, deleted)


def test_scale_down_deletes_in_deletion_order() -> None:
    pods = [
        make_pod("ready-1"),
        make_pod("pending", phase="Pending"),
        make_pod("not-ready", ready=False),
    ]
    plan = plan_replicas(make_rs(1), pods, now=NOW)
    assert [p["metadata"]["name"] for p in plan.to_delete] == ["pending", "not-ready"]


def test_related_pods_change_the_ranking() -> None:
    a = make_pod("a")
    b = make_pod("b")
    b["spec"]["nodeName"] = "node-2"
    sibling = make_pod("sibling")
    sibling["spec"]["nodeName"] = "node-2"
    plan = plan_replicas(make_rs(1), [a, b], now=NOW, related_pods=[a, b, sibling])
    assert [p["metadata"]["name"] for p in plan.to_delete] == ["b"]


@pytest.mark.parametrize(
    ("replicas", "count"), [(5, 2), (0, 2)], ids=["would-create", "would-delete"]
)
def test_replica_set_being_deleted_does_nothing(replicas: int, count: int) -> None:
    plan = plan_replicas(make_rs(replicas, deleting=True), running(count), now=NOW)
    assert (plan.to_create, plan.to_delete) == (0, [])


def test_filter_active_pods_keeps_order() -> None:
    pods = [make_pod("a"), make_pod("f", phase="Failed"), make_pod("b", phase="Pending")]
    assert [p["metadata"]["name"] for p in filter_active_pods(pods)] == ["a", "b"]


@pytest.mark.parametrize(
    ("count", "initial", "batches"),
    [
        (0, 1, []),
        (1, 1, [1]),
        (2, 1, [1, 1]),
        (7, 1, [1, 2, 4]),
        (10, 1, [1, 2, 4, 3]),
        (10, 3, [3, 6, 1]),
        (2, 5, [2]),
    ],
    ids=[
        "none",
        "one",
        "two",
        "exact-powers",
        "trimmed-last",
        "custom-initial",
        "initial-above-count",
    ],
)
def test_slow_start_batches(count: int, initial: int, batches: list[int]) -> None:
    assert slow_start_batches(count, initial) == batches


@given(st.integers(0, 5000), st.integers(1, 64))
def test_slow_start_batches_cover_count_and_at_most_double(count: int, initial: int) -> None:
    batches = slow_start_batches(count, initial)
    assert sum(batches) == count
    assert all(later <= 2 * earlier for earlier, later in pairwise(batches))


@given(st.integers(0, 30), st.integers(0, 30), st.integers(1, 10))
def test_plan_moves_toward_desired_within_burst(replicas: int, current: int, burst: int) -> None:
    plan = plan_replicas(make_rs(replicas), running(current), now=NOW, burst=burst)
    assert plan.to_create <= burst
    assert len(plan.to_delete) <= burst
    after = current + plan.to_create - len(plan.to_delete)
    assert abs(after - replicas) == max(0, abs(current - replicas) - burst)
