"""The metrics server down, through the whole stack: no change, conditions and events, and
recovery without a restart.

Upstream (reconcileAutoscaler and computeReplicasForMetrics in
pkg/controller/podautoscaler/horizontal.go; kubernetes/kubernetes#56165): when the resource
metrics cannot be read the HPA does not scale, whatever the load does meanwhile; it sets
``ScalingActive=False`` ``FailedGetResourceMetric`` ("the HPA was unable to compute the
replica count: ...") and emits Warning events ``FailedGetResourceMetric`` and
``FailedComputeMetricsReplicas`` every sync; once metrics come back the same controller
picks up on a later sync. Two outages: metrics.k8s.io not served at all (metrics-server
gone), and every kubelet's stats failing (the metrics server runs but has nothing to serve).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from .e2e_b_manifests import JSON, cpu_load, cpu_utilization, deployment, hpa, scenario
from .e2e_b_plane import E2E, SYNC, run_e2e

OUTAGE, LOAD_UP, RECOVER, END = 90.0, 120.0, 240.0, 360.0
# Upstream's e2e reaction budget: metrics delay (30 s + 30 s + 15 s), one sync, actuation.
REACTION = 75.0 + SYNC + 10.0
UNABLE = "the HPA was unable to compute the replica count: "


@dataclass(frozen=True, slots=True)
class Outage:
    """How to break and repair the metrics, and what the HPA then reports."""

    fail: Callable[[E2E], None]
    repair: Callable[[E2E], None]
    detail: str  # what the failed metric's message says


def _fail_stats(e2e: E2E) -> None:
    e2e.plane.usage.fail_stats("connection refused")


def _restore_stats(e2e: E2E) -> None:
    e2e.plane.usage.restore_stats()


OUTAGES = {
    "metrics-api-not-served": Outage(
        E2E.detach_metrics_api,
        E2E.attach_metrics_api,
        "unable to fetch metrics from resource metrics API: "
        "the server could not find the requested resource",
    ),
    "kubelet-stats-failing": Outage(
        _fail_stats, _restore_stats, "no metrics returned from resource metrics API"
    ),
}


@dataclass(frozen=True, slots=True)
class OutageRun:
    e2e: E2E
    outage: Outage
    status_during: JSON
    status_after: JSON


@pytest.fixture(scope="module", params=sorted(OUTAGES))
def outage_run(request: pytest.FixtureRequest) -> OutageRun:
    outage = OUTAGES[request.param]
    # 2 pods at 50% of 200m (200 req/s); at LOAD_UP the load rises to 5 pods' worth.
    scn = scenario(
        "metrics-down",
        [deployment("web", 2), hpa("web", "web", [cpu_utilization(50)], max_replicas=8)],
        [cpu_load("web", 200, at=[(f"{LOAD_UP:g}s", 500)])],
    )

    async def body(e2e: E2E) -> OutageRun:
        await e2e.advance(OUTAGE)
        outage.fail(e2e)
        await e2e.advance(RECOVER)
        during = (await e2e.hpa("web"))["status"]
        outage.repair(e2e)
        await e2e.advance(END)
        return OutageRun(e2e, outage, during, (await e2e.hpa("web"))["status"])

    return run_e2e(scn, body)


def conditions(status: JSON) -> dict[str, tuple[str, str, str]]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in status["conditions"]}


def test_no_change_while_metrics_are_down(outage_run: OutageRun) -> None:
    e2e = outage_run.e2e
    assert set(e2e.replicas_seen("web", 0, RECOVER + 1)) == {2}
    assert e2e.events_of("web", "SuccessfulRescale", end=RECOVER + 1) == []
    status = outage_run.status_during
    assert (status["currentReplicas"], status["desiredReplicas"]) == (2, 2)


def test_the_hpa_reports_the_failed_resource_metric(outage_run: OutageRun) -> None:
    found = conditions(outage_run.status_during)
    state, reason, message = found["ScalingActive"]
    assert (state, reason) == ("False", "FailedGetResourceMetric")
    assert message.startswith(UNABLE + "failed to get cpu utilization: ")
    assert outage_run.outage.detail in message
    assert found["AbleToScale"][:2] == ("True", "SucceededGetScale")


def test_every_sync_of_the_outage_emits_warnings(outage_run: OutageRun) -> None:
    e2e = outage_run.e2e
    window = {"start": OUTAGE + SYNC + 1, "end": RECOVER}
    failed = e2e.events_of("web", "FailedGetResourceMetric", **window)
    computed = e2e.events_of("web", "FailedComputeMetricsReplicas", **window)
    syncs = int((RECOVER - OUTAGE) // SYNC) - 2
    assert len(failed) >= syncs
    assert len(computed) >= syncs
    assert {e.type for e in failed + computed} == {"Warning"}
    assert all(outage_run.outage.detail in e.message for e in failed + computed)


def test_recovers_without_a_restart(outage_run: OutageRun) -> None:
    e2e = outage_run.e2e
    caught_up = e2e.first_time("web", 5, after=RECOVER)
    assert caught_up is not None
    assert caught_up - RECOVER <= REACTION
    after = e2e.replicas_seen("web", RECOVER, END + 1)
    assert after == sorted(after)  # straight up to what the load asks for
    assert set(e2e.replicas_seen("web", caught_up, END + 1)) == {5}
    assert conditions(outage_run.status_after)["ScalingActive"][:2] == (
        "True",
        "ValidMetricFound",
    )
