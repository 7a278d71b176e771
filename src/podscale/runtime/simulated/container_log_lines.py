"""What a simulated container writes to its log: its lifecycle, as lines at simulated times.

Pure and level-triggered, like ``podscale.runtime.simulated.kubelet_state.advance_pod``:
``advance_log`` takes one container's status (in the pod the kubelet just wrote or read), the
``LogCursor`` of what its log already says, and ``now``; it returns the lines to append and the new
cursor. Calling it again with the same status adds nothing, and a status that skipped steps (several
transitions in one kubelet step, or a log store that started late) still gets every line, stamped
with the times the status records (``startedAt``, ``finishedAt``, the deletion request) rather than
the time of the call.

An instance of a container is numbered by its ``restartCount`` while it runs: the
kubelet's state machine bumps the count when the next instance starts, and keeps a dead
instance in ``state.terminated`` or (backing off) in ``lastState.terminated`` under the
same count. ``container_logs.ContainerLogs`` keeps the lines per instance; the kubelets
(``kubelets.SimulatedKubelets``) call ``advance_log`` after each step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from podscale.runtime.simulated.pod_status import parse_time

__all__ = ["LogCursor", "LogLine", "advance_log", "instance_of", "last_termination"]


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line of instance ``instance``; ``ends`` marks the instance's last line."""

    instance: int
    at: datetime
    text: str
    ends: bool = False


@dataclass(frozen=True, slots=True)
class LogCursor:
    """What the log of instance ``instance`` already says."""

    instance: int
    started: bool = False
    ready: bool = False
    stopping: bool = False
    exited: bool = False


def instance_of(container: Mapping[str, Any]) -> int:
    return int(container.get("restartCount") or 0)


def last_termination(container: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The termination of the current instance: in ``state`` right after it ended, in
    ``lastState`` while the kubelet backs off before restarting it."""
    state = container.get("state") or {}
    if "terminated" in state:
        return dict(state["terminated"] or {})
    if (state.get("waiting") or {}).get("reason") == "CrashLoopBackOff":
        return dict((container.get("lastState") or {}).get("terminated") or {}) or None
    return None


def _exit_line(name: str, instance: int, terminated: Mapping[str, Any], now: datetime) -> LogLine:
    code = int(terminated.get("exitCode") or 0)
    reason = str(terminated.get("reason") or "Error")
    at = parse_time(str(terminated["finishedAt"])) if terminated.get("finishedAt") else now
    text = f'podscale: container "{name}" exited with code {code} ({reason})'
    return LogLine(instance, at, text, ends=True)


def _stopping_line(name: str, instance: int, metadata: Mapping[str, Any], now: datetime) -> LogLine:
    grace = int(metadata.get("deletionGracePeriodSeconds") or 0)
    deadline = metadata.get("deletionTimestamp")
    requested = parse_time(str(deadline)) - timedelta(seconds=grace) if deadline else now
    text = (
        f'podscale: container "{name}" received SIGTERM: the pod is being deleted '
        f"(grace period {grace}s)"
    )
    return LogLine(instance, min(requested, now), text)


def advance_log(
    pod: Mapping[str, Any],
    container: Mapping[str, Any],
    cursor: LogCursor | None,
    now: datetime,
) -> tuple[list[LogLine], LogCursor]:
    """The lines ``container`` (a ``containerStatuses`` entry of ``pod``) adds to its log
    since ``cursor`` (None: nothing written yet), and the new cursor."""
    name = str(container.get("name", ""))
    instance = instance_of(container)
    lines: list[LogLine] = []
    previous = (container.get("lastState") or {}).get("terminated")
    if cursor is not None and cursor.instance < instance and not cursor.exited and previous:
        # The instance we were writing died and was replaced between two looks.
        lines.append(_exit_line(name, cursor.instance, previous, now))
    if cursor is None or cursor.instance != instance:
        cursor = LogCursor(instance)
    state = container.get("state") or {}
    running = state.get("running")
    terminated = last_termination(container)
    started_at = (running or terminated or {}).get("startedAt")
    if started_at and not cursor.started:
        image = str(container.get("image", ""))
        text = f'podscale: simulated container "{name}" started (image "{image}")'
        if instance:
            text += f", restart {instance}"
        lines.append(LogLine(instance, parse_time(str(started_at)), text))
        cursor = replace(cursor, started=True)
    if not cursor.started:
        return lines, cursor  # still being created: nothing to say yet
    metadata = pod.get("metadata") or {}
    if running is not None and container.get("ready") and not cursor.ready:
        lines.append(LogLine(instance, now, f'podscale: container "{name}" is ready'))
        cursor = replace(cursor, ready=True)
    # A running container told to stop (or one that already stopped for the deletion).
    was_running = running is not None or (terminated or {}).get("reason") == "Completed"
    stopping = metadata.get("deletionTimestamp") and was_running
    if stopping and not cursor.stopping and not cursor.exited:
        lines.append(_stopping_line(name, instance, metadata, now))
        cursor = replace(cursor, stopping=True)
    if terminated is not None and not cursor.exited:
        lines.append(_exit_line(name, instance, terminated, now))
        cursor = replace(cursor, exited=True)
    return lines, cursor
