"""Fault injection: a crashed pod is restarted in place with upstream's back-off while its
ReplicaSet keeps counting it; a crashed container alone restarts; a lost node's pods turn
NotReady, come back if the node does, and are evicted and replaced after the timeout."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest

from podscale.runtime.simulated.pod_status import pod_ref

from .sim_plane import JSON, RS, Sim, condition, condition_status, replica_set, run_sim, stamp


def container(pod: JSON, name: str = "app") -> JSON:
    for entry in pod["status"]["containerStatuses"]:
        if entry["name"] == name:
            return dict(entry)
    raise AssertionError(f"no container {name}")


def test_crashed_pod_restarts_at_once_then_backs_off_and_the_rs_keeps_it() -> None:
    async def scenario(sim: Sim) -> dict[str, Any]:
        await sim.api.create(RS, "default", replica_set("web", 3))
        await sim.until(20)
        names = sorted(p["metadata"]["name"] for p in await sim.pods())
        victim = names[0]
        seen: dict[str, Any] = {"names": names}
        await sim.cluster.crash_pod("default", victim)  # t=20: first crash
        await sim.until(21)
        seen["after_first"] = await sim.pod(victim)
        seen["ready_dip"] = (await sim.rs_status("web"))["readyReplicas"]
        await sim.until(40)
        await sim.cluster.crash_pod("default", victim)  # t=40: second crash, back-off 10 s
        await sim.until(45)
        seen["backing_off"] = await sim.pod(victim)
        await sim.until(56)
        seen["after_second"] = await sim.pod(victim)
        seen["rs"] = await sim.rs_status("web")
        seen["names_after"] = sorted(p["metadata"]["name"] for p in await sim.pods())
        seen["events"] = [
            (e["reason"], e["message"], e["count"])
            for e in await sim.events()
            if e["involvedObject"]["name"] == victim and e["reason"] in ("Started", "BackOff")
        ]
        return seen

    seen = run_sim(scenario)
    first = container(seen["after_first"])
    assert first["restartCount"] == 1
    assert first["state"] == {"running": {"startedAt": stamp(20)}}
    assert first["lastState"]["terminated"]["exitCode"] == 1
    assert first["lastState"]["terminated"]["reason"] == "Error"
    assert first["lastState"]["terminated"]["finishedAt"] == stamp(20)
    assert seen["ready_dip"] == 2

    backing_off_pod: JSON = seen["backing_off"]
    waiting = container(backing_off_pod)["state"]["waiting"]
    assert waiting["reason"] == "CrashLoopBackOff"
    assert waiting["message"] == (
        f"back-off 10s restarting failed container=app pod={pod_ref(backing_off_pod)}"
    )
    assert backing_off_pod["status"]["phase"] == "Running"
    assert condition_status(backing_off_pod, "Ready") == "False"

    second = container(seen["after_second"])
    assert second["restartCount"] == 2
    assert second["state"] == {"running": {"startedAt": stamp(50)}}
    assert second["ready"] is True  # readiness delay 5 s after the 50 s restart
    rs: JSON = seen["rs"]
    assert (rs["replicas"], rs["readyReplicas"]) == (3, 3)
    assert seen["names_after"] == seen["names"]  # restarted in place, never replaced
    # Identical events are counted on the first one (the correlator), not written again.
    backoff = f"Back-off restarting failed container app in pod {pod_ref(backing_off_pod)}"
    assert sorted(seen["events"]) == [
        ("BackOff", backoff, 1),
        ("Started", "Started container app", 3),
    ]


def test_crash_container_restarts_only_that_container() -> None:
    async def scenario(sim: Sim) -> JSON:
        await sim.api.create(RS, "default", replica_set("web", 1, containers=("app", "side")))
        await sim.until(20)
        (pod,) = await sim.pods()
        name = pod["metadata"]["name"]
        await sim.cluster.crash_container(
            "default", name, "side", reason="OOMKilled", exit_code=137
        )
        await sim.until(21)
        return await sim.pod(name)

    pod = run_sim(scenario)
    assert container(pod, "app")["restartCount"] == 0
    assert container(pod, "app")["state"] == {"running": {"startedAt": stamp(10)}}
    side = container(pod, "side")
    assert side["restartCount"] == 1
    assert side["lastState"]["terminated"]["reason"] == "OOMKilled"
    assert side["lastState"]["terminated"]["exitCode"] == 137
    assert condition_status(pod, "Ready") == "False"  # side is ready again 5 s later


def lost_node_scenario(
    restore_at: float | None, end: float
) -> Callable[[Sim], Awaitable[dict[str, Any]]]:
    async def scenario(sim: Sim) -> dict[str, Any]:
        await sim.api.create(RS, "default", replica_set("web", 6))
        await sim.until(20)
        before = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in await sim.pods()}
        await sim.until(60)
        await sim.cluster.lose_node("node-2")
        await sim.until(61)
        seen: dict[str, Any] = {"before": before}
        seen["lost_pods"] = [p for p in await sim.pods() if p["spec"]["nodeName"] == "node-2"]
        seen["ready_while_lost"] = (await sim.rs_status("web"))["readyReplicas"]
        if restore_at is not None:
            await sim.until(restore_at)
            await sim.cluster.restore_node("node-2")
        await sim.until(end)
        seen["after"] = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in await sim.pods()}
        seen["ready_after"] = (await sim.rs_status("web")).get("readyReplicas")
        seen["events"] = [
            (e["reason"], e["message"], e["source"]["component"]) for e in await sim.events()
        ]
        return seen

    return scenario


def test_lost_node_pods_turn_not_ready_and_come_back_with_the_node() -> None:
    seen = run_sim(lost_node_scenario(restore_at=120, end=500))
    lost: list[JSON] = seen["lost_pods"]
    assert len(lost) == 2
    for pod in lost:
        assert pod["status"]["phase"] == "Running"  # only Ready flips (MarkPodsNotReady)
        ready = condition(pod, "Ready")
        assert ready is not None
        assert (ready["status"], ready["lastTransitionTime"]) == ("False", stamp(60))
    assert seen["ready_while_lost"] == 4
    assert seen["after"] == seen["before"]  # restored before the eviction timeout
    assert seen["ready_after"] == 6
    events = seen["events"]
    assert events.count(("NodeNotReady", "Node is not ready", "node-controller")) == 2
    assert not [e for e in events if e[0] == "TaintManagerEviction"]


def test_lost_node_pods_are_evicted_after_the_timeout_and_replaced_elsewhere() -> None:
    seen = run_sim(lost_node_scenario(restore_at=None, end=400))
    before: dict[str, str] = seen["before"]
    after: dict[str, str] = seen["after"]
    evicted = sorted(name for name, node in before.items() if node == "node-2")
    assert len(evicted) == 2
    assert not set(evicted) & set(after)
    assert Counter(after.values()) == {"node-1": 3, "node-3": 3}
    assert seen["ready_after"] == 6
    evictions = [e for e in seen["events"] if e[0] == "TaintManagerEviction"]
    assert sorted(evictions) == [
        (
            "TaintManagerEviction",
            f"Marking for deletion Pod default/{name}",
            "taint-eviction-controller",
        )
        for name in evicted
    ]


@pytest.mark.parametrize("end", [400.0, 3600.0], ids=["past-default-timeout", "an-hour"])
def test_without_eviction_timeout_lost_pods_stay_not_ready(end: float) -> None:
    async def scenario(sim: Sim) -> tuple[list[str | None], int | None]:
        await sim.api.create(RS, "default", replica_set("web", 3))
        await sim.until(20)
        await sim.cluster.lose_node("node-1")
        await sim.until(end)
        on_lost = [p for p in await sim.pods() if p["spec"]["nodeName"] == "node-1"]
        return [condition_status(p, "Ready") for p in on_lost], (await sim.rs_status("web")).get(
            "readyReplicas"
        )

    ready, rs_ready = run_sim(scenario, eviction_timeout=None, until=timedelta(hours=2))
    assert ready == ["False"]
    assert rs_ready == 2
