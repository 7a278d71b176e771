"""Simulated nodes register Ready and keep reporting; the scheduler spreads an RS's pods over
them through pods/binding, and leaves a pod that fits nowhere Pending with upstream's
message until a node that fits appears."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from podscale.apiserver.discovery import version_info
from podscale.runtime.simulated import NodeSpec
from podscale.runtime.simulated.nodes import NODE_STATUS_REPORT_FREQUENCY

from .sim_plane import JSON, NODE, RS, Sim, condition, condition_status, replica_set, run_sim, stamp


def test_nodes_register_ready_with_capacity_labels_and_addresses() -> None:
    async def scenario(sim: Sim) -> list[JSON]:
        return await sim.nodes()

    nodes = run_sim(
        scenario,
        nodes=[NodeSpec("a", cpu="2", memory="4Gi", pods=20, labels={"zone": "z1"}), NodeSpec("b")],
    )
    by_name = {n["metadata"]["name"]: n for n in nodes}
    assert sorted(by_name) == ["a", "b"]
    a = by_name["a"]
    assert a["status"]["capacity"] == {"cpu": "2", "memory": "4Gi", "pods": "20"}
    assert a["status"]["allocatable"] == a["status"]["capacity"]
    assert a["metadata"]["labels"]["kubernetes.io/hostname"] == "a"
    assert a["metadata"]["labels"]["zone"] == "z1"
    assert {"type": "InternalIP", "address": "10.0.0.1"} in a["status"]["addresses"]
    # The kubelets run the release the API server reports on /version.
    assert a["status"]["nodeInfo"]["kubeletVersion"] == version_info()["gitVersion"]
    ready = condition(a, "Ready")
    assert ready is not None
    assert (ready["status"], ready["reason"]) == ("True", "KubeletReady")


def test_heartbeat_refreshes_the_ready_condition_without_a_transition() -> None:
    period = NODE_STATUS_REPORT_FREQUENCY.total_seconds()

    async def scenario(sim: Sim) -> JSON:
        await sim.until(period * 2 + 1)
        node = await sim.api.get(NODE, None, "node-1")
        ready = condition(node, "Ready")
        assert ready is not None
        return ready

    ready = run_sim(scenario)
    assert ready["lastHeartbeatTime"] == stamp(period * 2)
    assert ready["lastTransitionTime"] == stamp(0)


def test_lose_and_restore_node_flip_ready_to_unknown_and_back() -> None:
    async def scenario(sim: Sim) -> list[tuple[str, str, str]]:
        seen = []
        for step in ("lose", "restore"):
            await sim.until(sim.elapsed() + 60)
            if step == "lose":
                await sim.cluster.lose_node("node-2")
            else:
                await sim.cluster.restore_node("node-2")
            ready = condition(await sim.api.get(NODE, None, "node-2"), "Ready")
            assert ready is not None
            seen.append((ready["status"], ready["reason"], ready["lastTransitionTime"]))
        return seen

    assert run_sim(scenario) == [
        ("Unknown", "NodeStatusUnknown", stamp(60)),
        ("True", "KubeletReady", stamp(120)),
    ]


def test_replica_set_pods_spread_evenly_over_three_nodes() -> None:
    async def scenario(sim: Sim) -> Counter[str]:
        await sim.api.create(RS, "default", replica_set("web", 6))
        await sim.until(1)
        pods = await sim.pods()
        assert len(pods) == 6
        for pod in pods:
            assert condition_status(pod, "PodScheduled") == "True"
        events = [e for e in await sim.events() if e["reason"] == "Scheduled"]
        assert sorted(e["message"] for e in events) == sorted(
            f"Successfully assigned default/{p['metadata']['name']} to {p['spec']['nodeName']}"
            for p in pods
        )
        assert {e["source"]["component"] for e in events} == {"default-scheduler"}
        return Counter(p["spec"]["nodeName"] for p in pods)

    assert run_sim(scenario) == {"node-1": 2, "node-2": 2, "node-3": 2}


# Larger than any node's allocatable: evicting pods cannot help (UnschedulableAndUnresolvable).
NOT_HELPFUL = " preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.."


@pytest.mark.parametrize(
    ("cpu", "memory", "message"),
    [
        ("8", "64Mi", "0/3 nodes are available: 3 Insufficient cpu." + NOT_HELPFUL),
        ("100m", "64Gi", "0/3 nodes are available: 3 Insufficient memory." + NOT_HELPFUL),
        (
            "8",
            "64Gi",
            "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory." + NOT_HELPFUL,
        ),
    ],
    ids=["cpu", "memory", "both"],
)
def test_pod_too_big_for_every_node_stays_pending_with_upstream_message(
    cpu: str, memory: str, message: str
) -> None:
    async def scenario(sim: Sim) -> tuple[JSON, list[str]]:
        await sim.api.create(RS, "default", replica_set("big", 1, cpu=cpu, memory=memory))
        await sim.until(30)
        (pod,) = await sim.pods()
        assert not pod["spec"].get("nodeName")
        assert pod["status"]["phase"] == "Pending"
        scheduled = condition(pod, "PodScheduled")
        assert scheduled is not None
        failed = [e for e in await sim.events() if e["reason"] == "FailedScheduling"]
        assert {e["type"] for e in failed} == {"Warning"}
        return scheduled, [str(e["message"]) for e in failed]

    scheduled, failed = run_sim(scenario)
    assert scheduled == {
        "type": "PodScheduled",
        "status": "False",
        "lastProbeTime": None,
        "lastTransitionTime": stamp(0),
        "reason": "Unschedulable",
        "message": message,
    }
    assert failed == [message]


def test_unschedulable_pod_is_scheduled_once_a_node_that_fits_joins() -> None:
    async def scenario(sim: Sim) -> tuple[str, float]:
        await sim.api.create(RS, "default", replica_set("big", 1, cpu="8"))
        await sim.until(100)
        big_node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "big", "labels": {"kubernetes.io/hostname": "big"}},
            "status": {
                "capacity": {"cpu": "16", "memory": "32Gi", "pods": "110"},
                "allocatable": {"cpu": "16", "memory": "32Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        }
        await sim.api.create(NODE, None, big_node)
        await sim.until(101)
        (pod,) = await sim.pods()
        assert condition_status(pod, "PodScheduled") == "True"
        return str(pod["spec"]["nodeName"]), sim.elapsed()

    node_name, _ = run_sim(scenario)
    assert node_name == "big"


def test_unschedulable_pod_is_retried_when_a_bound_pod_goes_away() -> None:
    async def scenario(sim: Sim) -> str:
        await sim.api.create(RS, "default", replica_set("filler", 1, cpu="3"))
        await sim.until(20)
        await sim.api.create(RS, "default", replica_set("late", 1, cpu="3"))
        await sim.until(40)
        late = [p for p in await sim.pods() if p["metadata"]["name"].startswith("late-")]
        assert not late[0]["spec"].get("nodeName")
        scheduled = condition(late[0], "PodScheduled")
        assert scheduled is not None
        assert scheduled["message"] == (
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available:"
            " 1 No preemption victims found for incoming pod.."
        )
        await sim.api.patch(RS, "default", "filler", {"spec": {"replicas": 0}}, subresource="scale")
        await sim.until(60)
        late = [p for p in await sim.pods() if p["metadata"]["name"].startswith("late-")]
        return str(late[0]["spec"].get("nodeName") or "")

    assert run_sim(scenario, nodes=[NodeSpec("only", cpu="4")]) == "only"


def test_unschedulable_pod_is_retried_after_five_minutes_without_any_change() -> None:
    async def scenario(sim: Sim) -> list[tuple[str, str, int]]:
        await sim.api.create(RS, "default", replica_set("big", 1, cpu="8"))
        await sim.until(timedelta(minutes=11).total_seconds())
        failed = [e for e in await sim.events() if e["reason"] == "FailedScheduling"]
        return [(e["firstTimestamp"], e["lastTimestamp"], e["count"]) for e in failed]

    # The three identical attempts are one Event counted three times (the correlator).
    assert run_sim(scenario) == [(stamp(0), stamp(600), 3)]
