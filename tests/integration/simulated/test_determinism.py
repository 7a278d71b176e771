"""One seed, one run: the whole control plane on virtual time gives the same pod names,
placements, uids and event sequence every time; another seed gives other names. And a
simulated hour of a 10-pod ReplicaSet runs to its end with every pod ready."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from .sim_plane import RS, Sim, is_ready, replica_set, run_sim


async def busy_scenario(sim: Sim) -> dict[str, Any]:
    """Scale up and down, crash a pod, lose a node past its eviction: the record of it all."""
    await sim.api.create(RS, "default", replica_set("web", 6))
    await sim.until(30)
    first = sorted(p["metadata"]["name"] for p in await sim.pods())
    await sim.cluster.crash_pod("default", first[0])
    await sim.api.patch(RS, "default", "web", {"spec": {"replicas": 9}}, subresource="scale")
    await sim.until(60)
    await sim.cluster.lose_node("node-3")
    await sim.until(400)
    await sim.api.patch(RS, "default", "web", {"spec": {"replicas": 4}}, subresource="scale")
    await sim.until(500)
    pods = await sim.pods()
    return {
        "pods": sorted(
            (p["metadata"]["name"], p["metadata"]["uid"], p["spec"].get("nodeName")) for p in pods
        ),
        "events": [
            (
                e["firstTimestamp"],
                e["reason"],
                e["involvedObject"]["name"],
                e["message"],
                e["source"]["component"],
            )
            for e in await sim.events()
        ],
    }


def test_same_seed_gives_the_same_run() -> None:
    first = run_sim(busy_scenario, seed=11)
    second = run_sim(busy_scenario, seed=11)
    assert first == second
    reasons = {event[1] for event in first["events"]}
    assert {"SuccessfulCreate", "Scheduled", "Started", "TaintManagerEviction"} <= reasons
    assert len(first["pods"]) == 4


def test_another_seed_gives_other_pod_names() -> None:
    names = [{name for name, _, _ in run_sim(busy_scenario, seed=seed)["pods"]} for seed in (1, 2)]
    assert not names[0] & names[1]


@pytest.mark.parametrize("replicas", [10], ids=["rs-of-10"])
def test_a_simulated_hour_runs_to_its_end(replicas: int) -> None:
    async def scenario(sim: Sim) -> tuple[float, int, list[int]]:
        await sim.api.create(RS, "default", replica_set("web", replicas))
        await sim.until(timedelta(hours=1).total_seconds())
        pods = await sim.pods()
        restarts = [c["restartCount"] for p in pods for c in p["status"]["containerStatuses"]]
        return sim.elapsed(), sum(1 for p in pods if is_ready(p)), restarts

    elapsed, ready, restarts = run_sim(scenario, until=timedelta(hours=2))
    assert elapsed == 3600.0
    assert ready == replicas
    assert restarts == [0] * replicas
