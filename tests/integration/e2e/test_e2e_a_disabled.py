"""Upstream e2e "with autoscaling disabled" (horizontal_pod_autoscaling_behavior.go):
``selectPolicy: Disabled`` on one direction pins that direction, through the whole stack on
virtual time (e2e_plane). Pods request 500m, the HPA targets 25% (125m a pod).

* Scale-up disabled: 1 pod under 7.5 pods' worth of load never grows, however long the
  load lasts; the HPA measures far above its target and says so in ScalingLimited.
* Scale-down disabled: 3 pods under half a pod's worth never shrink, not even once the
  default 5 minute downscale window has passed.

Upstream's rule (horizontal.go, convertDesiredReplicasWithBehaviorRate): a Disabled
direction's limit is the current count, reported as ScaleUpLimit/ScaleDownLimit.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from .e2e_plane import (
    APP,
    REACTION,
    Consumer,
    cpu_utilization,
    e2e_scenario,
    hpa,
    run_e2e,
    workload,
)

JSON = dict[str, Any]
PER_POD_AT_TARGET = 125  # 25% of 500m
DOWNSCALE_WINDOW = timedelta(minutes=5)
KINDS = pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet"])


def usage_for(replicas: int) -> int:
    return replicas * PER_POD_AT_TARGET - PER_POD_AT_TARGET // 2


def disabled(direction: str) -> JSON:
    return {direction: {"selectPolicy": "Disabled"}}


def scaling_limited(status: JSON) -> JSON:
    conditions: dict[str, JSON] = {c["type"]: c for c in status["conditions"]}
    return conditions["ScalingLimited"]


def utilization(status: JSON) -> int:
    [current] = status["currentMetrics"]
    return int(current["resource"]["current"]["averageUtilization"])


def run_pinned(kind: str, replicas: int, direction: str, load: int, during: timedelta) -> JSON:
    scenario = e2e_scenario(
        workload(kind, replicas, {APP: "500m"}),
        hpa(kind, cpu_utilization(25), max_replicas=10, behavior=disabled(direction)),
        initial_millicores=usage_for(replicas),
    )

    async def body(consumer: Consumer) -> JSON:
        await consumer.ensure_replicas_in_range(replicas, replicas, REACTION)
        consumer.consume_cpu(load)
        await consumer.ensure_replicas_in_range(replicas, replicas, during)
        return await consumer.hpa_status()

    status, consumer = run_e2e(scenario, body)
    assert consumer.replica_sequence() == [replicas]
    desired = {o.desired for o in consumer.observations if o.desired is not None}
    assert desired == {replicas}, "the HPA's desired count moved"
    return status


@KINDS
def test_does_not_scale_up_when_scale_up_is_disabled(kind: str) -> None:
    status = run_pinned(kind, 1, "scaleUp", usage_for(8), REACTION + timedelta(minutes=5))
    assert utilization(status) >= 150  # 7.5 pods' worth on one pod: it would scale
    limited = scaling_limited(status)
    assert (limited["status"], limited["reason"]) == ("True", "ScaleUpLimit")
    assert limited["message"] == (
        "the desired replica count is increasing faster than the maximum scale rate"
    )


@KINDS
def test_does_not_scale_down_when_scale_down_is_disabled(kind: str) -> None:
    status = run_pinned(kind, 3, "scaleDown", usage_for(1), DOWNSCALE_WINDOW + 2 * REACTION)
    assert utilization(status) <= 10  # half a pod's worth on three: it would scale down
    limited = scaling_limited(status)
    assert (limited["status"], limited["reason"]) == ("True", "ScaleDownLimit")
    assert limited["message"] == (
        "the desired replica count is decreasing faster than the maximum scale rate"
    )
