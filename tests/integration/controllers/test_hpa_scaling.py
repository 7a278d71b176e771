"""The HPA controller on virtual time: CPU-driven scale-up in sync-period steps, the
downscale stabilization window, the status it reports and the events it emits."""

from __future__ import annotations

import asyncio

import pytest

from podscale.api.kinds import kind_for

from .hpa_cluster import (
    HPA,
    RS,
    SYNC,
    HpaCluster,
    condition,
    hpa,
    replica_set,
    run_scenario,
    workload,
)

UP_REASON = "cpu resource utilization (percentage of request) above target"


def test_scales_up_one_three_five_then_down_after_the_window() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "150m"  # 150% of the 100m request; target 50%
        await cluster.api.create(RS, "default", replica_set("web", 1))
        await asyncio.sleep(5)
        created = cluster.clock.now()
        await cluster.api.create(HPA, "default", hpa("web", "web"))
        # Upstream queues a new HPA one sync period out: nothing happens before that.
        assert await cluster.replicas_over("web", SYNC - 1) == [1] * int(SYNC - 1)
        await asyncio.sleep(2)
        assert await cluster.replicas("web") == 3  # ceil(3.0 x 1), within max(2 x 1, 4)
        await asyncio.sleep(SYNC)
        assert await cluster.replicas("web") == 5  # ceil(3.0 x 3) = 9, clamped to max 5
        status = (await cluster.hpa("web"))["status"]
        assert status["currentReplicas"] == 3
        assert status["desiredReplicas"] == 5
        assert status["currentMetrics"] == [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "current": {"averageUtilization": 150, "averageValue": "150m"},
                },
            }
        ]
        assert status["lastScaleTime"] >= created.strftime("%Y-%m-%dT%H:%M:%SZ")
        await asyncio.sleep(SYNC)
        status = (await cluster.hpa("web"))["status"]
        assert (status["currentReplicas"], status["desiredReplicas"]) == (5, 5)
        hpa_obj = await cluster.hpa("web")
        assert condition(hpa_obj, "AbleToScale")["reason"] == "ReadyForNewScale"
        assert condition(hpa_obj, "ScalingActive") | {"lastTransitionTime": ""} == {
            "type": "ScalingActive",
            "status": "True",
            "reason": "ValidMetricFound",
            "message": "the HPA was able to successfully calculate a replica count from cpu "
            "resource utilization (percentage of request)",
            "lastTransitionTime": "",
        }
        limited = condition(hpa_obj, "ScalingLimited")
        assert (limited["status"], limited["reason"]) == ("True", "TooManyReplicas")
        messages = [
            e["message"] for e in await cluster.events("web") if e["reason"] == "SuccessfulRescale"
        ]
        assert messages == [
            f"New size: 3; reason: {UP_REASON}",
            f"New size: 5; reason: {UP_REASON}",
        ]
        assert {e["source"]["component"] for e in await cluster.events("web")} == {
            "horizontal-pod-autoscaler"
        }

        # Load drops: nothing happens until the high recommendations leave the 300 s window.
        cluster.metrics.usage["web"] = "10m"
        seen = await cluster.replicas_over("web", 270, step=5)
        assert set(seen) == {5}
        able = condition(await cluster.hpa("web"), "AbleToScale")
        assert (able["status"], able["reason"], able["message"]) == (
            "True",
            "ScaleDownStabilized",
            "recent recommendations were higher than current one, applying the highest recent "
            "recommendation",
        )
        assert (await cluster.hpa("web"))["status"]["desiredReplicas"] == 5
        await asyncio.sleep(60)
        assert await cluster.replicas("web") == 1
        down = [e["message"] for e in await cluster.events("web")][-1]
        assert down == "New size: 1; reason: All metrics below target"
        status = (await cluster.hpa("web"))["status"]
        assert status["desiredReplicas"] == 1

    run_scenario(scenario)


@pytest.mark.parametrize("kind", ["ReplicaSet", "Deployment", "StatefulSet"])
def test_scales_each_workload_kind_through_its_scale_subresource(kind: str) -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "150m"
        await cluster.api.create(kind_for("apps/v1", kind), "default", workload(kind, "web", 1))
        await asyncio.sleep(5)
        await cluster.api.create(HPA, "default", hpa("web-hpa", "web", kind=kind))
        await asyncio.sleep(SYNC + 1)
        assert await cluster.replicas("web", kind) == 3
        await asyncio.sleep(SYNC)
        assert await cluster.replicas("web", kind) == 5
        await asyncio.sleep(2 * SYNC)
        pods = (await cluster.api.list(kind_for("v1", "Pod"), "default"))["items"]
        assert len(pods) == 5
        status = (await cluster.hpa("web-hpa"))["status"]
        assert (status["currentReplicas"], status["desiredReplicas"]) == (5, 5)

    run_scenario(scenario)


@pytest.mark.parametrize("over_http", [False, True], ids=["in-process", "rest"])
def test_scales_on_pods_and_external_metrics(over_http: bool) -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 2))
        await asyncio.sleep(5)
        pods = (await cluster.api.list(kind_for("v1", "Pod"), "default"))["items"]
        for pod in pods:
            cluster.push.set_pod_metric("default", pod["metadata"]["name"], "rps", "10")
        cluster.push.set_external_metric("default", "queue", "30", labels={"queue": "jobs"})
        metrics = [
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": "rps"},
                    "target": {"type": "AverageValue", "averageValue": "10"},
                },
            },
            {
                "type": "External",
                "external": {
                    "metric": {"name": "queue", "selector": {"matchLabels": {"queue": "jobs"}}},
                    "target": {"type": "AverageValue", "averageValue": "10"},
                },
            },
        ]
        await cluster.api.create(
            HPA, "default", hpa("web", "web", max_replicas=10, metrics=metrics)
        )
        await asyncio.sleep(SYNC + 1)
        # rps is on target (2 pods); the queue wants ceil(30 / 10) = 3 pods.
        assert await cluster.replicas("web") == 3
        status = (await cluster.hpa("web"))["status"]
        assert [m["type"] for m in status["currentMetrics"]] == ["Pods", "External"]
        assert status["currentMetrics"][1]["external"]["current"] == {"averageValue": "15"}
        messages = [e["message"] for e in await cluster.events("web")]
        assert messages == [
            "New size: 3; reason: external metric queue(&LabelSelector{MatchLabels:"
            "map[string]string{queue: jobs,},MatchExpressions:[]LabelSelectorRequirement{},}) "
            "above target"
        ]

    run_scenario(scenario, metrics_over_http=over_http)
