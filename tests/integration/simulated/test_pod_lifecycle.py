"""The simulated kubelets move pods Pending -> Running -> Ready at the configured virtual
times (cluster-wide profile or per-pod annotations), report container statuses and
addresses, and finish pods that are deleted while finalizers hold them."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from podscale.runtime.simulated import STARTUP_ANNOTATION

from .sim_plane import JSON, POD, RS, Sim, condition, condition_status, replica_set, run_sim, stamp

Timeline = list[tuple[float, str, str, str | None]]


async def record_timeline(sim: Sim, timeline: Timeline) -> None:
    """(virtual seconds, pod, phase, Ready) for every pod change the API reports."""
    async for event_type, pod in sim.api.watch(POD, "default"):
        if event_type in ("ADDED", "MODIFIED"):
            status = pod.get("status") or {}
            entry = (
                sim.elapsed(),
                str(pod["metadata"]["name"]),
                str(status.get("phase")),
                condition_status(pod, "Ready"),
            )
            if not timeline or timeline[-1][1:] != entry[1:]:
                timeline.append(entry)


def transitions(timeline: Timeline) -> dict[str, list[tuple[float, str, str | None]]]:
    """Per pod, the moments its (phase, Ready) pair changed."""
    seen: dict[str, list[tuple[float, str, str | None]]] = {}
    for moment, name, phase, ready in timeline:
        history = seen.setdefault(name, [])
        if not history or history[-1][1:] != (phase, ready):
            history.append((moment, phase, ready))
    return seen


def run_with_timeline(scenario_end: float, rs: JSON) -> tuple[Timeline, list[JSON], JSON]:
    async def scenario(sim: Sim) -> tuple[Timeline, list[JSON], JSON]:
        timeline: Timeline = []
        watcher = asyncio.create_task(record_timeline(sim, timeline))
        await sim.api.create(RS, "default", rs)
        await sim.until(scenario_end)
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        return timeline, await sim.pods(), await sim.rs_status(rs["metadata"]["name"])

    return run_sim(scenario)


def test_pods_go_pending_running_ready_at_the_configured_virtual_times() -> None:
    timeline, pods, rs_status = run_with_timeline(20, replica_set("web", 6))
    histories = transitions(timeline)
    assert len(histories) == 6
    for history in histories.values():
        assert history == [
            (0.0, "Pending", None),  # created; scheduled and started at once
            (0.0, "Pending", "False"),  # kubelet: containers creating
            (10.0, "Running", "False"),  # startup 10 s
            (15.0, "Running", "True"),  # readiness delay 5 s
        ]
    assert rs_status["readyReplicas"] == 6
    assert rs_status["availableReplicas"] == 6
    for pod in pods:
        ready = condition(pod, "Ready")
        assert ready is not None
        assert ready["lastTransitionTime"] == stamp(15)
        status = pod["status"]
        assert status["startTime"] == stamp(0)
        assert status["hostIP"].startswith("10.0.0.")
        assert status["podIP"].startswith("10.244.")
        (container,) = status["containerStatuses"]
        assert container["state"] == {"running": {"startedAt": stamp(10)}}
        assert (container["ready"], container["started"], container["restartCount"]) == (
            True,
            True,
            0,
        )
    assert len({pod["status"]["podIP"] for pod in pods}) == 6


@pytest.mark.parametrize(
    ("value", "running_at"),
    [("30", 30.0), ("0", 0.0), ("not-a-number", 10.0)],
    ids=["slow", "instant", "malformed-falls-back"],
)
def test_startup_annotation_overrides_the_profile_per_pod(value: str, running_at: float) -> None:
    rs = replica_set("slow", 1, annotations={STARTUP_ANNOTATION: value})
    timeline, _, _ = run_with_timeline(60, rs)
    (history,) = transitions(timeline).values()
    running = [moment for moment, phase, _ in history if phase == "Running"]
    assert running[0] == running_at
    assert history[-1] == (running_at + 5.0, "Running", "True")


def test_containers_waiting_report_container_creating_before_startup() -> None:
    async def scenario(sim: Sim) -> JSON:
        await sim.api.create(RS, "default", replica_set("web", 1, containers=("app", "side")))
        await sim.until(5)
        (pod,) = await sim.pods()
        return pod

    pod = run_sim(scenario)
    assert pod["status"]["phase"] == "Pending"
    assert [c["state"] for c in pod["status"]["containerStatuses"]] == [
        {"waiting": {"reason": "ContainerCreating"}}
    ] * 2
    ready = condition(pod, "Ready")
    assert ready is not None
    assert ready["reason"] == "ContainersNotReady"
    assert ready["message"] == "containers with unready status: [app side]"


def test_pod_deleted_under_a_finalizer_has_its_containers_stopped() -> None:
    async def scenario(sim: Sim) -> tuple[JSON, list[Any]]:
        pod: JSON = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "held", "namespace": "default", "finalizers": ["test/hold"]},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]},
        }
        await sim.api.create(POD, "default", pod)
        await sim.until(20)
        assert (await sim.pod("held"))["status"]["phase"] == "Running"
        await sim.api.delete(POD, "default", "held")
        await sim.until(30)
        held = await sim.pod("held")
        await sim.api.patch(POD, "default", "held", {"metadata": {"finalizers": None}})
        await sim.until(31)
        return held, [p["metadata"]["name"] for p in await sim.pods()]

    held, remaining = run_sim(scenario)
    # Graceful: deleted at 20 with the default 30 s grace; the kubelet's grace-0 delete at 21
    # (containers stopped after 1 s) leaves it to the finalizer, with grace 0.
    assert held["metadata"]["deletionTimestamp"] == stamp(50)
    assert held["metadata"]["deletionGracePeriodSeconds"] == 0
    assert held["status"]["phase"] == "Succeeded"
    (container,) = held["status"]["containerStatuses"]
    assert container["state"]["terminated"]["reason"] == "Completed"
    assert condition_status(held, "Ready") == "False"
    assert remaining == []
