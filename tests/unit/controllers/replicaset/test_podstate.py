"""Pod predicates of ``podscale.controllers.replicaset.podstate``: availability at the
``minReadySeconds`` boundary, the next availability re-check, and sidecar restarts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.replicaset.podstate import (
    is_pod_available,
    max_container_restarts,
    max_sidecar_restarts,
    next_availability_check,
)
from podscale.hpa.conditions import format_time

NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def ready_pod(ago: timedelta | None, *, ready: bool = True) -> dict[str, Any]:
    condition: dict[str, Any] = {"type": "Ready", "status": "True" if ready else "False"}
    if ago is not None:
        condition["lastTransitionTime"] = format_time(NOW - ago)
    return {"status": {"phase": "Running", "conditions": [condition]}}


@pytest.mark.parametrize(
    ("ago", "min_ready", "available"),
    [
        (timedelta(seconds=9), 10, False),
        (timedelta(seconds=10), 10, True),
        (timedelta(seconds=11), 10, True),
        (None, 10, False),
        (None, 0, True),
    ],
    ids=["short", "exactly-at-boundary", "past-boundary", "no-transition-time", "zero"],
)
def test_available_includes_the_boundary(
    ago: timedelta | None, min_ready: int, available: bool
) -> None:
    assert is_pod_available(ready_pod(ago), min_ready, NOW) is available


@pytest.mark.parametrize(
    ("pods", "min_ready", "later", "expected"),
    [
        ([ready_pod(timedelta(seconds=2)), ready_pod(timedelta(seconds=6))], 10, 0, 4),
        ([ready_pod(timedelta(seconds=2)), ready_pod(timedelta(seconds=6))], 10, 3, 1),
        ([ready_pod(timedelta(seconds=6))], 10, 7, 0),
        ([ready_pod(timedelta(seconds=6), ready=False)], 10, 0, None),
        ([ready_pod(timedelta(seconds=10)), ready_pod(timedelta(seconds=30))], 10, 0, None),
        ([ready_pod(None)], 10, 0, None),
        ([ready_pod(timedelta(seconds=2))], 0, 0, None),
        ([], 10, 0, None),
    ],
    ids=[
        "soonest-pod-wins",
        "recomputed-after-the-status-write",
        "available-meanwhile-is-zero",
        "not-ready-has-none",
        "already-available-have-none",
        "no-transition-time-has-none",
        "no-min-ready-seconds",
        "no-pods",
    ],
)
def test_next_availability_check(
    pods: list[dict[str, Any]], min_ready: int, later: int, expected: int | None
) -> None:
    delay = next_availability_check(pods, min_ready, NOW, NOW + timedelta(seconds=later))
    assert delay == (None if expected is None else timedelta(seconds=expected))


@given(st.integers(0, 600), st.integers(1, 600))
def test_a_pod_is_available_exactly_when_its_check_is_due(age: int, min_ready: int) -> None:
    pod = ready_pod(timedelta(seconds=age))
    delay = next_availability_check([pod], min_ready, NOW, NOW)
    assert (delay is None) is is_pod_available(pod, min_ready, NOW)
    if delay is not None:
        assert is_pod_available(pod, min_ready, NOW + delay)


def with_restarts(regular: list[int], init: list[tuple[str, str | None, int]]) -> dict[str, Any]:
    """``init``: (name, restartPolicy, restarts) of init containers."""
    containers = []
    for name, policy, _ in init:
        containers.append({"name": name, **({"restartPolicy": policy} if policy else {})})
    return {
        "spec": {"initContainers": containers},
        "status": {
            "containerStatuses": [
                {"name": f"c{i}", "restartCount": n} for i, n in enumerate(regular)
            ],
            "initContainerStatuses": [{"name": name, "restartCount": n} for name, _, n in init],
        },
    }


@pytest.mark.parametrize(
    ("pod", "regular", "sidecar"),
    [
        (with_restarts([1, 4], []), 4, 0),
        (with_restarts([2], [("proxy", "Always", 7)]), 2, 7),
        (with_restarts([2], [("setup", None, 9), ("proxy", "Always", 3)]), 2, 3),
        (with_restarts([], [("setup", "Never", 5)]), 0, 0),
        ({}, 0, 0),
    ],
    ids=["regular-only", "sidecar", "plain-init-ignored", "non-always-init-ignored", "empty"],
)
def test_restart_counts(pod: dict[str, Any], regular: int, sidecar: int) -> None:
    assert (max_container_restarts(pod), max_sidecar_restarts(pod)) == (regular, sidecar)
