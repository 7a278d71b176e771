"""Two HPAs on one target through the whole stack: neither scales.

Upstream (validateAndParseSelector in pkg/controller/podautoscaler/horizontal.go): when the
pods of an HPA's target are also selected by another HPA's target, every HPA involved reports
``ScalingActive=False`` ``AmbiguousSelector`` "pods by selector <selector> are controlled by
multiple HPAs: [<namespace/name> ...]" with a Warning event of that reason, and none of them
scales, even though each one's metrics ask for more pods. Deleting one of them lets the
other take over on its next sync.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from .e2e_b_manifests import (
    JSON,
    NAMESPACE,
    cpu_load,
    cpu_utilization,
    deployment,
    external,
    hpa,
    scenario,
)
from .e2e_b_plane import E2E, HPA, SYNC, run_e2e

HOLD, END = 150.0, 270.0
AMBIGUOUS = (
    "pods by selector app=web are controlled by multiple HPAs: [default/by-cpu default/by-queue]"
)
NAMES = ("by-cpu", "by-queue")


@dataclass(frozen=True, slots=True)
class AmbiguousRun:
    e2e: E2E
    active: dict[str, JSON]  # each HPA's ScalingActive condition while both exist


@pytest.fixture(scope="module")
def ambiguous() -> AmbiguousRun:
    # by-cpu wants 400m / 100m = 4 pods, by-queue 50 / 10 = 5 pods.
    manifests = [
        deployment("web", 2),
        hpa("by-cpu", "web", [cpu_utilization(50)], max_replicas=8),
        hpa("by-queue", "web", [external("queue", average_value="10")], max_replicas=8),
    ]

    async def body(e2e: E2E) -> AmbiguousRun:
        e2e.set_external("queue", "50")
        await e2e.advance(HOLD)
        active = {name: await e2e.condition(name, "ScalingActive") for name in NAMES}
        await e2e.api.delete(HPA, NAMESPACE, "by-queue")
        await e2e.advance(END)
        return AmbiguousRun(e2e, active)

    return run_e2e(scenario("two-hpas", manifests, [cpu_load("web", 400)]), body)


def test_neither_hpa_scales(ambiguous: AmbiguousRun) -> None:
    assert set(ambiguous.e2e.replicas_seen("web", 0, HOLD + 1)) == {2}
    for name in NAMES:
        assert ambiguous.e2e.events_of(name, "SuccessfulRescale", end=HOLD + 1) == []


@pytest.mark.parametrize("name", NAMES)
def test_both_report_an_ambiguous_selector(ambiguous: AmbiguousRun, name: str) -> None:
    active = ambiguous.active[name]
    assert (active["status"], active["reason"], active["message"]) == (
        "False",
        "AmbiguousSelector",
        AMBIGUOUS,
    )
    warnings = ambiguous.e2e.events_of(name, "AmbiguousSelector", end=HOLD + 1)
    assert warnings
    assert {(e.type, e.message) for e in warnings} == {("Warning", AMBIGUOUS)}


def test_the_remaining_hpa_takes_over_once_the_other_is_deleted(ambiguous: AmbiguousRun) -> None:
    e2e = ambiguous.e2e
    took_over = e2e.first_time("web", 4, after=HOLD)
    assert took_over is not None
    assert took_over - HOLD <= 2 * SYNC
    assert set(e2e.replicas_seen("web", took_over, END + 1)) == {4}
