"""The simulated kubelet: a pure state machine from a pod and the time to its next status.

``advance_pod`` is level-triggered: given the stored pod, its node and ``now`` it returns the
status the kubelet would report (or None when nothing changed); ``next_event_at`` tells a
virtual-time driver when calling again can change something. All kubelet memory lives in
the status itself (start times, restart counts, last termination), so a restart of the
driver loses nothing.

Lifecycle: first sight sets ``startTime`` with containers waiting in ContainerCreating;
after ``profile.startup`` they run (started, not ready); ``profile.readiness_delay`` after a
container starts it is ready, and the pod's Ready/ContainersReady conditions flip with a
``lastTransitionTime`` (Ready also waits for every ``spec.readinessGates`` condition to be
True: conditions another writer sets, which the kubelet keeps as they are). ``crash``
terminates running containers; the kubelet restarts them with upstream's CrashLoopBackOff
(first restart at once, then 10s doubling to 300s); ``restartCount`` grows when the new
container starts, as the runtime reports it. A node
whose Ready condition is not True freezes its pods and the node lifecycle controller marks
them not ready (``node_lost``). A pod with ``deletionTimestamp`` stops being ready and its
containers exit after ``profile.termination`` (bounded by its grace period); then
``should_remove`` says the driver may delete it for good.

Neighbours: ``podscale.runtime.simulated.scheduling`` binds pods first,
``podscale.runtime.simulated.node_objects`` builds the nodes,
``podscale.runtime.simulated.pod_status`` holds the condition bookkeeping.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from podscale.api.json_copy import copy_json
from podscale.hpa.conditions import format_time
from podscale.runtime.simulated.node_objects import node, set_node_ready
from podscale.runtime.simulated.pod_status import (
    crash_loop_backoff,
    format_go_duration,
    parse_time,
    pod_ref,
    readiness_gates,
    set_condition,
    update_readiness,
)
from podscale.runtime.simulated.scheduling import is_node_ready

__all__ = [
    "DEFAULT_PROFILE",
    "StartupProfile",
    "advance_pod",
    "crash",
    "crash_loop_backoff",
    "next_event_at",
    "node",
    "node_lost",
    "set_node_ready",
    "should_remove",
]

_TERMINAL: Final = ("Succeeded", "Failed")


@dataclass(frozen=True, slots=True)
class StartupProfile:
    """How long a simulated pod takes to start, become ready, and shut down."""

    startup: timedelta = field(default=timedelta(seconds=2))
    readiness_delay: timedelta = field(default=timedelta(seconds=3))
    termination: timedelta = field(default=timedelta(seconds=1))


DEFAULT_PROFILE: Final = StartupProfile()


def _containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return list((pod.get("spec") or {}).get("containers") or [])


def _initial_statuses(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "name": c.get("name", ""),
            "image": c.get("image", ""),
            "imageID": "",
            "ready": False,
            "restartCount": 0,
            "started": False,
            "state": {"waiting": {"reason": "ContainerCreating"}},
            "lastState": {},
        }
        for c in _containers(pod)
    ]


def _restart_policy(pod: dict[str, Any]) -> str:
    return str((pod.get("spec") or {}).get("restartPolicy") or "Always")


def _should_restart(pod: dict[str, Any], exit_code: int) -> bool:
    policy = _restart_policy(pod)
    return policy == "Always" or (policy == "OnFailure" and exit_code != 0)


def _last_termination(container: dict[str, Any]) -> dict[str, Any] | None:
    state = container.get("state") or {}
    if "terminated" in state:
        return dict(state["terminated"])
    if "waiting" in state and state["waiting"].get("reason") == "CrashLoopBackOff":
        return dict((container.get("lastState") or {}).get("terminated") or {})
    return None


def _restart_at(container: dict[str, Any]) -> datetime | None:
    terminated = _last_termination(container)
    if terminated is None or not terminated.get("finishedAt"):
        return None
    delay = crash_loop_backoff(int(container.get("restartCount", 0)))
    return parse_time(terminated["finishedAt"]) + delay


def _advance_container(
    pod: dict[str, Any],
    status: dict[str, Any],
    container: dict[str, Any],
    now: datetime,
    profile: StartupProfile,
) -> None:
    state = container.get("state") or {}
    waiting = state.get("waiting") or {}
    if waiting.get("reason") == "ContainerCreating":
        started_at = parse_time(status["startTime"]) + profile.startup
        if now >= started_at:
            container["state"] = {"running": {"startedAt": format_time(started_at)}}
            container["started"] = True
        return
    if "running" in state:
        ready_at = parse_time(state["running"]["startedAt"]) + profile.readiness_delay
        container["ready"] = now >= ready_at
        return
    terminated = _last_termination(container)
    if terminated is None or not _should_restart(pod, int(terminated.get("exitCode", 0))):
        return
    restart_at = _restart_at(container)
    if restart_at is not None and now >= restart_at:
        container["restartCount"] = int(container.get("restartCount", 0)) + 1
        container["lastState"] = {"terminated": terminated}
        container["state"] = {"running": {"startedAt": format_time(restart_at)}}
        container["started"] = True
        container["ready"] = now >= restart_at + profile.readiness_delay
        return
    backoff = crash_loop_backoff(int(container.get("restartCount", 0)))
    message = (
        f"back-off {format_go_duration(backoff)} restarting failed "
        f"container={container.get('name', '')} pod={pod_ref(pod)}"
    )
    container["lastState"] = {"terminated": terminated}
    container["state"] = {"waiting": {"reason": "CrashLoopBackOff", "message": message}}


def _pod_phase(pod: dict[str, Any], containers: list[dict[str, Any]]) -> str:
    states = [c.get("state") or {} for c in containers]
    exit_codes = [int(s["terminated"].get("exitCode", 0)) for s in states if "terminated" in s]
    all_exited = bool(states) and len(exit_codes) == len(states)
    if all_exited and not any(_should_restart(pod, code) for code in exit_codes):
        return "Failed" if any(code != 0 for code in exit_codes) else "Succeeded"
    if all((s.get("waiting") or {}).get("reason") == "ContainerCreating" for s in states):
        return "Pending"
    return "Running"


def _terminate(
    pod: dict[str, Any], status: dict[str, Any], now: datetime, profile: StartupProfile
) -> None:
    finish_at = _termination_finish(pod, profile)
    for container in status.get("containerStatuses") or []:
        container["ready"] = False
        if now >= finish_at and "terminated" not in (container.get("state") or {}):
            running = (container.get("state") or {}).get("running") or {}
            container["state"] = {
                "terminated": {
                    "exitCode": 0,
                    "reason": "Completed",
                    "startedAt": running.get("startedAt"),
                    "finishedAt": format_time(finish_at),
                }
            }
            container["started"] = False
    if now >= finish_at:
        status["phase"] = "Failed" if status.get("phase") == "Failed" else "Succeeded"


def _termination_finish(pod: dict[str, Any], profile: StartupProfile) -> datetime:
    metadata = pod.get("metadata") or {}
    grace = timedelta(seconds=int(metadata.get("deletionGracePeriodSeconds") or 0))
    requested = parse_time(metadata["deletionTimestamp"]) - grace
    return requested + min(profile.termination, grace) if grace else requested


def advance_pod(
    pod: dict[str, Any], *, node: dict[str, Any], now: datetime, profile: StartupProfile
) -> dict[str, Any] | None:
    """The pod's new ``status`` at ``now`` on ``node``, or None if the kubelet reports no change."""
    old = pod.get("status") or {}
    if old.get("phase") in _TERMINAL:
        return None
    if not is_node_ready(node):
        lost = node_lost(pod, now)
        return None if lost == old else lost
    status = copy_json(old)
    if "startTime" not in status:
        status["startTime"] = format_time(now)
        status["phase"] = "Pending"
        status["containerStatuses"] = _initial_statuses(pod)
        set_condition(status, "PodReadyToStartContainers", "True", now)
        set_condition(status, "Initialized", "True", now)
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        _terminate(pod, status, now, profile)
    else:
        for container in status.get("containerStatuses") or []:
            # A late call may cross several steps (created, running, ready) at once.
            before = None
            while before != container:
                before = copy_json(container)
                _advance_container(pod, status, container, now, profile)
        status["phase"] = _pod_phase(pod, status.get("containerStatuses") or [])
    update_readiness(status, now, readiness_gates(pod))
    return None if status == old else status


def crash(
    pod: dict[str, Any],
    now: datetime,
    reason: str = "Error",
    exit_code: int = 1,
    container: str | None = None,
) -> dict[str, Any]:
    """The status after the running containers (or only ``container``) exit with ``exit_code``."""
    status = copy_json(pod.get("status") or {})
    for entry in status.get("containerStatuses") or []:
        running = (entry.get("state") or {}).get("running")
        if running is None or (container is not None and entry.get("name") != container):
            continue
        entry["state"] = {
            "terminated": {
                "exitCode": exit_code,
                "reason": reason,
                "startedAt": running.get("startedAt"),
                "finishedAt": format_time(now),
            }
        }
        entry["ready"] = False
        entry["started"] = False
    if status.get("containerStatuses"):
        status["phase"] = _pod_phase(pod, status["containerStatuses"])
        update_readiness(status, now, readiness_gates(pod))
    return status


def node_lost(pod: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The status once the node lifecycle controller sees the node NotReady: only the pod's
    Ready condition turns False (upstream ``MarkPodsNotReady``); phase and containers stay."""
    status = copy_json(pod.get("status") or {})
    if any(c.get("type") == "Ready" for c in status.get("conditions") or []):
        set_condition(status, "Ready", "False", now)
    return status


def should_remove(pod: dict[str, Any]) -> bool:
    """A deleted pod the kubelet has finished with: the driver deletes it with grace 0."""
    metadata = pod.get("metadata") or {}
    return bool(metadata.get("deletionTimestamp")) and (
        (pod.get("status") or {}).get("phase") in _TERMINAL
    )


def next_event_at(pod: dict[str, Any], profile: StartupProfile, now: datetime) -> datetime | None:
    """The earliest moment >= ``now`` at which ``advance_pod`` may change this pod, or None."""
    status = pod.get("status") or {}
    if status.get("phase") in _TERMINAL:
        return None
    if "startTime" not in status:
        return now
    candidates: list[datetime] = []
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        candidates.append(_termination_finish(pod, profile))
    else:
        for container in status.get("containerStatuses") or []:
            state = container.get("state") or {}
            if (state.get("waiting") or {}).get("reason") == "ContainerCreating":
                candidates.append(parse_time(status["startTime"]) + profile.startup)
            elif "running" in state and not container.get("ready"):
                started = parse_time(state["running"]["startedAt"])
                candidates.append(started + profile.readiness_delay)
            else:
                terminated = _last_termination(container)
                restart_at = _restart_at(container)
                exit_code = int((terminated or {}).get("exitCode", 0))
                if restart_at is not None and _should_restart(pod, exit_code):
                    candidates.append(restart_at)
    if not candidates:
        return None
    return max(now, min(candidates))
