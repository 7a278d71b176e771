"""The simulated kubelet's Ready condition with readiness gates, as upstream's
``GeneratePodReadyCondition``: containers first, then every gate's condition must be True;
conditions another writer set are kept across the kubelet's status writes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.runtime.simulated.kubelet_state import StartupProfile, advance_pod, node
from podscale.runtime.simulated.pod_status import READINESS_GATES_NOT_READY
from podscale.runtime.simulated.scheduling import bind

T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
PROFILE = StartupProfile()
NODE = node("n1", now=T0)
GATE = "kapacitystack.io/online"
OTHER = "example.com/warm"


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def gated_pod(*gates: str, conditions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    pod = {
        "metadata": {"name": "web-1", "namespace": "default", "uid": "u-1"},
        "spec": {
            "containers": [{"name": "app", "image": "nginx"}],
            "readinessGates": [{"conditionType": g} for g in gates],
        },
    }
    bound = bind(pod, "n1", T0)
    if conditions is not None:
        bound["status"] = {"conditions": conditions}
    return bound


def run_until(pod: dict[str, Any], seconds: float) -> dict[str, Any]:
    for moment in (at(0), at(seconds)):
        status = advance_pod(pod, node=NODE, now=moment, profile=PROFILE)
        pod = pod if status is None else {**pod, "status": status}
    return pod


def set_gate(pod: dict[str, Any], gate: str, value: str) -> dict[str, Any]:
    conditions = [c for c in pod["status"]["conditions"] if c["type"] != gate]
    conditions.append({"type": gate, "status": value})
    return {**pod, "status": {**pod["status"], "conditions": conditions}}


def condition(pod: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in pod["status"]["conditions"] if c["type"] == kind)


MISSING = f'corresponding condition of pod readiness gate "{GATE}" does not exist.'
FALSE = f'the status of pod readiness gate "{GATE}" is not "True", but False'
OTHER_MISSING = f'corresponding condition of pod readiness gate "{OTHER}" does not exist.'


@pytest.mark.parametrize(
    ("gates", "values", "expected"),
    [
        ((), {}, ("True", None, None)),
        ((GATE,), {}, ("False", READINESS_GATES_NOT_READY, MISSING)),
        ((GATE,), {GATE: "False"}, ("False", READINESS_GATES_NOT_READY, FALSE)),
        ((GATE,), {GATE: "True"}, ("True", None, None)),
        (
            (GATE, OTHER),
            {GATE: "False"},
            ("False", READINESS_GATES_NOT_READY, f"{FALSE}, {OTHER_MISSING}"),
        ),
        ((GATE, OTHER), {GATE: "True", OTHER: "True"}, ("True", None, None)),
    ],
    ids=[
        "no-gates-ready-with-containers",
        "gate-condition-missing",
        "gate-false",
        "gate-true",
        "two-gates-messages-joined-in-spec-order",
        "all-gates-true",
    ],
)
def test_ready_needs_every_gate_true(
    gates: tuple[str, ...], values: dict[str, str], expected: tuple[str, str | None, str | None]
) -> None:
    pod = run_until(gated_pod(*gates), 1)
    for gate, value in values.items():
        pod = set_gate(pod, gate, value)
    status = advance_pod(pod, node=NODE, now=at(10), profile=PROFILE)
    pod = pod if status is None else {**pod, "status": status}
    ready = condition(pod, "Ready")
    assert (ready["status"], ready.get("reason"), ready.get("message")) == expected
    assert condition(pod, "ContainersReady")["status"] == "True"


def test_unready_containers_decide_before_the_gates() -> None:
    pod = gated_pod(GATE)
    status = advance_pod(pod, node=NODE, now=at(0), profile=PROFILE)
    assert status is not None
    status = advance_pod({**pod, "status": status}, node=NODE, now=at(3), profile=PROFILE)
    assert status is not None
    ready = next(c for c in status["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"]) == ("False", "ContainersNotReady")


def test_the_kubelet_keeps_a_gate_condition_it_does_not_own() -> None:
    pod = set_gate(run_until(gated_pod(GATE), 1), GATE, "True")
    pod = run_until(pod, 10)
    assert condition(pod, GATE)["status"] == "True"
    assert condition(pod, "Ready")["status"] == "True"
    # Turning the gate off makes the next kubelet step report the pod not ready.
    off = set_gate(pod, GATE, "False")
    status = advance_pod(off, node=NODE, now=at(20), profile=PROFILE)
    assert status is not None
    ready = next(c for c in status["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["message"]) == ("False", FALSE)
    assert ready["lastTransitionTime"] == "2026-01-01T12:00:20Z"
