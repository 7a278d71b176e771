"""ReplicaSet status and the ReplicaFailure condition (``...replicaset.status``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.controllers.replicaset import (
    REPLICA_FAILURE,
    created_event_message,
    deleted_event_message,
    failed_create_event_message,
    failed_delete_event_message,
    replica_set_status,
)
from podscale.hpa.conditions import format_time

NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
QUOTA_ERROR = 'pods "web-bcdfg" is forbidden: exceeded quota: compute, requested: pods=1'


def make_rs(
    *, replicas: int = 2, min_ready: int = 0, status: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "metadata": {"name": "web", "uid": "rs-uid", "generation": 4},
        "spec": {
            "replicas": replicas,
            "minReadySeconds": min_ready,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web", "tier": "front"}}},
        },
        "status": status or {},
    }


def make_pod(
    *,
    labels: dict[str, str] | None = None,
    ready: bool = True,
    ready_ago: timedelta | None = timedelta(minutes=5),
    phase: str = "Running",
    deleting: bool = False,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"labels": labels or {"app": "web", "tier": "front"}}
    if deleting:
        metadata["deletionTimestamp"] = format_time(NOW)
    condition: dict[str, Any] = {"type": "Ready", "status": "True" if ready else "False"}
    if ready_ago is not None:
        condition["lastTransitionTime"] = format_time(NOW - ready_ago)
    return {"metadata": metadata, "status": {"phase": phase, "conditions": [condition]}}


def counts(replicas: int, labeled: int = 0, ready: int = 0, available: int = 0) -> dict[str, int]:
    # Go's omitempty drops zero counts; replicas is always present.
    named = {
        "fullyLabeledReplicas": labeled,
        "readyReplicas": ready,
        "availableReplicas": available,
    }
    return {"replicas": replicas, **{key: value for key, value in named.items() if value}}


@pytest.mark.parametrize(
    ("min_ready", "pods", "expected"),
    [
        (0, [], counts(0)),
        (0, [make_pod(), make_pod()], counts(2, 2, 2, 2)),
        (
            0,
            [
                make_pod(labels={"app": "web"}),
                make_pod(labels={"app": "web", "tier": "front", "x": "1"}),
            ],
            counts(2, 1, 2, 2),
        ),
        (0, [make_pod(ready=False)], counts(1, 1)),
        (
            60,
            [make_pod(ready_ago=timedelta(seconds=30)), make_pod(ready_ago=timedelta(seconds=90))],
            counts(2, 2, 2, 1),
        ),
        # Current upstream IsPodAvailable: ``LastTransitionTime + minReadySeconds <= now``.
        (60, [make_pod(ready_ago=timedelta(seconds=60))], counts(1, 1, 1, 1)),
        (60, [make_pod(ready_ago=timedelta(seconds=59))], counts(1, 1, 1)),
        (60, [make_pod(ready_ago=None)], counts(1, 1, 1)),
        (0, [make_pod(ready_ago=None)], counts(1, 1, 1, 1)),
        (
            0,
            [make_pod(), make_pod(phase="Failed"), make_pod(deleting=True)],
            counts(1, 1, 1, 1),
        ),
    ],
    ids=[
        "no-pods",
        "all-ready",
        "template-labels-must-all-be-present",
        "not-ready-not-counted",
        "min-ready-seconds",
        "min-ready-boundary-counts-as-available",
        "min-ready-one-second-short",
        "min-ready-without-transition-time",
        "ready-without-transition-time",
        "inactive-pods-not-counted",
    ],
)
def test_counts(min_ready: int, pods: list[dict[str, Any]], expected: dict[str, int]) -> None:
    status = replica_set_status(make_rs(min_ready=min_ready), pods, now=NOW)
    assert status == {**expected, "observedGeneration": 4}


def test_zero_counts_are_dropped_and_unknown_fields_kept() -> None:
    rs = make_rs(status={"readyReplicas": 3, "futureField": "kept"})
    status = replica_set_status(rs, [make_pod(ready=False)], now=NOW)
    assert "readyReplicas" not in status
    assert status["futureField"] == "kept"
    assert rs["status"]["readyReplicas"] == 3


@pytest.mark.parametrize(
    ("replicas", "pods", "reason"),
    [(3, 1, "FailedCreate"), (0, 1, "FailedDelete"), (1, 1, "")],
    ids=["missing-pods", "extra-pods", "neither"],
)
def test_manage_error_adds_replica_failure(replicas: int, pods: int, reason: str) -> None:
    status = replica_set_status(
        make_rs(replicas=replicas), [make_pod()] * pods, now=NOW, manage_error=QUOTA_ERROR
    )
    assert status["conditions"] == [
        {
            "type": REPLICA_FAILURE,
            "status": "True",
            "lastTransitionTime": format_time(NOW),
            "reason": reason,
            "message": QUOTA_ERROR,
        }
    ]


def test_existing_failure_condition_is_kept_unchanged() -> None:
    first = replica_set_status(make_rs(replicas=3), [], now=NOW, manage_error="first")
    later = replica_set_status(
        make_rs(replicas=3, status=first), [], now=NOW + timedelta(minutes=1), manage_error="second"
    )
    assert later["conditions"] == first["conditions"]


def test_success_removes_failure_condition_only() -> None:
    other = {"type": "Other", "status": "True"}
    failing = {"type": REPLICA_FAILURE, "status": "True", "reason": "FailedCreate"}
    rs = make_rs(status={"conditions": [other, failing]})
    assert replica_set_status(rs, [], now=NOW)["conditions"] == [other]
    rs_only = make_rs(status={"conditions": [failing]})
    assert "conditions" not in replica_set_status(rs_only, [], now=NOW)


@pytest.mark.parametrize(
    ("count_terminating", "expected"),
    [(True, 1), (False, None)],
    ids=["gate-on", "gate-off-drops-field"],
)
def test_terminating_replicas(count_terminating: bool, expected: int | None) -> None:
    pods = [make_pod(), make_pod(deleting=True), make_pod(deleting=True, phase="Failed")]
    rs = make_rs(status={"terminatingReplicas": 9})
    status = replica_set_status(rs, pods, now=NOW, count_terminating=count_terminating)
    assert status.get("terminatingReplicas") == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (created_event_message("web-abcde"), "Created pod: web-abcde"),
        (deleted_event_message("web-abcde"), "Deleted pod: web-abcde"),
        (failed_create_event_message("boom"), "Error creating: boom"),
        (failed_delete_event_message("boom"), "Error deleting: boom"),
    ],
    ids=["created", "deleted", "failed-create", "failed-delete"],
)
def test_event_messages(message: str, expected: str) -> None:
    assert message == expected
