"""The simulated kubelet on explicit times: startup and readiness timelines, CrashLoopBackOff,
node loss, termination; hypothesis: Ready never precedes Running, restartCount never drops."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.runtime.simulated.kubelet_state import (
    StartupProfile,
    advance_pod,
    crash,
    crash_loop_backoff,
    next_event_at,
    node,
    node_lost,
    set_node_ready,
    should_remove,
)
from podscale.runtime.simulated.pod_status import format_go_duration
from podscale.runtime.simulated.scheduling import bind

T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
PROFILE = StartupProfile()
NODE = node("n1", now=T0)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def make_pod(restart_policy: str = "Always") -> dict[str, Any]:
    pod = {
        "metadata": {"name": "web-abcde", "namespace": "default", "uid": "u-1"},
        "spec": {
            "restartPolicy": restart_policy,
            "containers": [{"name": "app", "image": "nginx"}],
        },
    }
    return bind(pod, "n1", T0)


def step(pod: dict[str, Any], moment: datetime, target: dict[str, Any] = NODE) -> dict[str, Any]:
    status = advance_pod(pod, node=target, now=moment, profile=PROFILE)
    return pod if status is None else {**pod, "status": status}


def condition(pod: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in pod["status"]["conditions"] if c["type"] == kind)


def test_default_profile() -> None:
    expected = StartupProfile(timedelta(seconds=2), timedelta(seconds=3), timedelta(seconds=1))
    assert expected == PROFILE


TIMELINE = [
    ("first-sight", 0, "Pending", "waiting", False, "False"),
    ("still-creating", 1.5, "Pending", "waiting", False, "False"),
    ("running-not-ready", 2, "Running", "running", False, "False"),
    ("just-before-ready", 4.9, "Running", "running", False, "False"),
    ("ready", 5, "Running", "running", True, "True"),
]


@pytest.mark.parametrize(
    ("seconds", "phase", "state", "ready", "pod_ready"),
    [case[1:] for case in TIMELINE],
    ids=[case[0] for case in TIMELINE],
)
def test_startup_timeline(
    seconds: float, phase: str, state: str, ready: bool, pod_ready: str
) -> None:
    pod = step(make_pod(), T0)
    pod = step(pod, at(seconds))
    container = pod["status"]["containerStatuses"][0]
    assert pod["status"]["phase"] == phase
    assert list(container["state"]) == [state]
    assert container["ready"] is ready
    assert condition(pod, "Ready")["status"] == pod_ready
    assert pod["status"]["startTime"] == "2026-01-01T12:00:00Z"


def test_first_sight_shape() -> None:
    pod = step(make_pod(), T0)
    assert pod["status"]["containerStatuses"][0] == {
        "name": "app",
        "image": "nginx",
        "imageID": "",
        "ready": False,
        "restartCount": 0,
        "started": False,
        "state": {"waiting": {"reason": "ContainerCreating"}},
        "lastState": {},
    }
    ready = condition(pod, "Ready")
    assert ready["reason"] == "ContainersNotReady"
    assert ready["message"] == "containers with unready status: [app]"
    assert condition(pod, "PodScheduled")["status"] == "True"


def test_ready_transition_time_and_no_change_after() -> None:
    pod = step(step(make_pod(), T0), at(2))
    pod = step(pod, at(5))
    assert condition(pod, "Ready")["lastTransitionTime"] == "2026-01-01T12:00:05Z"
    assert pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"] == (
        "2026-01-01T12:00:02Z"
    )
    assert advance_pod(pod, node=NODE, now=at(100), profile=PROFILE) is None
    assert next_event_at(pod, PROFILE, at(100)) is None


def test_late_call_lands_on_scheduled_times() -> None:
    pod = step(step(make_pod(), T0), at(60))
    assert pod["status"]["containerStatuses"][0]["ready"] is True
    assert pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"] == (
        "2026-01-01T12:00:02Z"
    )


@pytest.mark.parametrize(
    ("moment", "expected"),
    [(None, T0), (0, at(2)), (2, at(5))],
    ids=["unseen-now", "creating-until-startup", "running-until-ready"],
)
def test_next_event_at(moment: float | None, expected: datetime) -> None:
    pod = make_pod()
    if moment is not None:
        pod = step(step(pod, T0), at(moment))
    assert next_event_at(pod, PROFILE, T0 if moment is None else at(moment)) == expected


@pytest.mark.parametrize(
    ("restarts", "expected"),
    [(0, 0), (1, 10), (2, 20), (3, 40), (4, 80), (5, 160), (6, 300), (50, 300)],
    ids=["first-immediate", "10s", "20s", "40s", "80s", "160s", "capped", "capped-large"],
)
def test_crash_loop_backoff(restarts: int, expected: int) -> None:
    assert crash_loop_backoff(restarts) == timedelta(seconds=expected)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(10, "10s"), (80, "1m20s"), (300, "5m0s"), (3600, "1h0m0s")],
    ids=["seconds", "minutes", "five-minutes", "hour"],
)
def test_go_duration(seconds: int, text: str) -> None:
    assert format_go_duration(timedelta(seconds=seconds)) == text


def ready_pod() -> dict[str, Any]:
    return step(step(make_pod(), T0), at(5))


def test_crash_terminates_and_unreadies() -> None:
    status = crash(ready_pod(), at(10), reason="OOMKilled", exit_code=137)
    container = status["containerStatuses"][0]
    assert container["state"]["terminated"] == {
        "exitCode": 137,
        "reason": "OOMKilled",
        "startedAt": "2026-01-01T12:00:02Z",
        "finishedAt": "2026-01-01T12:00:10Z",
    }
    assert container["ready"] is False
    assert container["restartCount"] == 0
    assert status["phase"] == "Running"
    ready = next(c for c in status["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["lastTransitionTime"]) == ("False", "2026-01-01T12:00:10Z")


def test_crash_loop_sequence() -> None:
    """Each crash right after the restart: restarts at +0, +10, +20, +40 ... as the kubelet."""
    pod = ready_pod()
    crash_at = at(10)
    restarts: list[float] = []
    for _ in range(8):
        pod = {**pod, "status": crash(pod, crash_at)}
        restart_at = next_event_at(pod, PROFILE, crash_at)
        assert restart_at is not None
        if restart_at > crash_at:
            waiting = step(pod, crash_at)["status"]["containerStatuses"][0]
            assert waiting["state"]["waiting"]["reason"] == "CrashLoopBackOff"
            backoff = format_go_duration(restart_at - crash_at)
            assert waiting["state"]["waiting"]["message"] == (
                f"back-off {backoff} restarting failed container=app pod=web-abcde_default(u-1)"
            )
            assert waiting["lastState"]["terminated"]["finishedAt"] == (
                crash_at.strftime("%Y-%m-%dT%H:%M:%SZ")
            )
        pod = step(pod, restart_at)
        restarts.append((restart_at - crash_at).total_seconds())
        crash_at = restart_at
    assert restarts == [0, 10, 20, 40, 80, 160, 300, 300]
    assert pod["status"]["containerStatuses"][0]["restartCount"] == 8


def test_restarted_container_becomes_ready_again() -> None:
    pod = ready_pod()
    pod = {**pod, "status": crash(pod, at(10))}
    pod = step(pod, at(10))
    container = pod["status"]["containerStatuses"][0]
    assert (container["restartCount"], container["ready"]) == (1, False)
    assert container["lastState"]["terminated"]["exitCode"] == 1
    pod = step(pod, at(13))
    assert condition(pod, "Ready")["status"] == "True"
    assert condition(pod, "Ready")["lastTransitionTime"] == "2026-01-01T12:00:13Z"


@pytest.mark.parametrize(
    ("policy", "exit_code", "phase", "restarts"),
    [
        ("Never", 1, "Failed", False),
        ("Never", 0, "Succeeded", False),
        ("OnFailure", 0, "Succeeded", False),
        ("OnFailure", 2, "Running", True),
        ("Always", 0, "Running", True),
    ],
    ids=["never-fails", "never-succeeds", "onfailure-success", "onfailure-failure", "always"],
)
def test_restart_policy(policy: str, exit_code: int, phase: str, restarts: bool) -> None:
    pod = step(step(make_pod(policy), T0), at(5))
    pod = {**pod, "status": crash(pod, at(10), exit_code=exit_code)}
    pod = step(pod, at(10))
    assert pod["status"]["phase"] == phase
    assert (pod["status"]["containerStatuses"][0]["restartCount"] == 1) is restarts
    if not restarts:
        assert next_event_at(pod, PROFILE, at(10)) is None


def test_node_lost_marks_only_ready_false() -> None:
    pod = ready_pod()
    lost_node = set_node_ready(NODE, False, at(20))
    status = advance_pod(pod, node=lost_node, now=at(60), profile=PROFILE)
    assert status is not None
    assert condition({"status": status}, "Ready")["status"] == "False"
    assert condition({"status": status}, "ContainersReady")["status"] == "True"
    assert status["phase"] == "Running"
    assert status == node_lost(pod, at(60))
    frozen = {**pod, "status": status}
    assert advance_pod(frozen, node=lost_node, now=at(999), profile=PROFILE) is None


def deleting(pod: dict[str, Any], requested: float, grace: int) -> dict[str, Any]:
    metadata = pod["metadata"] | {
        "deletionTimestamp": at(requested + grace).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "deletionGracePeriodSeconds": grace,
    }
    return {**pod, "metadata": metadata}


@pytest.mark.parametrize(
    ("grace", "finish"),
    [(30, 11), (0, 10)],
    ids=["profile-termination", "grace-zero-immediate"],
)
def test_termination(grace: int, finish: float) -> None:
    pod = deleting(ready_pod(), 10, grace)
    assert next_event_at(pod, PROFILE, at(10)) == at(finish)
    if finish > 10:
        draining = step(pod, at(10))
        assert condition(draining, "Ready")["status"] == "False"
        assert not should_remove(draining)
    done = step(pod, at(finish))
    assert done["status"]["phase"] == "Succeeded"
    assert done["status"]["containerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"
    assert should_remove(done)
    assert next_event_at(done, PROFILE, at(finish)) is None


def test_unknown_status_fields_survive() -> None:
    pod = make_pod()
    pod["status"]["custom"] = {"keep": 1}
    assert step(pod, T0)["status"]["custom"] == {"keep": 1}


ACTIONS = st.lists(
    st.tuples(st.sampled_from(["advance", "crash"]), st.floats(0, 120, allow_nan=False)),
    max_size=25,
)


@settings(max_examples=80, deadline=None)
@given(ACTIONS)
def test_ready_never_before_running_and_restarts_never_drop(
    actions: list[tuple[str, float]],
) -> None:
    pod = make_pod()
    moment = T0
    last_restarts = 0
    for action, delta in actions:
        moment = moment + timedelta(seconds=round(delta))
        pod = {**pod, "status": crash(pod, moment)} if action == "crash" else step(pod, moment)
        for container in (pod.get("status") or {}).get("containerStatuses") or []:
            assert container["restartCount"] >= last_restarts
            last_restarts = container["restartCount"]
            if container["ready"]:
                assert "running" in container["state"]
                assert pod["status"]["phase"] == "Running"
        ready = [
            c for c in (pod.get("status") or {}).get("conditions") or [] if c["type"] == "Ready"
        ]
        if ready and ready[0]["status"] == "True":
            assert pod["status"]["phase"] == "Running"
