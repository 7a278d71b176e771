"""Upstream e2e "Should scale from 1 pod to 3 pods and from 3 to 5" and "from 5 pods to 3
pods and from 3 to 1", on a Deployment and on a ReplicaSet, with a CPU Utilization target
and with a CPU AverageValue target, through the whole stack on virtual time (e2e_plane).

The loads are upstream's: pods requesting 500m; scaling up, 250m of CPU in total with a
target of 20% (or 100m a pod), so 3 pods, then 700m, so 7 capped at the maximum of 5;
scaling down, 325m with a target of 30% (or 150m a pod), so 3, then 10m, so 1. Default
behaviour: scale-ups act on the next sync, scale-downs wait out the 5 minute stabilization
window, which upstream's controller opens with the replica count it first sees.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from podscale.api.quantity import parse_quantity

from .e2e_plane import (
    APP,
    REACTION,
    Consumer,
    cpu_average_value,
    cpu_utilization,
    e2e_scenario,
    hpa,
    run_e2e,
    workload,
)

JSON = dict[str, Any]
WAIT = timedelta(minutes=15)  # upstream's timeToWait for each step
DOWNSCALE_WINDOW = timedelta(minutes=5)  # --horizontal-pod-autoscaler-downscale-stabilization

KINDS = pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet"])


def scale_up(kind: str, metric: JSON) -> tuple[tuple[timedelta, list[str]], Consumer]:
    scenario = e2e_scenario(
        workload(kind, 1, {APP: "500m"}),
        hpa(kind, metric, min_replicas=1, max_replicas=5),
        initial_millicores=250,
    )

    async def body(consumer: Consumer) -> tuple[timedelta, list[str]]:
        await consumer.wait_for_replicas(3, WAIT)
        burst = consumer.consume_cpu(700)
        await consumer.wait_for_replicas(5, WAIT)
        await consumer.ensure_replicas_in_range(5, 5, timedelta(minutes=1))
        return burst, await consumer.rescale_messages()

    return run_e2e(scenario, body)


def scale_down(kind: str, metric: JSON) -> tuple[tuple[timedelta, list[str]], Consumer]:
    scenario = e2e_scenario(
        workload(kind, 5, {APP: "500m"}),
        hpa(kind, metric, min_replicas=1, max_replicas=5),
        initial_millicores=325,
    )

    async def body(consumer: Consumer) -> tuple[timedelta, list[str]]:
        await consumer.wait_for_replicas(3, WAIT)
        drop = consumer.consume_cpu(10)
        await consumer.wait_for_replicas(1, WAIT)
        await consumer.ensure_replicas_in_range(1, 1, timedelta(minutes=1))
        return drop, await consumer.rescale_messages()

    return run_e2e(scenario, body)


UP_TARGETS = pytest.mark.parametrize(
    ("metric", "described"),
    [
        (cpu_utilization(20), "cpu resource utilization (percentage of request)"),
        (cpu_average_value(100), "cpu resource"),
    ],
    ids=["utilization-20pct", "average-value-100m"],
)
DOWN_TARGETS = pytest.mark.parametrize(
    "metric",
    [cpu_utilization(30), cpu_average_value(150)],
    ids=["utilization-30pct", "average-value-150m"],
)


@KINDS
@UP_TARGETS
def test_scales_from_1_to_3_and_from_3_to_5(kind: str, metric: JSON, described: str) -> None:
    (burst, messages), consumer = scale_up(kind, metric)
    # Each step in one rescale: the default policies allow doubling (or +4) per 15 s.
    assert consumer.replica_sequence() == [1, 3, 5]
    assert consumer.changed_to(3) <= REACTION
    assert timedelta(0) < consumer.changed_to(5) - burst <= REACTION
    assert messages == [
        f"New size: 3; reason: {described} above target",
        f"New size: 5; reason: {described} above target",
    ]


@KINDS
@DOWN_TARGETS
def test_scales_from_5_to_3_and_from_3_to_1(kind: str, metric: JSON) -> None:
    (drop, messages), consumer = scale_down(kind, metric)
    sequence = consumer.replica_sequence()
    # Straight to 3, then down to 1 without ever growing again; a recommendation taken
    # while the metrics still mix the old and the new load may add a step on the way.
    assert sequence[:2] == [5, 3]
    assert sequence == sorted(sequence, reverse=True)
    assert sequence[-1] == 1
    # The first sync records 5 as a recommendation, which holds for the whole window.
    assert DOWNSCALE_WINDOW <= consumer.changed_to(3) <= DOWNSCALE_WINDOW + REACTION
    # Every recommendation of 3 taken before the load dropped holds for a window too.
    below_3 = next(at for at, replicas in consumer.replica_changes() if replicas < 3)
    assert below_3 - drop >= DOWNSCALE_WINDOW
    assert consumer.changed_to(1) - drop <= DOWNSCALE_WINDOW + REACTION
    assert messages == [
        f"New size: {replicas}; reason: All metrics below target" for replicas in sequence[1:]
    ]


def test_status_at_the_maximum_reports_what_was_measured() -> None:
    """At the end of a scale-up capped by maxReplicas: 700m over 5 pods of 500m is 140m a
    pod (28%); the HPA reports that, and ScalingLimited says the maximum holds it back."""
    kind = "Deployment"
    scenario = e2e_scenario(
        workload(kind, 1, {APP: "500m"}),
        hpa(kind, cpu_utilization(20), max_replicas=5),
        initial_millicores=700,
    )

    async def body(consumer: Consumer) -> JSON:
        await consumer.wait_for_replicas(5, WAIT)
        await consumer.ensure_replicas_in_range(5, 5, timedelta(minutes=2))
        return await consumer.hpa_status()

    status, _ = run_e2e(scenario, body)
    assert status["currentReplicas"] == status["desiredReplicas"] == 5
    [current] = status["currentMetrics"]
    measured = current["resource"]["current"]
    assert 26 <= measured["averageUtilization"] <= 30
    assert 130 <= parse_quantity(measured["averageValue"]).milli_value() <= 150
    conditions = {c["type"]: c for c in status["conditions"]}
    limited = conditions["ScalingLimited"]
    assert (limited["status"], limited["reason"]) == ("True", "TooManyReplicas")
    assert limited["message"] == "the desired replica count is more than the maximum replica count"
