"""Pod rows: READY, STATUS and RESTARTS as ``kubectl get pods`` shows them from upstream."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.apiserver.printing.pods import print_pod

NOW = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
CREATED = "2026-11-22T11:00:00Z"  # the Age cell is always "60m"


def ago(**delta: float) -> str:
    return (NOW - timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%SZ")


def running(name: str = "app", *, ready: bool = True, restarts: int = 0) -> dict[str, Any]:
    return {"name": name, "ready": ready, "restartCount": restarts, "state": {"running": {}}}


def waiting(name: str, reason: str, *, restarts: int = 0, **extra: Any) -> dict[str, Any]:
    status = {"name": name, "ready": False, "restartCount": restarts}
    return {**status, "state": {"waiting": {"reason": reason}}, **extra}


def terminated(name: str, *, restarts: int = 0, **state: Any) -> dict[str, Any]:
    return {"name": name, "ready": False, "restartCount": restarts, "state": {"terminated": state}}


def last_terminated(minutes_ago: float) -> dict[str, Any]:
    return {"lastState": {"terminated": {"exitCode": 1, "finishedAt": ago(minutes=minutes_ago)}}}


def pod(
    phase: str = "Running",
    statuses: list[dict[str, Any]] | None = None,
    *,
    containers: int = 1,
    init: list[dict[str, Any]] | None = None,
    init_statuses: list[dict[str, Any]] | None = None,
    conditions: list[dict[str, Any]] | None = None,
    reason: str | None = None,
    deleted: bool = False,
) -> dict[str, Any]:
    status: dict[str, Any] = {"phase": phase, "containerStatuses": statuses or []}
    if init_statuses is not None:
        status["initContainerStatuses"] = init_statuses
    if conditions is not None:
        status["conditions"] = conditions
    if reason is not None:
        status["reason"] = reason
    metadata: dict[str, Any] = {"name": "web-1", "creationTimestamp": CREATED}
    if deleted:
        metadata["deletionTimestamp"] = ago(seconds=5)
    spec = {
        "containers": [{"name": f"c{i}", "image": "nginx"} for i in range(containers)],
        "initContainers": init or [],
    }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


READY = {"type": "Ready", "status": "True"}
INITIALIZED = {"type": "Initialized", "status": "True"}
INIT_TWO = [{"name": "i0", "image": "busybox"}, {"name": "i1", "image": "busybox"}]
SIDECAR = [{"name": "proxy", "image": "envoy", "restartPolicy": "Always"}]

# (id, pod, ready, status, restarts)
STATUS_CASES = [
    ("running", pod(statuses=[running()]), "1/1", "Running", "0"),
    (
        "partly-ready",
        pod(statuses=[running("a"), running("b", ready=False)], containers=2),
        "1/2",
        "Running",
        "0",
    ),
    ("pending-no-statuses", pod("Pending"), "0/1", "Pending", "0"),
    (
        "container-creating",
        pod("Pending", [waiting("app", "ContainerCreating")]),
        "0/1",
        "ContainerCreating",
        "0",
    ),
    (
        "crash-loop-with-last-restart",
        pod(statuses=[waiting("app", "CrashLoopBackOff", restarts=5, **last_terminated(5))]),
        "0/1",
        "CrashLoopBackOff",
        "5 (5m ago)",
    ),
    (
        "restarts-without-termination-time",
        pod(statuses=[running(restarts=2)]),
        "1/1",
        "Running",
        "2",
    ),
    (
        "restart-age-from-latest-container",
        pod(
            statuses=[
                {**running("a", restarts=1), **last_terminated(90)},
                {**running("b", restarts=2), **last_terminated(3)},
            ],
            containers=2,
        ),
        "2/2",
        "Running",
        "3 (3m ago)",
    ),
    (
        "completed",
        pod("Succeeded", [terminated("app", exitCode=0, reason="Completed")]),
        "0/1",
        "Completed",
        "0",
    ),
    (
        "error-reason",
        pod("Failed", [terminated("app", exitCode=1, reason="Error")]),
        "0/1",
        "Error",
        "0",
    ),
    (
        "exit-code-without-reason",
        pod("Failed", [terminated("app", exitCode=3)]),
        "0/1",
        "ExitCode:3",
        "0",
    ),
    (
        "signal-without-reason",
        pod("Failed", [terminated("app", exitCode=137, signal=9)]),
        "0/1",
        "Signal:9",
        "0",
    ),
    (
        "first-container-decides",
        pod(
            statuses=[waiting("a", "ImagePullBackOff"), waiting("b", "ErrImagePull")], containers=2
        ),
        "0/2",
        "ImagePullBackOff",
        "0",
    ),
    (
        "completed-next-to-running-is-running",
        pod(
            statuses=[terminated("job", exitCode=0, reason="Completed"), running("srv")],
            containers=2,
            conditions=[READY],
        ),
        "1/2",
        "Running",
        "0",
    ),
    (
        "completed-next-to-running-not-ready",
        pod(
            statuses=[terminated("job", exitCode=0, reason="Completed"), running("srv")],
            containers=2,
        ),
        "1/2",
        "NotReady",
        "0",
    ),
    ("evicted-reason", pod("Failed", reason="Evicted"), "0/1", "Evicted", "0"),
    (
        "scheduling-gated",
        pod(
            "Pending",
            conditions=[{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}],
        ),
        "0/1",
        "SchedulingGated",
        "0",
    ),
    ("terminating", pod(statuses=[running()], deleted=True), "1/1", "Terminating", "0"),
    (
        "terminating-node-lost",
        pod(statuses=[running()], reason="NodeLost", deleted=True),
        "1/1",
        "Unknown",
        "0",
    ),
    (
        "deleted-but-finished-keeps-status",
        pod("Succeeded", [terminated("app", exitCode=0, reason="Completed")], deleted=True),
        "0/1",
        "Completed",
        "0",
    ),
    (
        "init-progress",
        pod(
            "Pending",
            init=INIT_TWO,
            init_statuses=[terminated("i0", exitCode=0), running("i1", ready=False)],
        ),
        "0/1",
        "Init:1/2",
        "0",
    ),
    (
        "init-not-started",
        pod(
            "Pending",
            init=INIT_TWO,
            init_statuses=[waiting("i0", "PodInitializing"), waiting("i1", "PodInitializing")],
        ),
        "0/1",
        "Init:0/2",
        "0",
    ),
    (
        "init-crash-loop",
        pod(
            "Pending",
            init=INIT_TWO,
            init_statuses=[waiting("i0", "CrashLoopBackOff", restarts=4, **last_terminated(2))],
        ),
        "0/1",
        "Init:CrashLoopBackOff",
        "4 (2m ago)",
    ),
    (
        "init-error-reason",
        pod("Pending", init=INIT_TWO, init_statuses=[terminated("i0", exitCode=1, reason="Error")]),
        "0/1",
        "Init:Error",
        "0",
    ),
    (
        "init-exit-code",
        pod("Pending", init=INIT_TWO, init_statuses=[terminated("i0", exitCode=2)]),
        "0/1",
        "Init:ExitCode:2",
        "0",
    ),
    (
        "init-signal",
        pod("Pending", init=INIT_TWO, init_statuses=[terminated("i0", exitCode=1, signal=15)]),
        "0/1",
        "Init:Signal:15",
        "0",
    ),
    (
        "init-done-restarts-dropped",
        pod(
            statuses=[running()],
            init=INIT_TWO,
            conditions=[INITIALIZED],
            init_statuses=[terminated("i0", exitCode=0, restarts=3), terminated("i1", exitCode=0)],
        ),
        "1/1",
        "Running",
        "0",
    ),
    (
        "sidecar-counts-ready-and-restarts",
        pod(
            statuses=[running()],
            init=SIDECAR,
            conditions=[INITIALIZED],
            init_statuses=[{**running("proxy", restarts=1), "started": True, **last_terminated(7)}],
        ),
        "2/2",
        "Running",
        "1 (7m ago)",
    ),
    (
        "sidecar-not-started-blocks-init",
        pod("Pending", init=SIDECAR, init_statuses=[{**running("proxy"), "started": False}]),
        "0/2",
        "Init:0/1",
        "0",
    ),
]


@pytest.mark.parametrize(
    ("obj", "ready", "status", "restarts"),
    [case[1:] for case in STATUS_CASES],
    ids=[case[0] for case in STATUS_CASES],
)
def test_pod_ready_status_restarts(
    obj: dict[str, Any], ready: str, status: str, restarts: str
) -> None:
    cells = print_pod(obj, NOW)["cells"]
    assert cells[:5] == ["web-1", ready, status, restarts, "60m"]


WIDE_CASES = [
    ("unscheduled", {}, {}, ["<none>", "<none>", "<none>", "<none>"]),
    (
        "scheduled",
        {"nodeName": "node-a"},
        {"podIPs": [{"ip": "10.0.0.7"}, {"ip": "fd00::7"}], "podIP": "10.0.0.7"},
        ["10.0.0.7", "node-a", "<none>", "<none>"],
    ),
    (
        "nominated-and-gates",
        {"readinessGates": [{"conditionType": "lb/ready"}, {"conditionType": "dns/ready"}]},
        {
            "nominatedNodeName": "node-b",
            "conditions": [
                {"type": "lb/ready", "status": "True"},
                {"type": "dns/ready", "status": "False"},
            ],
        },
        ["<none>", "<none>", "node-b", "1/2"],
    ),
    (
        "gate-without-condition",
        {"readinessGates": [{"conditionType": "lb/ready"}]},
        {},
        ["<none>", "<none>", "<none>", "0/1"],
    ),
]


@pytest.mark.parametrize(
    ("spec", "status", "expected"),
    [case[1:] for case in WIDE_CASES],
    ids=[case[0] for case in WIDE_CASES],
)
def test_pod_wide_cells(spec: dict[str, Any], status: dict[str, Any], expected: list[str]) -> None:
    obj = {"metadata": {"name": "p"}, "spec": spec, "status": status}
    assert print_pod(obj, NOW)["cells"][5:] == expected


@pytest.mark.parametrize(
    ("phase", "conditions"),
    [
        (
            "Succeeded",
            [
                {
                    "type": "Completed",
                    "status": "True",
                    "reason": "Succeeded",
                    "message": "The pod has completed successfully.",
                }
            ],
        ),
        (
            "Failed",
            [
                {
                    "type": "Completed",
                    "status": "True",
                    "reason": "Failed",
                    "message": "The pod failed.",
                }
            ],
        ),
        ("Running", None),
    ],
    ids=["succeeded", "failed", "running-has-none"],
)
def test_finished_pods_carry_row_conditions(phase: str, conditions: object) -> None:
    assert print_pod(pod(phase), NOW).get("conditions") == conditions


def test_empty_pod_prints_zero_values() -> None:
    assert print_pod({}, NOW)["cells"] == [
        "",
        "0/0",
        "",
        "0",
        "<unknown>",
        "<none>",
        "<none>",
        "<none>",
        "<none>",
    ]
