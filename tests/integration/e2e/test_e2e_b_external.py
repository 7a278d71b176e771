"""External metrics through the whole stack: values pushed into the push provider, served by
external.metrics.k8s.io, read by the HPA controller, which scales the Deployment.

Upstream's behaviours (test/e2e/autoscaling/horizontal_pod_autoscaling_external_metrics.go
and the External cases of custom_metrics_stackdriver_autoscaling.go): a Value target scales
out to maxReplicas while the value stays above it and back to minReplicas when it drops to
zero; with several External metrics the largest proposal wins; when the dominant metric
drops the count settles at what the other metric still asks for, not at the minimum.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from .e2e_b_manifests import JSON, deployment, external, hpa, no_downscale_window, scenario
from .e2e_b_plane import E2E, SYNC, run_e2e

# A reaction to a pushed value: the next sync (at most one period away) plus slack.
REACTION = 2 * SYNC


def test_value_target_scales_out_to_max_and_back_to_min() -> None:
    # value/target = 2 whatever the count: the HPA keeps scaling out until maxReplicas.
    spec = [external("queue_messages_ready", value="50")]
    manifests = [
        deployment("consumer", 1),
        hpa("consumer", "consumer", spec, max_replicas=3, behavior=no_downscale_window()),
    ]

    async def body(e2e: E2E) -> tuple[float | None, float | None, list[int]]:
        e2e.set_external("queue_messages_ready", "100")
        await e2e.advance(120)
        at_max = e2e.first_time("consumer", 3)
        e2e.set_external("queue_messages_ready", "0")
        dropped = e2e.now()
        await e2e.advance(dropped + 120)
        at_min = e2e.first_time("consumer", 1, after=dropped)
        return (
            at_max,
            (None if at_min is None else at_min - dropped),
            e2e.replicas_seen("consumer", 0, dropped),
        )

    at_max, down_after, before_drop = run_e2e(scenario("value", manifests), body)
    assert at_max is not None
    assert at_max <= 2 * REACTION  # two steps (1 -> 2 -> 3), each one sync
    assert max(before_drop) == 3  # never beyond maxReplicas
    assert before_drop == sorted(before_drop)  # only up while the value stays high
    assert down_after is not None
    assert down_after <= REACTION


@dataclass(frozen=True, slots=True)
class TwoMetricsRun:
    e2e: E2E
    dropped_at: float
    status_before_drop: JSON
    end: float


@pytest.fixture(scope="module")
def two_metrics() -> TwoMetricsRun:
    # queue_a asks for 60/20 = 3 pods, queue_b for 150/30 = 5; then queue_b drops to 30 (1).
    spec = [
        external("queue_a", average_value="20"),
        external("queue_b", average_value="30"),
    ]
    manifests = [
        deployment("worker", 1),
        hpa("worker", "worker", spec, max_replicas=8, behavior=no_downscale_window()),
    ]

    async def body(e2e: E2E) -> TwoMetricsRun:
        e2e.set_external("queue_a", "60")
        e2e.set_external("queue_b", "150")
        await e2e.advance(150)
        status = (await e2e.hpa("worker"))["status"]
        e2e.set_external("queue_b", "30")
        dropped = e2e.now()
        await e2e.advance(dropped + 240)
        return TwoMetricsRun(e2e, dropped, status, e2e.now())

    return run_e2e(scenario("two-external", manifests), body)


def test_the_largest_external_proposal_wins(two_metrics: TwoMetricsRun) -> None:
    e2e = two_metrics.e2e
    seen = e2e.replicas_seen("worker", 0, two_metrics.dropped_at)
    reached = e2e.first_time("worker", 5)
    assert reached is not None
    assert reached <= 2 * REACTION
    assert max(seen) == 5  # queue_b's 5, not queue_a's 3, and no overshoot
    assert all(r == 5 for r in e2e.replicas_seen("worker", reached, two_metrics.dropped_at))
    rescales = e2e.events_of("worker", "SuccessfulRescale")
    assert rescales[0].message == "New size: 5; reason: external metric queue_b(nil) above target"


def test_the_status_reports_every_external_metric(two_metrics: TwoMetricsRun) -> None:
    status = two_metrics.status_before_drop
    current = {
        m["external"]["metric"]["name"]: m["external"]["current"]["averageValue"]
        for m in status["currentMetrics"]
    }
    assert current == {"queue_a": "12", "queue_b": "30"}  # per pod at 5 pods
    assert (status["currentReplicas"], status["desiredReplicas"]) == (5, 5)


def test_an_intermediate_count_when_the_dominant_metric_drops(two_metrics: TwoMetricsRun) -> None:
    e2e = two_metrics.e2e
    dropped = two_metrics.dropped_at
    settled = e2e.first_time("worker", 3, after=dropped)
    assert settled is not None
    assert settled - dropped <= REACTION
    after = e2e.replicas_seen("worker", dropped, two_metrics.end + 1)
    assert min(after) == 3  # queue_a still asks for 3: never down to minReplicas
    assert all(r == 3 for r in e2e.replicas_seen("worker", settled, two_metrics.end + 1))
    last = e2e.events_of("worker", "SuccessfulRescale")[-1]
    assert last.message == "New size: 3; reason: All metrics below target"
