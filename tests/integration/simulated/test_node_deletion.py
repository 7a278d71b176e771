"""A Node deleted mid-run (``kubectl delete node``), on virtual time: the plane keeps
running past its kubelet's next heartbeats (which used to end the whole run with
'nodes "node-2" not found'), the kubelet does not re-register (as upstream's), the pod GC
force-deletes the node's pods once its 40 s quarantine has passed, their ReplicaSets
replace them on the remaining nodes, other workloads keep scaling, /readyz stays green,
and a Node created again under the same name gets its status reports back."""

from __future__ import annotations

from typing import Any

from podscale.apiserver.http.health import render_health
from podscale.runtime.simulated.node_objects import node

from .sim_plane import NODE, RS, START, Sim, is_ready, replica_set, run_sim, stamp

MINUTE = 60.0


def _ready_condition(obj: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in obj["status"]["conditions"] if c["type"] == "Ready")


async def _placement(sim: Sim) -> dict[str, list[str]]:
    placed: dict[str, list[str]] = {}
    for pod in await sim.pods():
        placed.setdefault(pod["spec"].get("nodeName", ""), []).append(pod["metadata"]["name"])
    return {name: sorted(pods) for name, pods in sorted(placed.items())}


def test_a_deleted_node_does_not_stop_the_plane_and_its_pods_move() -> None:
    async def scenario(sim: Sim) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        await sim.api.create(RS, "default", replica_set("web", 6))
        await sim.api.create(RS, "default", replica_set("other", 2))
        await sim.until(30)
        before = await _placement(sim)
        seen["on_node_2"] = before.get("node-2", [])
        await sim.api.delete(NODE, None, "node-2")  # t=30 s
        await sim.until(65)  # quarantined, not yet collected
        seen["at_65"] = (await _placement(sim)).get("node-2", [])
        await sim.until(2 * MINUTE)
        seen["at_120"] = await _placement(sim)
        await sim.until(10 * MINUTE)
        other = await sim.api.get(RS, "default", "other")
        other["spec"]["replicas"] = 5
        await sim.api.update(RS, "default", other)  # scaling goes on after the loss
        await sim.until(16 * MINUTE)  # past the heartbeats at 5, 10 and 15 minutes
        seen["nodes"] = sorted(n["metadata"]["name"] for n in await sim.nodes())
        seen["pods"] = await sim.pods()
        seen["other"] = await sim.rs_status("other")
        seen["web"] = await sim.rs_status("web")
        state = sim.plane.api.state
        checks = [check for source in state.readiness_sources for check in source()]
        seen["readyz"] = render_health("readyz", None, verbose=True, excluded=[], readiness=checks)
        seen["faults"] = {
            name: sim.plane.supervisor.failures(name) for name in sim.plane.supervisor.names
        }
        # An administrator creates the Node again: the kubelet's next report finds it.
        await sim.api.create(NODE, None, node("node-2", now=START))
        await sim.until(21 * MINUTE)
        seen["recreated"] = await sim.api.get(NODE, None, "node-2")
        return seen

    seen = run_sim(scenario)
    assert seen["on_node_2"], "the scheduler spread pods onto node-2"
    assert seen["at_65"] == seen["on_node_2"]
    at_120: dict[str, list[str]] = seen["at_120"]
    assert "node-2" not in at_120
    assert not set(seen["on_node_2"]) & {p for pods in at_120.values() for p in pods}
    assert seen["nodes"] == ["node-1", "node-3"]  # the kubelet does not re-register
    pods = seen["pods"]
    assert {pod["spec"]["nodeName"] for pod in pods} == {"node-1", "node-3"}
    assert all(is_ready(pod) for pod in pods)
    assert (seen["web"]["readyReplicas"], seen["other"]["readyReplicas"]) == (6, 5)
    readyz = seen["readyz"]
    assert readyz.status == 200
    assert "[+]simulated/node-heartbeats ok\n" in readyz.body
    assert "[+]controller/podgc ok\n" in readyz.body
    assert set(seen["faults"].values()) == {0}
    assert _ready_condition(seen["recreated"])["lastHeartbeatTime"] == stamp(20 * MINUTE)
