"""A restarted HPA controller continues from the history in the state store.

Upstream keeps recommendations and scale events in memory only: after a restart the
downscale window starts over from the current count and rate limits forget recent
scaling. Given a state store (``persist_history``, the default here) podscale restores both
from the ``hpa/history`` document under the HPA's uid; without one, it behaves as upstream.
An HPA carrying the annotations older versions wrote is migrated: read once, then the
annotations are removed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from podscale.api.timestamps import format_micro_time
from podscale.controllers.hpa import (
    HISTORY_ANNOTATION,
    HISTORY_STATE,
    LAST_DECISION_ANNOTATION,
    LAST_DECISION_STATE,
)

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


def test_history_and_last_decision_documents() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "150m"
        await cluster.api.create(RS, "default", replica_set("web", 1))
        await cluster.api.create(HPA, "default", hpa("web", "web", behavior=ONE_POD_PER_MINUTE))
        await asyncio.sleep(SYNC + 2)
        stored = await cluster.hpa("web")
        assert "annotations" not in stored["metadata"]  # the object carries nothing of ours
        uid = stored["metadata"]["uid"]
        history = cluster.history.get_state(uid, HISTORY_STATE)
        assert history is not None
        # The seed (the count when first seen), then the first recommendation.
        assert [r["replicas"] for r in history["recommendations"]] == [1, 3]
        assert [e["change"] for e in history["scaleUpEvents"]] == [1]
        assert history["scaleDownEvents"] == []
        trace = cluster.history.get_state(uid, LAST_DECISION_STATE)
        assert trace is not None
        assert (trace["hpa"], trace["current_replicas"], trace["desired_replicas"]) == (
            "default/web",
            1,
            2,
        )
        assert trace["limit"]["reason"] == "ScaleUpLimit"
        await cluster.api.delete(HPA, "default", "web")
        await asyncio.sleep(1)
        assert cluster.history.state_of(uid) == {}

    run_scenario(scenario)


def _legacy_hpa(history: dict[str, Any]) -> dict[str, Any]:
    body = hpa("web", "web", behavior=ONE_POD_PER_MINUTE)
    body["metadata"]["annotations"] = {
        HISTORY_ANNOTATION: json.dumps(history),
        LAST_DECISION_ANNOTATION: "not json",  # unreadable: dropped, not migrated
        "team": "web",
    }
    return body


def test_annotations_of_older_versions_are_migrated_once() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        cluster.metrics.usage["web"] = "150m"
        await cluster.api.create(RS, "default", replica_set("web", 1))
        # A scale-up just before the controller starts: its rate limit still holds.
        moment = format_micro_time(cluster.clock.now())
        history = {
            "recommendations": [{"replicas": 1, "time": moment}],
            "scaleUpEvents": [{"change": 1, "time": moment}],
            "scaleDownEvents": [],
        }
        await cluster.api.create(HPA, "default", _legacy_hpa(history))
        await cluster.start()
        await asyncio.sleep(SYNC + 2)
        stored = await cluster.hpa("web")
        assert stored["metadata"]["annotations"] == {"team": "web"}
        # The migrated scale-up event (under 60 s old) holds the rate limit: one pod, not two.
        assert await cluster.replicas("web") == 1
        documents = cluster.history.state_of(stored["metadata"]["uid"])
        assert documents[HISTORY_STATE]["scaleUpEvents"][0]["change"] == 1
        assert cluster.counting.count("patch", "HorizontalPodAutoscaler") == 1

    run_scenario(scenario)
