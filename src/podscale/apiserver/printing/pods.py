"""The pod row: READY, STATUS and RESTARTS computed the way upstream's ``printPod`` does.

STATUS is the one cell with real logic: the phase (or ``status.reason``), overridden by the
first unfinished init container (``Init:1/3``, ``Init:CrashLoopBackOff``, ``Init:ExitCode:1``),
then by the last container with a waiting or terminated reason (``CrashLoopBackOff``,
``Completed``, ``Error``), then by deletion (``Terminating``, ``Unknown`` for a lost node).
Restartable init containers (sidecars, ``restartPolicy: Always``) count towards READY and
RESTARTS. Columns are ``printing.columns.POD_COLUMNS``; ``printing`` calls ``print_pod``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from podscale.apiserver.printing.format import (
    age_since,
    as_int,
    as_str,
    dicts_at,
    parse_time,
    since,
    value_at,
)

__all__ = ["print_pod"]

JSON = dict[str, Any]

_NONE: Final = "<none>"
# node.NodeUnreachablePodReason: the node controller marks pods of a lost node with it.
_NODE_LOST: Final = "NodeLost"
_TERMINAL_PHASES: Final = ("Succeeded", "Failed")
# metav1.TableRowCondition rows upstream attaches to finished pods.
_COMPLETED_CONDITIONS: Final = {
    "Succeeded": {
        "type": "Completed",
        "status": "True",
        "reason": "Succeeded",
        "message": "The pod has completed successfully.",
    },
    "Failed": {
        "type": "Completed",
        "status": "True",
        "reason": "Failed",
        "message": "The pod failed.",
    },
}


@dataclass
class _Tally:
    """What the container walk accumulates; ``last_restart`` None is Go's zero time."""

    reason: str
    ready: int = 0
    restarts: int = 0
    last_restart: datetime | None = None

    def count_restarts(self, status: JSON) -> None:
        self.restarts += as_int(status.get("restartCount"))
        self.last_restart = _later(self.last_restart, _last_termination(status))


def print_pod(pod: JSON, now: datetime) -> JSON:
    """The TableRow (without ``object``) for one pod: cells and, when finished, conditions."""
    spec, status = value_at(pod, "spec"), value_at(pod, "status")
    phase = as_str(value_at(status, "phase"))
    tally = _Tally(reason=as_str(value_at(status, "reason")) or phase)
    for condition in dicts_at(status, "conditions"):
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            tally.reason = "SchedulingGated"

    init_specs = dicts_at(spec, "initContainers")
    sidecars = {as_str(c.get("name")) for c in init_specs if c.get("restartPolicy") == "Always"}
    total = len(dicts_at(spec, "containers")) + sum(
        1 for c in init_specs if c.get("restartPolicy") == "Always"
    )

    sidecar_tally = _Tally(reason="")
    initializing = _walk_init_containers(status, len(init_specs), sidecars, tally, sidecar_tally)
    if not initializing or _condition_true(status, "Initialized"):
        # Once initialized, only sidecar restarts carry over from the init phase.
        tally.restarts, tally.last_restart = sidecar_tally.restarts, sidecar_tally.last_restart
        _walk_containers(status, tally)

    if value_at(pod, "metadata", "deletionTimestamp") is not None:
        if value_at(status, "reason") == _NODE_LOST:
            tally.reason = "Unknown"
        elif phase not in _TERMINAL_PHASES:
            tally.reason = "Terminating"

    restarts = str(tally.restarts)
    if tally.restarts != 0 and tally.last_restart is not None:
        restarts = f"{tally.restarts} ({since(tally.last_restart, now)} ago)"
    cells: list[Any] = [
        as_str(value_at(pod, "metadata", "name")),
        f"{tally.ready}/{total}",
        tally.reason,
        restarts,
        age_since(value_at(pod, "metadata", "creationTimestamp"), now),
        *_wide_cells(spec, status),
    ]
    row: JSON = {"cells": cells}
    if phase in _COMPLETED_CONDITIONS:
        row["conditions"] = [dict(_COMPLETED_CONDITIONS[phase])]
    return row


def _walk_init_containers(
    status: Any, init_count: int, sidecars: set[str], tally: _Tally, sidecar_tally: _Tally
) -> bool:
    """Scan init container statuses up to the first unfinished one; True if still initializing."""
    for index, container in enumerate(dicts_at(status, "initContainerStatuses")):
        tally.count_restarts(container)
        is_sidecar = as_str(container.get("name")) in sidecars
        if is_sidecar:
            sidecar_tally.count_restarts(container)
        terminated = value_at(container, "state", "terminated")
        waiting_reason = as_str(value_at(container, "state", "waiting", "reason"))
        if isinstance(terminated, dict) and as_int(terminated.get("exitCode")) == 0:
            continue
        if is_sidecar and container.get("started") is True:
            if container.get("ready") is True:
                tally.ready += 1
            continue
        if isinstance(terminated, dict):
            tally.reason = "Init:" + _termination_reason(terminated)
        elif waiting_reason and waiting_reason != "PodInitializing":
            tally.reason = "Init:" + waiting_reason
        else:
            tally.reason = f"Init:{index}/{init_count}"
        return True
    return False


def _walk_containers(status: Any, tally: _Tally) -> None:
    """Walk app containers last to first: the first container's state has the last word."""
    has_running = False
    for container in reversed(dicts_at(status, "containerStatuses")):
        tally.count_restarts(container)
        waiting_reason = as_str(value_at(container, "state", "waiting", "reason"))
        terminated = value_at(container, "state", "terminated")
        if waiting_reason:
            tally.reason = waiting_reason
        elif isinstance(terminated, dict):
            tally.reason = _termination_reason(terminated)
        elif container.get("ready") is True and value_at(container, "state", "running") is not None:
            has_running = True
            tally.ready += 1
    # A pod whose finished container sits next to a live one is still running.
    if tally.reason == "Completed" and has_running:
        tally.reason = "Running" if _condition_true(status, "Ready") else "NotReady"


def _termination_reason(terminated: JSON) -> str:
    """The terminated reason, else ``Signal:N`` or ``ExitCode:N`` (no ``Init:`` prefix)."""
    reason = as_str(terminated.get("reason"))
    if reason:
        return reason
    signal = as_int(terminated.get("signal"))
    if signal != 0:
        return f"Signal:{signal}"
    return f"ExitCode:{as_int(terminated.get('exitCode'))}"


def _last_termination(container: JSON) -> datetime | None:
    return parse_time(value_at(container, "lastState", "terminated", "finishedAt"))


def _later(current: datetime | None, candidate: datetime | None) -> datetime | None:
    if candidate is None:
        return current
    if current is None or current < candidate:
        return candidate
    return current


def _condition_true(status: Any, condition_type: str) -> bool:
    """Whether the first condition of ``condition_type`` has status True."""
    for condition in dicts_at(status, "conditions"):
        if condition.get("type") == condition_type:
            return condition.get("status") == "True"
    return False


def _wide_cells(spec: Any, status: Any) -> list[str]:
    """IP, Node, Nominated Node and Readiness Gates (``true/total`` of the gate conditions)."""
    ips = dicts_at(status, "podIPs")
    pod_ip = as_str(ips[0].get("ip")) if ips else ""
    gates = dicts_at(spec, "readinessGates")
    readiness = _NONE
    if gates:
        conditions = dicts_at(status, "conditions")
        passed = 0
        for gate in gates:
            match = next(
                (c for c in conditions if c.get("type") == gate.get("conditionType")), None
            )
            if match is not None and match.get("status") == "True":
                passed += 1
        readiness = f"{passed}/{len(gates)}"
    return [
        pod_ip or _NONE,
        as_str(value_at(spec, "nodeName")) or _NONE,
        as_str(value_at(status, "nominatedNodeName")) or _NONE,
        readiness,
    ]
