"""Upstream e2e "ReplicaSet with idle sidecar (ContainerResource use case)": an HPA on one
container's CPU (type ContainerResource) scales on that container alone, whatever its
sidecar does. Through the whole stack on virtual time (e2e_plane): the metrics server
reports each container's usage and the HPA controller picks the named container.

* Idle sidecar: the application container (250m request, target 20%, so 50m a pod) burns
  125m in total, so 3 pods, then 500m, so 10 capped at 5; the idle sidecar's request would
  halve a pod-level utilization, a container-level one ignores it.
* Busy sidecar: the sidecar burns 250m then 700m while the application idles; the HPA on
  the application container never scales up. The control case runs the same load under a
  pod-level Resource HPA and does scale, so the load is real.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from .e2e_plane import (
    APP,
    REACTION,
    SIDECAR,
    Consumer,
    container_cpu_average_value,
    container_cpu_utilization,
    cpu_utilization,
    e2e_scenario,
    hpa,
    run_e2e,
    workload,
)

WAIT = timedelta(minutes=15)
KINDS = pytest.mark.parametrize("kind", ["ReplicaSet", "Deployment"])


@KINDS
def test_scales_on_a_busy_application_with_an_idle_sidecar(kind: str) -> None:
    scenario = e2e_scenario(
        workload(kind, 1, {APP: "250m", SIDECAR: "250m"}),
        hpa(kind, container_cpu_utilization(APP, 20), max_replicas=5),
        initial_millicores=125,
        busy=APP,
    )

    async def body(consumer: Consumer) -> tuple[timedelta, list[str]]:
        await consumer.wait_for_replicas(3, WAIT)
        burst = consumer.consume_cpu(500)
        await consumer.wait_for_replicas(5, WAIT)
        return burst, await consumer.rescale_messages()

    (burst, messages), consumer = run_e2e(scenario, body)
    assert consumer.replica_sequence() == [1, 3, 5]
    assert consumer.changed_to(3) <= REACTION
    assert consumer.changed_to(5) - burst <= REACTION
    reason = "cpu container resource utilization (percentage of request) above target"
    assert messages == [f"New size: 3; reason: {reason}", f"New size: 5; reason: {reason}"]


@pytest.mark.parametrize(
    ("metric", "described"),
    [
        (
            container_cpu_utilization(APP, 20),
            "cpu container resource utilization (percentage of request)",
        ),
        # Upstream names an AverageValue target "<resource> resource" for both source
        # types (horizontal.go, computeStatusForResourceMetricGeneric).
        (container_cpu_average_value(APP, 100), "cpu resource"),
    ],
    ids=["utilization-20pct", "average-value-100m"],
)
def test_scales_from_1_to_3_and_from_3_to_5_on_one_container(
    metric: dict[str, object], described: str
) -> None:
    """Upstream's "Deployment (Container Resource)" cases: one container of 500m, 250m then
    700m of load, a target of 20% or 100m."""
    kind = "Deployment"
    scenario = e2e_scenario(
        workload(kind, 1, {APP: "500m"}),
        hpa(kind, metric, max_replicas=5),
        initial_millicores=250,
    )

    async def body(consumer: Consumer) -> tuple[timedelta, list[str]]:
        await consumer.wait_for_replicas(3, WAIT)
        burst = consumer.consume_cpu(700)
        await consumer.wait_for_replicas(5, WAIT)
        return burst, await consumer.rescale_messages()

    (burst, messages), consumer = run_e2e(scenario, body)
    assert consumer.replica_sequence() == [1, 3, 5]
    assert consumer.changed_to(3) <= REACTION
    assert consumer.changed_to(5) - burst <= REACTION
    assert messages == [
        f"New size: 3; reason: {described} above target",
        f"New size: 5; reason: {described} above target",
    ]


@KINDS
def test_does_not_scale_up_on_a_busy_sidecar_with_an_idle_application(kind: str) -> None:
    scenario = e2e_scenario(
        workload(kind, 1, {APP: "500m", SIDECAR: "500m"}),
        hpa(kind, container_cpu_utilization(APP, 20), max_replicas=5),
        initial_millicores=250,
        busy=SIDECAR,
    )

    async def body(consumer: Consumer) -> dict[str, object]:
        await consumer.ensure_replicas_in_range(1, 1, timedelta(minutes=3))
        consumer.consume_cpu(700)
        await consumer.ensure_replicas_in_range(1, 1, timedelta(minutes=3))
        return await consumer.hpa_status()

    status, consumer = run_e2e(scenario, body)
    assert consumer.replica_sequence() == [1]
    # The HPA did measure, and measured the idle application container.
    assert [o.desired for o in consumer.observations if o.desired is not None][-1] == 1
    [current] = status["currentMetrics"]  # type: ignore[misc]
    assert current == {
        "type": "ContainerResource",
        "containerResource": {
            "name": "cpu",
            "container": APP,
            "current": {"averageUtilization": 0, "averageValue": "1m"},
        },
    }


def test_control_the_same_busy_sidecar_scales_a_pod_level_hpa() -> None:
    """700m against a pod request of 1000m at 20%: 4 pods (the sidecar's usage counts)."""
    kind = "ReplicaSet"
    scenario = e2e_scenario(
        workload(kind, 1, {APP: "500m", SIDECAR: "500m"}),
        hpa(kind, cpu_utilization(20), max_replicas=5),
        initial_millicores=700,
        busy=SIDECAR,
    )

    async def body(consumer: Consumer) -> None:
        await consumer.wait_for_replicas(4, WAIT)
        await consumer.ensure_replicas_in_range(4, 4, timedelta(minutes=1))

    _, consumer = run_e2e(scenario, body)
    assert consumer.replica_sequence() == [1, 4]
    assert consumer.changed_to(4) <= REACTION
