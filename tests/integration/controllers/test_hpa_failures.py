"""The HPA controller when things go wrong: an unreadable scale target, a failing metrics
API (and recovery without a restart), a failing ``/scale`` write, and two HPAs over the
same pods."""

from __future__ import annotations

import asyncio

import pytest

from podscale.controllers.hpa.monitor import ACTION_NONE, ERROR_INTERNAL

from .hpa_cluster import HPA, RS, SYNC, HpaCluster, condition, hpa, replica_set, run_scenario


@pytest.mark.parametrize(
    ("api_version", "kind", "target", "message", "error_label"),
    [
        ("apps/v1", "ReplicaSet", "nope", 'replicasets.apps "nope" not found', ERROR_INTERNAL),
        ("apps/v1", "Deployment", "nope", 'deployments.apps "nope" not found', ERROR_INTERNAL),
        ("apps/v1", "Foo", "web", 'no matches for kind "Foo" in group "apps"', ERROR_INTERNAL),
        ("batch/v1", "Job", "web", 'no matches for kind "Job" in group "batch"', ERROR_INTERNAL),
    ],
    ids=["missing-rs", "missing-deployment", "unknown-kind", "unknown-group"],
)
def test_unreadable_target_is_failed_get_scale(
    api_version: str, kind: str, target: str, message: str, error_label: str
) -> None:
    async def scenario(cluster: HpaCluster) -> None:
        controller = await cluster.start()
        await cluster.api.create(RS, "default", replica_set("web", 2))
        body = hpa("web-hpa", target, kind=kind, api_version=api_version)
        await cluster.api.create(HPA, "default", body)
        await asyncio.sleep(SYNC + 2)
        obj = await cluster.hpa("web-hpa")
        able = condition(obj, "AbleToScale")
        assert (able["status"], able["reason"]) == ("False", "FailedGetScale")
        assert able["message"] == (
            f"the HPA controller was unable to get the target's current scale: {message}"
        )
        events = await cluster.events("web-hpa")
        assert [(e["type"], e["reason"], e["message"]) for e in events] == [
            ("Warning", "FailedGetScale", message)
        ]
        assert await cluster.replicas("web") == 2
        assert controller.monitor.reconciliations(ACTION_NONE, error_label) == 1
        # Retried every sync period, never with backoff.
        await asyncio.sleep(3 * SYNC)
        assert controller.monitor.reconciliations(ACTION_NONE, error_label) == 4

    run_scenario(scenario)


@pytest.mark.parametrize("over_http", [False, True], ids=["in-process", "rest"])
def test_metrics_api_failure_blocks_scaling_and_recovers_without_restart(over_http: bool) -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "150m"
        cluster.metrics.failing = "metrics-server is down"
        await cluster.api.create(RS, "default", replica_set("web", 2))
        await cluster.api.create(HPA, "default", hpa("web", "web"))
        await asyncio.sleep(SYNC + 2)
        obj = await cluster.hpa("web")
        active = condition(obj, "ScalingActive")
        assert (active["status"], active["reason"]) == ("False", "FailedGetResourceMetric")
        cause = (
            "unable to get metrics for resource cpu: unable to fetch metrics from resource "
            "metrics API: metrics-server is down"
        )
        assert cause in active["message"]
        assert active["message"].startswith("the HPA was unable to compute the replica count: ")
        assert obj["status"]["currentReplicas"] == 2
        reasons = await cluster.reasons("web")
        assert reasons == ["FailedGetResourceMetric", "FailedComputeMetricsReplicas"]
        assert await cluster.replicas("web") == 2

        cluster.metrics.failing = None
        await asyncio.sleep(SYNC)
        assert await cluster.replicas("web") == 4  # ceil(3.0 x 2) = 6, max(2 x 2, 4) = 4
        active = condition(await cluster.hpa("web"), "ScalingActive")
        assert (active["status"], active["reason"]) == ("True", "ValidMetricFound")
        assert (await cluster.reasons("web"))[-1] == "SuccessfulRescale"

    run_scenario(scenario, metrics_over_http=over_http)


def test_failed_scale_update_is_failed_rescale_and_retried() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "150m"
        cluster.counting.fail_scale_updates = 1
        await cluster.api.create(RS, "default", replica_set("web", 1))
        await cluster.api.create(HPA, "default", hpa("web", "web"))
        await asyncio.sleep(SYNC + 2)
        assert await cluster.replicas("web") == 1
        obj = await cluster.hpa("web")
        able = condition(obj, "AbleToScale")
        assert (able["status"], able["reason"]) == ("False", "FailedUpdateScale")
        assert able["message"] == (
            "the HPA controller was unable to update the target scale: simulated conflict"
        )
        assert "lastScaleTime" not in obj["status"]
        events = await cluster.events("web")
        assert [(e["reason"], e["message"]) for e in events] == [
            (
                "FailedRescale",
                "New size: 3; reason: cpu resource utilization (percentage of request) above "
                "target; error: simulated conflict",
            )
        ]
        await asyncio.sleep(SYNC)
        assert await cluster.replicas("web") == 3
        assert condition(await cluster.hpa("web"), "AbleToScale")["reason"] == "SucceededRescale"

    run_scenario(scenario)


def test_two_hpas_on_one_target_are_ambiguous_and_never_scale() -> None:
    async def scenario(cluster: HpaCluster) -> None:
        await cluster.start()
        cluster.metrics.usage["web"] = "50m"  # exactly on target: nothing to do
        await cluster.api.create(RS, "default", replica_set("web", 2))
        await cluster.api.create(HPA, "default", hpa("first", "web"))
        await cluster.api.create(HPA, "default", hpa("second", "web"))
        await asyncio.sleep(2 * SYNC + 2)
        message = (
            "pods by selector app=web are controlled by multiple HPAs: "
            "[default/first default/second]"
        )
        for name in ("first", "second"):
            active = condition(await cluster.hpa(name), "ScalingActive")
            assert (active["status"], active["reason"]) == ("False", "AmbiguousSelector")
            assert active["message"] == message
            assert "AmbiguousSelector" in await cluster.reasons(name)
        cluster.metrics.usage["web"] = "150m"  # both would scale up if either could
        assert set(await cluster.replicas_over("web", 4 * SYNC, step=5)) == {2}
        # Deleting one HPA lets the other act.
        await cluster.api.delete(HPA, "default", "second")
        await asyncio.sleep(SYNC + 1)
        assert await cluster.replicas("web") == 4

    run_scenario(scenario)
