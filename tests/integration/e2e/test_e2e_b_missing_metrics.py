"""Partial metrics through the whole stack: one of two metrics cannot be fetched.

Upstream (computeReplicasForMetrics in pkg/controller/podautoscaler/horizontal.go, and the
"Multiple metric types" cases of test/e2e/autoscaling/custom_metrics_stackdriver_autoscaling.go):
when some metrics fail but the ones that work ask for more pods, the HPA still scales up
(``ScalingActive=True``, ``ValidMetricFound``); when they ask for fewer, it does not scale
down at all (``ScalingActive=False`` with the failed metric's reason, and a
``FailedComputeMetricsReplicas`` event), because the missing metric might want more.
Here the metric that works is External (pushed); the missing one is a Pods metric nobody
publishes, an Object metric of a Service nobody reports, or a ContainerResource metric of a
container the pods do not have.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from .e2e_b_manifests import (
    JSON,
    container_cpu_utilization,
    deployment,
    external,
    hpa,
    no_downscale_window,
    pods_metric,
    scenario,
)
from .e2e_b_plane import E2E, SYNC, run_e2e

UNABLE = "the HPA was unable to compute the replica count: "
HOLD = 240.0  # well beyond the (zero) downscale window and many sync periods


def object_metric(metric: str, service: str, value: str) -> JSON:
    return {
        "type": "Object",
        "object": {
            "describedObject": {"apiVersion": "v1", "kind": "Service", "name": service},
            "metric": {"name": metric},
            "target": {"type": "Value", "value": value},
        },
    }


MISSING = [
    pytest.param(pods_metric("jobs_in_flight", "2"), "FailedGetPodsMetric", id="pods"),
    pytest.param(
        object_metric("requests_per_second", "frontend", "100"),
        "FailedGetObjectMetric",
        id="object",
    ),
    pytest.param(
        container_cpu_utilization("sidecar", 50),
        "FailedGetContainerResourceMetric",
        id="container-resource",
    ),
]


@dataclass(frozen=True, slots=True)
class Outcome:
    replicas: list[int]
    scaling_active: JSON
    warnings: list[str]  # reasons of the HPA's Warning events, in order


async def observe(e2e: E2E, until: float) -> Outcome:
    await e2e.advance(until)
    return Outcome(
        e2e.replicas_seen("app", 0, until + 1),
        await e2e.condition("app", "ScalingActive"),
        [e.reason for e in e2e.events_of("app") if e.type == "Warning"],
    )


@pytest.mark.parametrize(("missing", "reason"), MISSING)
def test_scales_up_when_one_metric_is_missing(missing: JSON, reason: str) -> None:
    # The External metric asks for 90/30 = 3 pods; the other cannot be fetched.
    spec = [missing, external("backlog", average_value="30")]
    manifests = [deployment("app", 1), hpa("app", "app", spec, max_replicas=6)]

    async def body(e2e: E2E) -> Outcome:
        e2e.set_external("backlog", "90")
        return await observe(e2e, 120)

    outcome = run_e2e(scenario("up-missing", manifests), body)
    assert outcome.replicas[-1] == 3
    assert max(outcome.replicas) == 3
    assert reason in outcome.warnings  # the missing metric is still reported
    assert "FailedComputeMetricsReplicas" not in outcome.warnings
    active = outcome.scaling_active
    assert (active["status"], active["reason"]) == ("True", "ValidMetricFound")
    assert active["message"] == (
        "the HPA was able to successfully calculate a replica count from "
        "external metric backlog(nil)"
    )


@pytest.mark.parametrize(("missing", "reason"), MISSING)
def test_does_not_scale_down_when_one_metric_is_missing(missing: JSON, reason: str) -> None:
    # The External metric asks for 20/20 = 1 pod, with no downscale window to wait out.
    spec = [missing, external("backlog", average_value="20")]
    behavior = no_downscale_window()
    manifests = [deployment("app", 3), hpa("app", "app", spec, behavior=behavior)]

    async def body(e2e: E2E) -> Outcome:
        e2e.set_external("backlog", "20")
        return await observe(e2e, HOLD)

    outcome = run_e2e(scenario("down-missing", manifests), body)
    assert set(outcome.replicas) == {3}
    active = outcome.scaling_active
    assert (active["status"], active["reason"]) == ("False", reason)
    assert active["message"].startswith(UNABLE)
    # One failed sync after another, each reported (two Events a sync) until the event
    # spam filter's burst of 25 per source and object is spent, none scaling.
    syncs = min(HOLD // SYNC - 1, 25 // 2)
    assert outcome.warnings.count("FailedComputeMetricsReplicas") >= syncs
    assert outcome.warnings.count(reason) >= syncs
    assert "SuccessfulRescale" not in outcome.warnings


def test_scale_down_proceeds_once_the_missing_metric_is_served() -> None:
    spec = [pods_metric("jobs_in_flight", "2"), external("backlog", average_value="20")]
    manifests = [deployment("app", 3), hpa("app", "app", spec, behavior=no_downscale_window())]

    async def body(e2e: E2E) -> tuple[list[int], float | None, float, JSON]:
        e2e.set_external("backlog", "20")
        await e2e.advance(120)
        held = e2e.replicas_seen("app", 0, 120)
        e2e.set_pods_metric("app", "jobs_in_flight", "1")  # below its target too
        served = e2e.now()
        await e2e.advance(served + 90)
        down = e2e.first_time("app", 1, after=served)
        return held, down, served, await e2e.condition("app", "ScalingActive")

    held, down, served, active = run_e2e(scenario("down-recovers", manifests), body)
    assert set(held) == {3}
    assert down is not None
    assert down - served <= 3 * SYNC  # the next feed, then the next sync
    assert (active["status"], active["reason"]) == ("True", "ValidMetricFound")
