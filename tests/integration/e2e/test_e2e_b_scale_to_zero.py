"""Scale to zero and back through the whole stack, under upstream's ``HPAScaleToZero`` gate.

Upstream (the HPA strategy's validation options, ``validateMetrics`` and
``reconcileAutoscaler`` in pkg/controller/podautoscaler/horizontal.go): with the gate on, an
HPA may have ``minReplicas: 0`` when one of its metrics is Object or External; without the
gate (alpha, off by default) the lower bound stays 1. At zero replicas the HPA is not in
maintenance mode (that needs ``minReplicas != 0``) and keeps reading its External metric: a
Value target's proposal is then the usage ratio itself rounded up, an AverageValue target's
the total over the per-pod target, so any usage wakes the target and none keeps it at zero.
The scenario turns the gate on (``spec.featureGates``); values come from the push provider.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES, HPA_SCALE_TO_ZERO
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.store.clock import SystemClock
from podscale.store.memory import MemoryStore

from .e2e_b_manifests import (
    JSON,
    NAMESPACE,
    cpu_utilization,
    deployment,
    external,
    hpa,
    no_downscale_window,
    pods_metric,
    scenario,
)
from .e2e_b_plane import E2E, HPA, SYNC, run_e2e

METRIC = "queue_messages_ready"
GATE_ON = {HPA_SCALE_TO_ZERO: True}
WITH_ZERO = DEFAULT_FEATURE_GATES | {HPA_SCALE_TO_ZERO}
# A reaction to a pushed value: the next sync (at most one period away) plus slack.
REACTION = 2 * SYNC
EMPTY_AT, BUSY_AT, DRAINED_AT, END = 0.0, 120.0, 240.0, 360.0


@dataclass(frozen=True, slots=True)
class ZeroRun:
    e2e: E2E
    status_at_zero: JSON
    busy_count: int  # where the count settles while the metric reads 25


def _run(metric: JSON, busy_count: int) -> ZeroRun:
    manifests = [
        deployment("worker", 1),
        hpa(
            "worker",
            "worker",
            [metric],
            min_replicas=0,
            max_replicas=5,
            behavior=no_downscale_window(),
        ),
    ]

    async def body(e2e: E2E) -> ZeroRun:
        e2e.set_external(METRIC, "0")
        await e2e.advance(BUSY_AT - 1)
        status = (await e2e.hpa("worker"))["status"]
        e2e.set_external(METRIC, "25")
        await e2e.advance(DRAINED_AT)
        e2e.set_external(METRIC, "0")
        await e2e.advance(END)
        return ZeroRun(e2e, status, busy_count)

    return run_e2e(scenario("scale-to-zero", manifests, feature_gates=GATE_ON), body)


@pytest.fixture(
    scope="module",
    # A Value target's ratio (25 / 10) does not fall as pods are added: on to maxReplicas,
    # as upstream's external metrics e2e shows. An AverageValue target settles at 25 / 10.
    params=[(external(METRIC, value="10"), 5), (external(METRIC, average_value="10"), 3)],
    ids=["external-value-target", "external-average-value-target"],
)
def zero_run(request: pytest.FixtureRequest) -> ZeroRun:
    metric, busy_count = request.param
    return _run(metric, busy_count)


def test_the_target_goes_to_zero_when_the_metric_does(zero_run: ZeroRun) -> None:
    e2e = zero_run.e2e
    reached = e2e.first_time("worker", 0)
    assert reached is not None
    assert reached <= REACTION
    assert set(e2e.replicas_seen("worker", reached, BUSY_AT)) == {0}
    first = e2e.events_of("worker", "SuccessfulRescale")[0]
    assert first.message == "New size: 0; reason: All metrics below target"


def test_at_zero_scaling_stays_active(zero_run: ZeroRun) -> None:
    # ScalingDisabled is for minReplicas != 0 only: here the HPA keeps reading its metric.
    status = zero_run.status_at_zero
    conditions = {c["type"]: c for c in status["conditions"]}
    assert (conditions["ScalingActive"]["status"], conditions["ScalingActive"]["reason"]) == (
        "True",
        "ValidMetricFound",
    )
    assert (status["currentReplicas"], status["desiredReplicas"]) == (0, 0)


def test_the_target_wakes_from_zero_and_returns(zero_run: ZeroRun) -> None:
    e2e = zero_run.e2e
    woke = e2e.first_time("worker", 3, after=BUSY_AT)
    assert woke is not None
    assert woke - BUSY_AT <= REACTION  # 25 / 10 rounded up, in one step from zero
    busy = e2e.replicas_seen("worker", BUSY_AT, DRAINED_AT)
    assert busy == sorted(busy)  # only up while the metric stays at 25
    assert busy[-1] == zero_run.busy_count
    back = e2e.first_time("worker", 0, after=DRAINED_AT)
    assert back is not None
    assert back - DRAINED_AT <= REACTION
    rescales = e2e.events_of("worker", "SuccessfulRescale", start=BUSY_AT)
    assert rescales[0].message == f"New size: 3; reason: external metric {METRIC}(nil) above target"


ZERO_NEEDS_METRIC = (
    "spec.metrics: Forbidden: must specify at least one Object or External metric to "
    "support scaling to zero replicas"
)
OBJECT_METRIC: JSON = {
    "type": "Object",
    "object": {
        "metric": {"name": "requests-per-second"},
        "describedObject": {"apiVersion": "v1", "kind": "Service", "name": "front"},
        "target": {"type": "Value", "value": "10"},
    },
}
ADMISSION_CASES: list[tuple[str, frozenset[str], list[JSON], str | None]] = [
    (
        "gate-off-min-replicas-lower-bound-is-1",
        DEFAULT_FEATURE_GATES,
        [external(METRIC, value="10")],
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
    ),
    ("gate-on-external-metric-admitted", WITH_ZERO, [], None),
    (
        "gate-on-object-metric-admitted",
        WITH_ZERO,
        [OBJECT_METRIC],
        None,
    ),
    (
        "gate-on-resource-only-needs-object-or-external",
        WITH_ZERO,
        [cpu_utilization(50)],
        ZERO_NEEDS_METRIC,
    ),
    (
        "gate-on-pods-only-needs-object-or-external",
        WITH_ZERO,
        [pods_metric("packets-per-second", "1k")],
        ZERO_NEEDS_METRIC,
    ),
]


@pytest.mark.parametrize(
    ("gates", "metrics", "refusal"),
    [c[1:] for c in ADMISSION_CASES],
    ids=[c[0] for c in ADMISSION_CASES],
)
def test_the_api_server_admits_min_replicas_zero_only_under_the_gate(
    gates: frozenset[str], metrics: list[JSON], refusal: str | None
) -> None:
    clock = SystemClock()
    api = InProcessApi.for_store(MemoryStore(clock), clock, feature_gates=gates)
    obj = hpa("worker", "worker", metrics or [external(METRIC, value="10")], min_replicas=0)

    async def create() -> JSON:
        return await api.create(HPA, NAMESPACE, obj)

    if refusal is None:
        assert asyncio.run(create())["spec"]["minReplicas"] == 0
        return
    with pytest.raises(ApiError) as caught:
        asyncio.run(create())
    assert caught.value.status == 422
    assert refusal in str(caught.value)
