"""Status: omitted zero fields, rollout completion, when to write, event texts."""

from __future__ import annotations

from typing import Any

import pytest

from podscale.controllers.statefulset.status import (
    complete_rolling_update,
    pod_event,
    stateful_set_status,
    status_needs_update,
)

from .builders import NOW, make_pod, make_sts


def test_empty_set_writes_the_always_present_fields() -> None:
    sts = make_sts(0)
    sts["status"] = {"conditions": [{"type": "X"}], "futureField": 7}
    status = stateful_set_status(
        sts, [], current_revision="web-a", update_revision="web-a", collisions=0, now=NOW
    )
    assert status == {
        "futureField": 7,
        "observedGeneration": 2,
        "replicas": 0,
        "availableReplicas": 0,
        "collisionCount": 0,
        "currentRevision": "web-a",
        "updateRevision": "web-a",
    }


def test_terminating_pods_count_as_replicas_but_not_by_revision() -> None:
    sts = make_sts(2)
    pods = [
        make_pod(sts, 0, revision="web-a"),
        make_pod(sts, 1, revision="web-b", terminating=True),
    ]
    status = stateful_set_status(
        sts, pods, current_revision="web-a", update_revision="web-b", collisions=3, now=NOW
    )
    assert status["replicas"] == 2
    assert status["readyReplicas"] == 2
    assert status["currentReplicas"] == 1
    assert "updatedReplicas" not in status
    assert status["collisionCount"] == 3


def rollout_status(updated: int, ready: int, replicas: int) -> dict[str, Any]:
    return {
        "replicas": replicas,
        "readyReplicas": ready,
        "updatedReplicas": updated,
        "currentReplicas": replicas - updated,
        "currentRevision": "web-a",
        "updateRevision": "web-b",
    }


@pytest.mark.parametrize(
    ("status", "strategy", "completed"),
    [
        (rollout_status(3, 3, 3), "RollingUpdate", True),
        (rollout_status(2, 3, 3), "RollingUpdate", False),
        (rollout_status(3, 2, 3), "RollingUpdate", False),
        (rollout_status(3, 3, 4), "RollingUpdate", False),
        (rollout_status(3, 3, 3), "OnDelete", False),
    ],
    ids=["all-updated-and-ready", "one-outdated", "one-unready", "extra-replica", "on-delete"],
)
def test_complete_rolling_update(status: dict[str, Any], strategy: str, completed: bool) -> None:
    sts = make_sts(3, updateStrategy={"type": strategy})
    done = complete_rolling_update(sts, status)
    assert (done["currentRevision"] == "web-b") is completed
    assert (done.get("currentReplicas") == 3) is completed
    assert status["currentRevision"] == "web-a"


BASE = {"observedGeneration": 2, "replicas": 1, "availableReplicas": 1, "updateRevision": "r"}


@pytest.mark.parametrize(
    ("old", "new", "write"),
    [
        (BASE, BASE, False),
        ({}, BASE, True),
        (BASE, {**BASE, "observedGeneration": 3}, True),
        ({**BASE, "observedGeneration": 3}, BASE, False),
        (BASE, {**BASE, "availableReplicas": 0}, True),
        (BASE, {**BASE, "readyReplicas": 1}, True),
        (BASE, {**BASE, "collisionCount": 0}, False),
        ({**BASE, "conditions": []}, BASE, False),
    ],
    ids=[
        "same",
        "first",
        "newer-generation",
        "older-generation",
        "available",
        "ready",
        "collision-count-not-compared",
        "conditions-not-compared",
    ],
)
def test_status_needs_update(old: dict[str, Any], new: dict[str, Any], write: bool) -> None:
    assert status_needs_update(old, new) is write


@pytest.mark.parametrize(
    ("verb", "error", "expected"),
    [
        (
            "create",
            None,
            ("Normal", "SuccessfulCreate", "create Pod web-0 in StatefulSet web successful"),
        ),
        (
            "delete",
            None,
            ("Normal", "SuccessfulDelete", "delete Pod web-0 in StatefulSet web successful"),
        ),
        (
            "update",
            None,
            ("Normal", "SuccessfulUpdate", "update Pod web-0 in StatefulSet web successful"),
        ),
        (
            "create",
            "quota exceeded",
            (
                "Warning",
                "FailedCreate",
                "create Pod web-0 in StatefulSet web failed error: quota exceeded",
            ),
        ),
    ],
    ids=["created", "deleted", "updated", "create-failed"],
)
def test_pod_event_texts(verb: str, error: str | None, expected: tuple[str, str, str]) -> None:
    assert pod_event(verb, "web-0", "web", error) == expected
