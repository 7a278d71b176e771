"""Graceful pod deletion on the simulated cluster: a deleted bound pod turns Terminating
(``deletionTimestamp`` = now + grace), its ReplicaSet replaces it at once while it is still
listed, and its kubelet deletes it with grace 0 once its containers stopped: after the
profile's termination delay, never after the deadline; a shorter second delete moves it.
ReplicaSet scale-down and the garbage collector's deletes go the same way."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from podscale.runtime.simulated.kubelet_state import StartupProfile

from .sim_plane import JSON, POD, RS, Sim, is_ready, replica_set, run_sim, stamp

SLOW_STOP = StartupProfile(
    startup=timedelta(seconds=10),
    readiness_delay=timedelta(seconds=5),
    termination=timedelta(seconds=60),
)


def _names(pods: list[dict[str, Any]]) -> list[str]:
    return sorted(p["metadata"]["name"] for p in pods)


def _terminating(pods: list[dict[str, Any]]) -> list[str]:
    return _names([p for p in pods if p["metadata"].get("deletionTimestamp")])


def test_deleted_pod_terminates_while_its_replica_set_replaces_it() -> None:
    async def scenario(sim: Sim) -> dict[str, Any]:
        await sim.api.create(RS, "default", replica_set("web", 3))
        await sim.until(30)
        victim = _names(await sim.pods())[0]
        seen: dict[str, Any] = {"victim": victim}
        seen["reply"] = await sim.api.delete(POD, "default", victim)
        await sim.until(30.5)
        seen["during"] = await sim.pods()
        seen["victim_during"] = await sim.pod(victim)
        await sim.until(32)
        seen["after"] = await sim.pods()
        await sim.until(60)
        seen["rs"] = await sim.rs_status("web")
        return seen

    seen = run_sim(scenario)
    victim = seen["victim"]
    meta = seen["reply"]["metadata"]
    assert (meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"]) == (stamp(60), 30)
    assert len(seen["during"]) == 4  # three active pods and the terminating one
    assert _terminating(seen["during"]) == [victim]
    assert not is_ready(seen["victim_during"])
    assert victim not in _names(seen["after"])  # the 1 s termination delay, not the 30 s grace
    assert len(seen["after"]) == 3
    assert seen["rs"]["readyReplicas"] == 3


@pytest.mark.parametrize(
    ("grace", "shorten_to", "present_at", "gone_by"),
    [(5, None, 34.5, 35.5), (30, None, 59.5, 60.5), (30, 10, 39.5, 40.5)],
    ids=["deadline-5s", "deadline-30s", "shortened-to-10s-at-34s"],
)
def test_the_kubelet_deletes_a_slow_pod_at_its_deadline(
    grace: int, shorten_to: int | None, present_at: float, gone_by: float
) -> None:
    async def scenario(sim: Sim) -> tuple[JSON, bool, bool]:
        await sim.api.create(RS, "default", replica_set("web", 1))
        await sim.until(30)
        victim = _names(await sim.pods())[0]
        marked = await sim.api.delete(POD, "default", victim, grace_period_seconds=grace)
        if shorten_to is not None:
            await sim.until(34)
            await sim.api.delete(POD, "default", victim, grace_period_seconds=shorten_to)
        await sim.until(present_at)
        present = victim in _names(await sim.pods())
        await sim.until(gone_by)
        gone = victim not in _names(await sim.pods())
        return marked, present, gone

    marked, present, gone = run_sim(scenario, profile=SLOW_STOP)
    assert marked["metadata"]["deletionGracePeriodSeconds"] == grace
    assert present
    assert gone


def test_scale_down_and_garbage_collection_delete_gracefully() -> None:
    async def scenario(sim: Sim) -> dict[str, Any]:
        await sim.api.create(RS, "default", replica_set("web", 3))
        await sim.until(30)
        await sim.api.patch(RS, "default", "web", {"spec": {"replicas": 1}})
        await sim.until(31)
        seen: dict[str, Any] = {"scaled": await sim.pods()}
        await sim.until(61)
        seen["after_scale"] = await sim.pods()
        await sim.api.delete(RS, "default", "web")
        await sim.until(61.5)
        seen["collected"] = await sim.pods()
        await sim.until(120)
        seen["end"] = await sim.pods()
        return seen

    seen = run_sim(scenario, profile=SLOW_STOP)
    assert len(seen["scaled"]) == 3
    assert len(_terminating(seen["scaled"])) == 2
    assert len(seen["after_scale"]) == 1
    assert _terminating(seen["collected"]) == _names(seen["after_scale"])
    assert seen["end"] == []
