"""Upstream e2e "with short downscale stabilization window" and "with long upscale
stabilization window" (horizontal_pod_autoscaling_behavior.go), through the whole stack on
virtual time (e2e_plane).

The consumer's pods request 500m and the HPA targets 25%, 125m a pod; the load for ``n``
pods is upstream's ``n - 0.5`` pods' worth, so the HPA's ceiling lands on ``n``.

* Short downscale window (1 min, upscale 0): scale up to 3 to record a recommendation, lower
  the load to 2 pods' worth: the scale-down waits more than the window (the recommendations
  of 3 taken before the drop hold for a minute) and not much longer.
* Long upscale window (3 min, downscale 0): scale down to 1 to record a recommendation,
  raise the load to 3 pods' worth: nothing grows before the window has passed (the
  recommendations of 1 hold for three minutes), then it does, within the reaction time.
"""

from __future__ import annotations

from datetime import timedelta

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

JSON = dict[str, object]
REQUEST_MILLI = 500
TARGET_PERCENT = 25
MINUTE = timedelta(minutes=1)


def usage_for(replicas: int) -> int:
    """Millicores for ``replicas - 0.5`` pods at the target (upstream's usageForReplicas)."""
    per_pod = REQUEST_MILLI * TARGET_PERCENT // 100
    return replicas * per_pod - per_pod // 2


def windows(up: timedelta, down: timedelta) -> JSON:
    return {
        "scaleUp": {"stabilizationWindowSeconds": int(up.total_seconds())},
        "scaleDown": {"stabilizationWindowSeconds": int(down.total_seconds())},
    }


@pytest.mark.parametrize(
    "down_window", [1 * MINUTE, 2 * MINUTE], ids=["down-window-1m", "down-window-2m"]
)
def test_scales_down_soon_after_a_short_downscale_window(down_window: timedelta) -> None:
    kind = "Deployment"
    scenario = e2e_scenario(
        workload(kind, 1, {APP: f"{REQUEST_MILLI}m"}),
        hpa(
            kind,
            cpu_utilization(TARGET_PERCENT),
            max_replicas=5,
            behavior=windows(timedelta(0), down_window),
        ),
        initial_millicores=usage_for(1),
    )

    async def body(consumer: Consumer) -> tuple[timedelta, timedelta]:
        consumer.consume_cpu(usage_for(3))
        await consumer.wait_for_replicas(3, 3 * REACTION)
        drop = consumer.consume_cpu(usage_for(2))
        waited = await consumer.wait_for_replicas(2, down_window + 3 * REACTION)
        return drop, waited

    (drop, waited), consumer = run_e2e(scenario, body)
    assert consumer.replica_sequence() == [1, 3, 2]
    assert down_window < consumer.changed_to(2) - drop <= down_window + REACTION
    assert down_window < waited <= down_window + REACTION


@pytest.mark.parametrize(
    "up_window", [3 * MINUTE, 4 * MINUTE], ids=["up-window-3m", "up-window-4m"]
)
def test_scales_up_only_after_a_long_upscale_window(up_window: timedelta) -> None:
    kind = "Deployment"
    scenario = e2e_scenario(
        workload(kind, 2, {APP: f"{REQUEST_MILLI}m"}),
        hpa(
            kind,
            cpu_utilization(TARGET_PERCENT),
            max_replicas=10,
            behavior=windows(up_window, timedelta(0)),
        ),
        initial_millicores=usage_for(2),
    )

    async def body(consumer: Consumer) -> tuple[timedelta, timedelta]:
        consumer.consume_cpu(usage_for(1))
        await consumer.wait_for_replicas(1, 3 * REACTION)
        rise = consumer.consume_cpu(usage_for(3))
        waited = await consumer.wait_for_replicas(3, up_window + 3 * REACTION)
        return rise, waited

    (rise, waited), consumer = run_e2e(scenario, body)
    assert consumer.replica_sequence() == [2, 1, 3]
    assert up_window < consumer.changed_to(3) - rise <= up_window + REACTION
    assert up_window < waited <= up_window + REACTION
