"""The HPA controller writes only on change, and counts its work in upstream's metrics."""

from __future__ import annotations

import asyncio

from podscale.controllers.hpa.history_store import HISTORY_STATE
from podscale.controllers.hpa.monitor import (
    ACTION_NONE,
    ACTION_SCALE_UP,
    ERROR_INTERNAL,
    ERROR_NONE,
)
from podscale.hpa.trace import LAST_DECISION_STATE

from .hpa_cluster import HPA, RS, SYNC, HpaCluster, hpa, replica_set, run_scenario


def test_a_quiet_hpa_is_not_written_across_many_sync_periods() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        controller = await cluster.start()
        cluster.metrics.usage["web"] = "50m"  # on target
        await cluster.api.create(RS, "default", replica_set("web", 2))
        await cluster.api.create(HPA, "default", hpa("web", "web"))
        await asyncio.sleep(SYNC + 2)
        counting = cluster.counting
        assert counting.count("update", "HorizontalPodAutoscaler", "status") == 1
        assert counting.count("patch", "HorizontalPodAutoscaler") == 0
        uid = (await cluster.hpa("web"))["metadata"]["uid"]
        # The history and the decision trace went to the state store, once each.
        assert sorted(cluster.history.puts) == [(uid, HISTORY_STATE), (uid, LAST_DECISION_STATE)]
        before = list(counting.writes)
        await asyncio.sleep(40 * SYNC)
        assert counting.writes == before
        assert len(cluster.history.puts) == 2
        assert counting.count("update", "ReplicaSet", "scale") == 0
        assert controller.monitor.reconciliations(ACTION_NONE, ERROR_NONE) == 41
        assert await cluster.reasons("web") == []

    run_scenario(scenario)


def test_a_changing_metric_is_written_each_time_it_changes() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "50m"
        await cluster.api.create(RS, "default", replica_set("web", 2))
        await cluster.api.create(HPA, "default", hpa("web", "web"))
        await asyncio.sleep(SYNC + 2)
        cluster.metrics.usage["web"] = "52m"  # within tolerance: a new status, no scaling
        await asyncio.sleep(SYNC)
        counting = cluster.counting
        assert counting.count("update", "HorizontalPodAutoscaler", "status") == 2
        assert counting.count("update", "ReplicaSet", "scale") == 0
        status = (await cluster.hpa("web"))["status"]
        assert status["currentMetrics"][0]["resource"]["current"]["averageUtilization"] == 52

    run_scenario(scenario)


def test_reconciliation_and_metric_computation_metrics() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        controller = await cluster.start()
        cluster.metrics.usage["web"] = "150m"
        await cluster.api.create(RS, "default", replica_set("web", 1))
        await cluster.api.create(HPA, "default", hpa("web", "web"))
        await asyncio.sleep(SYNC + 2)
        monitor = controller.monitor
        assert monitor.reconciliations(ACTION_SCALE_UP, ERROR_NONE) == 1
        # The status still said 0 current replicas: upstream labels the proposal scale_up.
        assert monitor.metric_computations(ACTION_SCALE_UP, ERROR_NONE, "Resource") == 1
        cluster.metrics.failing = "down"
        await asyncio.sleep(SYNC)
        assert monitor.reconciliations(ACTION_NONE, ERROR_INTERNAL) == 1
        assert monitor.metric_computations(ACTION_NONE, ERROR_INTERNAL, "Resource") == 1
        text = monitor.render()
        assert (
            'horizontal_pod_autoscaler_controller_reconciliations_total{action="scale_up",'
            'error="none"} 1.0' in text.splitlines()
        )
        assert (
            "horizontal_pod_autoscaler_controller_metric_computation_total"
            '{action="none",error="internal",metric_type="Resource"} 1.0' in text.splitlines()
        )

    run_scenario(scenario)
