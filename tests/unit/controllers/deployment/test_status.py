"""Deployment status and conditions (``deployment.status`` and ``deployment.conditions``)."""

from __future__ import annotations

import copy
import dataclasses
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.deployment.conditions import (
    get_condition,
    new_condition,
    new_replica_set_condition,
    paused_condition,
    set_condition,
)
from podscale.controllers.deployment.replicasets import ReplicaSetState
from podscale.controllers.deployment.status import (
    calculate_status,
    deployment_timed_out,
    requeue_after,
    rollout_status,
)
from podscale.hpa.conditions import format_time

from .builders import T0, make_rs

NOW = T0 + timedelta(hours=1)


def stamp(seconds_before_now: int) -> str:
    return format_time(NOW - timedelta(seconds=seconds_before_now))


def deployment(
    replicas: int = 4,
    *,
    status: dict[str, Any] | None = None,
    deadline: int | None = 600,
    generation: int = 1,
    **spec: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {"replicas": replicas, **spec}
    if deadline is not None:
        body["progressDeadlineSeconds"] = deadline
    return {
        "metadata": {"name": "web", "generation": generation},
        "spec": body,
        "status": status or {},
    }


def progressing(reason: str, status: str = "True", updated_ago: int = 0) -> dict[str, Any]:
    return {
        "type": "Progressing",
        "status": status,
        "lastUpdateTime": stamp(updated_ago),
        "lastTransitionTime": stamp(3000),
        "reason": reason,
        "message": "earlier",
    }


def test_calculate_status_counts() -> None:
    old = make_rs("web-old", 2, 2)
    new = make_rs("web-new", 3, 1, ready=2, age=5)
    status = calculate_status(deployment(4, status={"collisionCount": 2}), [old, new], new, NOW)
    counts = {k: v for k, v in status.items() if k != "conditions"}
    assert counts == {
        "observedGeneration": 1,
        "replicas": 5,
        "updatedReplicas": 3,
        "readyReplicas": 4,
        "availableReplicas": 3,
        "unavailableReplicas": 2,
        "collisionCount": 2,
    }
    assert status["conditions"] == [
        {
            "type": "Available",
            "status": "True",
            "lastUpdateTime": format_time(NOW),
            "lastTransitionTime": format_time(NOW),
            "reason": "MinimumReplicasAvailable",
            "message": "Deployment has minimum availability.",
        }
    ]


AVAILABLE_CASES = [
    ("at replicas - maxUnavailable", 4, 3, "True", "MinimumReplicasAvailable"),
    ("below it", 4, 2, "False", "MinimumReplicasUnavailable"),
    ("recreate needs every replica", 4, 3, "False", "MinimumReplicasUnavailable"),
]


@pytest.mark.parametrize(
    ("replicas", "available", "expected_status", "reason"),
    [c[1:] for c in AVAILABLE_CASES],
    ids=[c[0] for c in AVAILABLE_CASES],
)
def test_available_condition(
    request: pytest.FixtureRequest, replicas: int, available: int, expected_status: str, reason: str
) -> None:
    strategy = {"type": "Recreate"} if "recreate" in request.node.name else {}
    rs = make_rs("web-new", replicas, available)
    status = calculate_status(deployment(replicas, strategy=strategy), [rs], rs, NOW)
    condition = get_condition(status["conditions"], "Available")
    assert condition is not None
    assert (condition["status"], condition["reason"]) == (expected_status, reason)


def test_unavailable_never_negative_when_scaling_down() -> None:
    rs = make_rs("web-new", 2, 5)
    assert calculate_status(deployment(2), [rs], rs, NOW)["unavailableReplicas"] == 0


def test_available_keeps_transition_time_when_status_unchanged() -> None:
    stored = {
        "type": "Available",
        "status": "True",
        "lastUpdateTime": stamp(100),
        "lastTransitionTime": stamp(100),
        "reason": "MinimumReplicasAvailable",
        "message": "Deployment has minimum availability.",
    }
    rs = make_rs("web-new", 4)
    status = calculate_status(deployment(status={"conditions": [stored]}), [rs], rs, NOW)
    assert status["conditions"] == [stored]


# (id, deployment status, replica sets, new rs name, expected Progressing (status, reason, message))
RS_NEW = "web-new"
ROLLOUT_CASES: list[
    tuple[str, dict[str, Any], list[ReplicaSetState], tuple[str, str, str] | None]
] = [
    (
        "complete rollout",
        {"conditions": [progressing("ReplicaSetUpdated")]},
        [make_rs(RS_NEW, 4, age=5)],
        ("True", "NewReplicaSetAvailable", 'ReplicaSet "web-new" has successfully progressed.'),
    ),
    (
        "progress refreshes ReplicaSetUpdated",
        {
            "replicas": 4,
            "updatedReplicas": 1,
            "conditions": [progressing("ReplicaSetUpdated", updated_ago=30)],
        },
        [make_rs("web-old", 2), make_rs(RS_NEW, 3, 1, age=5)],
        ("True", "ReplicaSetUpdated", 'ReplicaSet "web-new" is progressing.'),
    ),
    (
        "no progress past the deadline times out",
        {
            "replicas": 5,
            "updatedReplicas": 3,
            "readyReplicas": 3,
            "availableReplicas": 3,
            "conditions": [progressing("ReplicaSetUpdated", updated_ago=601)],
        },
        [make_rs("web-old", 2), make_rs(RS_NEW, 3, 1, age=5)],
        ("False", "ProgressDeadlineExceeded", 'ReplicaSet "web-new" has timed out progressing.'),
    ),
    (
        "no progress within the deadline keeps the condition",
        {
            "replicas": 5,
            "updatedReplicas": 3,
            "readyReplicas": 3,
            "availableReplicas": 3,
            "conditions": [progressing("ReplicaSetUpdated", updated_ago=600)],
        },
        [make_rs("web-old", 2), make_rs(RS_NEW, 3, 1, age=5)],
        ("True", "ReplicaSetUpdated", "earlier"),
    ),
    (
        "a recorded complete rollout is not re-estimated",
        {
            "replicas": 4,
            "updatedReplicas": 4,
            "conditions": [progressing("NewReplicaSetAvailable")],
        },
        [make_rs(RS_NEW, 4, 3, age=5)],
        ("True", "NewReplicaSetAvailable", "earlier"),
    ),
]


@pytest.mark.parametrize(
    ("stored", "rss", "expected"), [c[1:] for c in ROLLOUT_CASES], ids=[c[0] for c in ROLLOUT_CASES]
)
def test_rollout_status_progressing(
    stored: dict[str, Any], rss: list[ReplicaSetState], expected: tuple[str, str, str] | None
) -> None:
    d = deployment(4, status=stored)
    before = copy.deepcopy(d)
    new = next(rs for rs in rss if rs.name == RS_NEW)
    status = rollout_status(d, rss, new, NOW)
    condition = get_condition(status["conditions"], "Progressing")
    assert condition is not None
    assert (condition["status"], condition["reason"], condition["message"]) == expected
    assert d == before  # the stored object is never mutated


def test_progress_updates_time_but_keeps_transition() -> None:
    stored = {
        "replicas": 4,
        "updatedReplicas": 1,
        "conditions": [progressing("ReplicaSetUpdated", updated_ago=30)],
    }
    rss = [make_rs("web-old", 2), make_rs(RS_NEW, 3, 1, age=5)]
    condition = get_condition(
        rollout_status(deployment(4, status=stored), rss, rss[1], NOW)["conditions"], "Progressing"
    )
    assert condition is not None
    assert condition["lastUpdateTime"] == format_time(NOW)
    assert condition["lastTransitionTime"] == stamp(3000)


def test_messages_name_the_deployment_without_a_new_replica_set() -> None:
    rss = [make_rs("web-old", 4)]
    status = rollout_status(deployment(4, status={"replicas": 4}), rss, None, NOW)
    condition = get_condition(status["conditions"], "Progressing")
    assert condition is not None
    assert condition["message"] == 'Deployment "web" is progressing.'


def test_without_deadline_progressing_is_removed() -> None:
    rs = make_rs(RS_NEW, 4)
    status = rollout_status(
        deployment(4, deadline=None, status={"conditions": [progressing("ReplicaSetUpdated")]}),
        [rs],
        rs,
        NOW,
    )
    assert [c["type"] for c in status["conditions"]] == ["Available"]


def _failure(message: str) -> dict[str, Any]:
    return {
        "type": "ReplicaFailure",
        "status": "True",
        "lastTransitionTime": stamp(10),
        "reason": "FailedCreate",
        "message": message,
    }


def test_replica_failure_promoted_new_first_and_cleared() -> None:
    old = dataclasses.replace(make_rs("web-old", 1), conditions=(_failure("old quota"),))
    new = dataclasses.replace(make_rs(RS_NEW, 3, age=5), conditions=(_failure("new quota"),))
    status = rollout_status(deployment(4), [old, new], new, NOW)
    failure = get_condition(status["conditions"], "ReplicaFailure")
    assert failure is not None
    assert failure["message"] == "new quota"
    assert failure["lastUpdateTime"] == failure["lastTransitionTime"] == stamp(10)
    healthy = make_rs(RS_NEW, 4, age=5)
    cleared = rollout_status(deployment(4, status=status), [healthy], healthy, NOW)
    assert get_condition(cleared["conditions"], "ReplicaFailure") is None


TIMED_OUT_CASES = [
    ("no condition", [], False),
    ("completed never times out", [progressing("NewReplicaSetAvailable", updated_ago=9999)], False),
    ("timed out stays timed out", [progressing("ProgressDeadlineExceeded", "False")], True),
    (
        "exactly at the deadline is not late",
        [progressing("ReplicaSetUpdated", updated_ago=600)],
        False,
    ),
    ("one second past", [progressing("ReplicaSetUpdated", updated_ago=601)], True),
]


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [c[1:] for c in TIMED_OUT_CASES],
    ids=[c[0] for c in TIMED_OUT_CASES],
)
def test_deployment_timed_out(conditions: list[dict[str, Any]], expected: bool) -> None:
    assert deployment_timed_out(deployment(), {"conditions": conditions}, NOW) is expected


REQUEUE_CASES: list[tuple[str, dict[str, Any], list[dict[str, Any]], float | None]] = [
    (
        "time left until the deadline",
        {},
        [progressing("ReplicaSetUpdated", updated_ago=100)],
        500.0,
    ),
    ("under a second left: now", {}, [progressing("ReplicaSetUpdated", updated_ago=600)], 0.0),
    ("no Progressing condition", {}, [], None),
    ("timed out", {}, [progressing("ProgressDeadlineExceeded", "False")], None),
    (
        "complete",
        {"replicas": 4, "updatedReplicas": 4, "availableReplicas": 4, "observedGeneration": 1},
        [progressing("ReplicaSetUpdated")],
        None,
    ),
]


@pytest.mark.parametrize(
    ("counts", "conditions", "expected"),
    [c[1:] for c in REQUEUE_CASES],
    ids=[c[0] for c in REQUEUE_CASES],
)
def test_requeue_after(
    counts: dict[str, Any], conditions: list[dict[str, Any]], expected: float | None
) -> None:
    assert requeue_after(deployment(4), {**counts, "conditions": conditions}, NOW) == expected


PAUSE_CASES: list[tuple[str, bool, list[dict[str, Any]], str | None]] = [
    (
        "pausing records DeploymentPaused",
        True,
        [progressing("ReplicaSetUpdated")],
        "DeploymentPaused",
    ),
    ("already paused: nothing", True, [progressing("DeploymentPaused", "Unknown")], None),
    (
        "resuming records DeploymentResumed",
        False,
        [progressing("DeploymentPaused", "Unknown")],
        "DeploymentResumed",
    ),
    ("never over a timeout", True, [progressing("ProgressDeadlineExceeded", "False")], None),
    ("running and not paused: nothing", False, [], None),
]


@pytest.mark.parametrize(
    ("paused", "conditions", "reason"),
    [c[1:] for c in PAUSE_CASES],
    ids=[c[0] for c in PAUSE_CASES],
)
def test_paused_condition(
    paused: bool, conditions: list[dict[str, Any]], reason: str | None
) -> None:
    condition = paused_condition(deployment(paused=paused, status={"conditions": conditions}), NOW)
    assert (None if condition is None else condition["reason"]) == reason
    if condition is not None:
        assert condition["status"] == "Unknown"
        assert condition["message"] in ("Deployment is paused", "Deployment is resumed")


def test_paused_condition_needs_a_deadline() -> None:
    assert paused_condition(deployment(deadline=2**31 - 1, paused=True), NOW) is None


def test_new_replica_set_conditions() -> None:
    created = new_replica_set_condition(deployment(), "web-abc", created=True, now=NOW)
    assert created is not None
    assert (created["reason"], created["message"]) == (
        "NewReplicaSetCreated",
        'Created new replica set "web-abc"',
    )
    found = new_replica_set_condition(deployment(), "web-abc", created=False, now=NOW)
    assert found is not None
    assert (found["reason"], found["message"]) == (
        "FoundNewReplicaSet",
        'Found new replica set "web-abc"',
    )
    with_progress = deployment(status={"conditions": [progressing("ReplicaSetUpdated")]})
    assert new_replica_set_condition(with_progress, "web-abc", created=False, now=NOW) is None
    assert (
        new_replica_set_condition(deployment(deadline=None), "web-abc", created=True, now=NOW)
        is None
    )


def test_set_condition_semantics() -> None:
    first = new_condition(
        "Progressing", "True", "ReplicaSetUpdated", "a", NOW - timedelta(seconds=60)
    )
    other = new_condition("Available", "True", "MinimumReplicasAvailable", "b", NOW)
    conditions = [first, other]
    set_condition(
        conditions, new_condition("Progressing", "True", "ReplicaSetUpdated", "changed", NOW)
    )
    assert conditions == [first, other]  # same status and reason: untouched
    set_condition(
        conditions, new_condition("Progressing", "True", "NewReplicaSetAvailable", "done", NOW)
    )
    assert [c["type"] for c in conditions] == ["Available", "Progressing"]
    assert conditions[1]["lastTransitionTime"] == first["lastTransitionTime"]
    assert conditions[1]["lastUpdateTime"] == format_time(NOW)
    set_condition(
        conditions, new_condition("Progressing", "False", "ProgressDeadlineExceeded", "late", NOW)
    )
    assert conditions[1]["lastTransitionTime"] == format_time(NOW)


@given(st.integers(0, 20), st.integers(0, 20), st.integers(0, 5))
def test_available_condition_matches_the_threshold(
    replicas: int, available: int, unavailable: int
) -> None:
    strategy = {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": unavailable}}
    rs = make_rs(RS_NEW, replicas, available)
    status = calculate_status(deployment(replicas, strategy=strategy), [rs], rs, NOW)
    condition = get_condition(status["conditions"], "Available")
    assert condition is not None
    allowed = min(unavailable, replicas) if replicas else 0
    assert (condition["status"] == "True") is (available >= replicas - allowed)
