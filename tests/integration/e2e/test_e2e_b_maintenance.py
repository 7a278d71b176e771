"""Maintenance mode through the whole stack: a target scaled to zero disables its HPA.

Upstream (reconcileAutoscaler in pkg/controller/podautoscaler/horizontal.go), with the
``HPAScaleToZero`` gate off as by default: while the target's ``spec.replicas`` is 0 and
``minReplicas`` is not, the HPA does not scale at all, whatever its metrics say; it reports
``ScalingActive=False`` ``ScalingDisabled`` "scaling is disabled since the replica count of
the target is zero", with current and desired replicas 0. Scaling the target back up ends
maintenance: the HPA takes over again on its own. The two ``kubectl scale`` steps are the
scenario's timeline events (``podscale.scenario.timeline``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from podscale.api.feature_gates import DEFAULT_FEATURE_GATES, HPA_SCALE_TO_ZERO
from podscale.client.http import ApiError

from .e2e_b_manifests import JSON, NAMESPACE, cpu_load, cpu_utilization, deployment, hpa, scenario
from .e2e_b_plane import E2E, HPA, SYNC, run_e2e

DOWN_AT, UP_AT, END = 120.0, 300.0, 420.0
# Upstream's e2e reaction budget: metrics delay (30 s + 30 s + 15 s), one sync, actuation.
REACTION = 75.0 + SYNC + 10.0


def scale_event(at: float, replicas: int) -> JSON:
    target = {"kind": "Deployment", "name": "web"}
    return {"at": f"{at:g}s", "type": "scale", "target": target, "replicas": replicas}


@dataclass(frozen=True, slots=True)
class MaintenanceRun:
    e2e: E2E
    status_at_zero: JSON


@pytest.fixture(scope="module")
def maintenance() -> MaintenanceRun:
    # 300 millicores of load over 200m requests at a 50% target: 3 pods.
    scn = scenario(
        "maintenance",
        [deployment("web", 1), hpa("web", "web", [cpu_utilization(50)], max_replicas=8)],
        [cpu_load("web", 300)],
        events=[scale_event(DOWN_AT, 0), scale_event(UP_AT, 1)],
    )

    async def body(e2e: E2E) -> MaintenanceRun:
        await e2e.advance(UP_AT - 1)
        status = (await e2e.hpa("web"))["status"]
        await e2e.advance(END)
        return MaintenanceRun(e2e, status)

    return run_e2e(scn, body)


def test_the_scale_to_zero_gate_is_off() -> None:
    assert HPA_SCALE_TO_ZERO not in DEFAULT_FEATURE_GATES


def test_no_scaling_while_the_target_is_at_zero(maintenance: MaintenanceRun) -> None:
    e2e = maintenance.e2e
    assert e2e.replicas_seen("web", DOWN_AT - 5, DOWN_AT) == [3]  # it had scaled to 3
    assert set(e2e.replicas_seen("web", DOWN_AT, UP_AT)) == {0}
    assert e2e.events_of("web", start=DOWN_AT + 1, end=UP_AT) == []


def test_the_hpa_reports_scaling_disabled(maintenance: MaintenanceRun) -> None:
    status = maintenance.status_at_zero
    conditions = {c["type"]: c for c in status["conditions"]}
    active = conditions["ScalingActive"]
    assert (active["status"], active["reason"]) == ("False", "ScalingDisabled")
    assert active["message"] == "scaling is disabled since the replica count of the target is zero"
    assert (conditions["AbleToScale"]["status"], conditions["AbleToScale"]["reason"]) == (
        "True",
        "SucceededGetScale",
    )
    assert (status["currentReplicas"], status["desiredReplicas"]) == (0, 0)


def test_scaling_resumes_when_the_target_is_scaled_back_up(maintenance: MaintenanceRun) -> None:
    e2e = maintenance.e2e
    resumed = e2e.first_time("web", 3, after=UP_AT)
    assert resumed is not None
    assert resumed - UP_AT <= REACTION
    assert set(e2e.replicas_seen("web", resumed, END + 1)) == {3}
    last = e2e.events_of("web", "SuccessfulRescale")[-1]
    assert last.message.startswith("New size: 3; reason: cpu resource utilization")


def test_min_replicas_zero_is_rejected_without_the_gate() -> None:
    manifests = [deployment("web", 1)]

    async def body(e2e: E2E) -> ApiError:
        obj = hpa("web", "web", [cpu_utilization(50)], min_replicas=0)
        with pytest.raises(ApiError) as failure:
            await e2e.api.create(HPA, NAMESPACE, obj)
        return failure.value

    err = run_e2e(scenario("min-zero", manifests), body)
    assert err.status == 422
    assert "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1" in str(err)
