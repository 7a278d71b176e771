"""A restarted HPA controller continues from the history persisted on the HPA.

Upstream keeps recommendations and scale events in memory only: after a restart the
downscale window starts over from the current count and rate limits forget recent
scaling. With ``persist_history`` (the default) podscale restores both from the
``autoscaling.podscale.dev/history`` annotation; without it, it behaves as upstream.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from podscale.controllers.hpa import HISTORY_ANNOTATION, LAST_DECISION_ANNOTATION

from .hpa_cluster import HPA, RS, SYNC, HpaCluster, hpa, replica_set, run_scenario

ONE_POD_PER_MINUTE = {
    "scaleUp": {
        "stabilizationWindowSeconds": 0,
        "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}],
    }
}


@pytest.mark.parametrize(
    ("persist", "after_restart"),
    [(True, 2), (False, 3)],
    ids=["persisted-rate-limit-holds", "in-memory-rate-limit-forgotten"],
)
def test_restart_right_after_a_scale_up_keeps_the_rate_limit(
    persist: bool, after_restart: int
) -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "150m"
        await cluster.api.create(RS, "default", replica_set("web", 1))
        await cluster.api.create(HPA, "default", hpa("web", "web", behavior=ONE_POD_PER_MINUTE))
        await asyncio.sleep(SYNC + 2)
        assert await cluster.replicas("web") == 2  # one pod per minute
        await asyncio.sleep(3)
        await cluster.stop()  # crash 5 s after the scale-up
        await cluster.start()
        await asyncio.sleep(SYNC + 2)
        assert await cluster.replicas("web") == after_restart
        await asyncio.sleep(60)
        assert await cluster.replicas("web") == after_restart + 1

    run_scenario(scenario, persist_history=persist)


@pytest.mark.parametrize(
    ("persist", "still_five_for", "down_by"),
    # The first sync (S) seeds 5; the window keeps it until S+300 inclusive. Restarted at
    # S+101, the next syncs fall at S+116+15k: down at S+311 with the history, and at
    # S+431 (one window after the new seed at S+116, plus a sync) without it.
    [(True, 290, 320), (False, 410, 440)],
    ids=["persisted-window-continues", "in-memory-window-restarts"],
)
def test_restart_during_the_downscale_window(
    persist: bool, still_five_for: float, down_by: float
) -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "10m"  # wants 1 replica from the start
        await cluster.api.create(RS, "default", replica_set("web", 5))
        await cluster.api.create(HPA, "default", hpa("web", "web"))
        await asyncio.sleep(SYNC + 1)
        first_sync = cluster.clock.elapsed() - 1
        await asyncio.sleep(100)
        await cluster.stop()
        await cluster.start()
        await asyncio.sleep(first_sync + still_five_for - cluster.clock.elapsed())
        assert await cluster.replicas("web") == 5
        await asyncio.sleep(first_sync + down_by - cluster.clock.elapsed())
        assert await cluster.replicas("web") == 1

    run_scenario(scenario, persist_history=persist)


def test_history_and_last_decision_annotations() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "150m"
        await cluster.api.create(RS, "default", replica_set("web", 1))
        await cluster.api.create(HPA, "default", hpa("web", "web", behavior=ONE_POD_PER_MINUTE))
        await asyncio.sleep(SYNC + 2)
        annotations = (await cluster.hpa("web"))["metadata"]["annotations"]
        history = json.loads(annotations[HISTORY_ANNOTATION])
        # The seed (the count when first seen), then the first recommendation.
        assert [r["replicas"] for r in history["recommendations"]] == [1, 3]
        assert [e["change"] for e in history["scaleUpEvents"]] == [1]
        assert history["scaleDownEvents"] == []
        trace = json.loads(annotations[LAST_DECISION_ANNOTATION])
        assert (trace["hpa"], trace["current_replicas"], trace["desired_replicas"]) == (
            "default/web",
            1,
            2,
        )
        assert trace["limit"]["reason"] == "ScaleUpLimit"

    run_scenario(scenario)
