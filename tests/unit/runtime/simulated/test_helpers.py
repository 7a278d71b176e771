"""The simulated cluster's small pure parts: per-pod profiles from annotations, the kubelet
events a status step announces, the Binding the scheduler posts, node spec checks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.runtime.clocks import VirtualClock
from podscale.runtime.simulated import (
    READINESS_DELAY_ANNOTATION,
    STARTUP_ANNOTATION,
    TERMINATION_ANNOTATION,
    NodeSpec,
    SimulatedNodes,
    binding_for,
    default_node_specs,
    profile_for,
)
from podscale.runtime.simulated.kubelet_state import DEFAULT_PROFILE, StartupProfile
from podscale.runtime.simulated.pod_events import (
    PodEvent,
    container_events,
    node_not_ready_event,
)

JSON = dict[str, Any]
S = timedelta(seconds=1)


def annotated(annotations: dict[str, str]) -> JSON:
    return {"metadata": {"name": "p", "annotations": annotations}}


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({}, DEFAULT_PROFILE),
        ({STARTUP_ANNOTATION: "30"}, StartupProfile(startup=30 * S)),
        (
            {READINESS_DELAY_ANNOTATION: "0.5", TERMINATION_ANNOTATION: "7"},
            StartupProfile(readiness_delay=S / 2, termination=7 * S),
        ),
        ({STARTUP_ANNOTATION: "-1"}, DEFAULT_PROFILE),
        ({STARTUP_ANNOTATION: "nan"}, DEFAULT_PROFILE),
        ({STARTUP_ANNOTATION: "soon"}, DEFAULT_PROFILE),
    ],
    ids=["none", "startup", "two", "negative", "nan", "garbage"],
)
def test_profile_for_reads_overrides(annotations: dict[str, str], expected: StartupProfile) -> None:
    assert profile_for(annotated(annotations), DEFAULT_PROFILE) == expected


def status(*containers: JSON, ready: str | None = None) -> JSON:
    result: JSON = {"containerStatuses": list(containers)}
    if ready is not None:
        result["conditions"] = [{"type": "Ready", "status": ready}]
    return result


def running(name: str, at: str) -> JSON:
    return {"name": name, "state": {"running": {"startedAt": at}}}


def waiting(name: str, reason: str) -> JSON:
    return {"name": name, "state": {"waiting": {"reason": reason}}}


POD: JSON = {"metadata": {"name": "web-1", "namespace": "default", "uid": "u1"}}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            status(waiting("a", "ContainerCreating")),
            status(running("a", "t1")),
            [PodEvent("Normal", "Started", "Started container a")],
        ),
        (status(running("a", "t1")), status(running("a", "t1")), []),
        (
            status(running("a", "t1")),
            status(running("a", "t2")),
            [PodEvent("Normal", "Started", "Started container a")],
        ),
        (
            status(running("a", "t1")),
            status(waiting("a", "CrashLoopBackOff")),
            [
                PodEvent(
                    "Warning",
                    "BackOff",
                    "Back-off restarting failed container a in pod web-1_default(u1)",
                )
            ],
        ),
        (status(waiting("a", "CrashLoopBackOff")), status(waiting("a", "CrashLoopBackOff")), []),
        (
            status(),
            status(waiting("a", "ContainerCreating"), waiting("b", "ContainerCreating")),
            [],
        ),
    ],
    ids=["started", "unchanged", "restarted", "back-off", "still-backing-off", "created"],
)
def test_container_events(old: JSON, new: JSON, expected: list[PodEvent]) -> None:
    assert container_events(POD, old, new) == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("True", "False", PodEvent("Warning", "NodeNotReady", "Node is not ready")),
        ("False", "False", None),
        (None, "False", None),
    ],
    ids=["ready-lost", "already-not-ready", "never-ready"],
)
def test_node_not_ready_event(old: str | None, new: str, expected: PodEvent | None) -> None:
    assert node_not_ready_event(status(ready=old), status(ready=new)) == expected


@pytest.mark.parametrize(
    ("metadata", "expected_metadata"),
    [
        (
            {"name": "p", "namespace": "ns", "uid": "u"},
            {"name": "p", "namespace": "ns", "uid": "u"},
        ),
        ({"name": "p", "namespace": "ns"}, {"name": "p", "namespace": "ns"}),
    ],
    ids=["with-uid", "without-uid"],
)
def test_binding_for(metadata: JSON, expected_metadata: JSON) -> None:
    assert binding_for({"metadata": metadata}, "node-1") == {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": expected_metadata,
        "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"},
    }


def test_default_node_specs_are_numbered_from_one() -> None:
    assert [spec.name for spec in default_node_specs(3)] == ["node-1", "node-2", "node-3"]


@pytest.mark.parametrize(
    ("specs", "heartbeat", "message"),
    [
        ([NodeSpec("a"), NodeSpec("a")], 10 * S, "unique"),
        ([NodeSpec("a")], timedelta(0), "positive"),
    ],
    ids=["duplicate-names", "zero-heartbeat"],
)
def test_simulated_nodes_refuse_bad_settings(
    specs: list[NodeSpec], heartbeat: timedelta, message: str
) -> None:
    clock = VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))
    with pytest.raises(ValueError, match=message):
        SimulatedNodes(None, clock, specs, heartbeat=heartbeat)  # type: ignore[arg-type]
