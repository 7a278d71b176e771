"""A controller restart right after a scale-up, through the whole stack: no scale-down
before the downscale stabilization window has passed.

Upstream (recordInitialRecommendation and stabilizeRecommendation in
pkg/controller/podautoscaler/horizontal.go) keeps recommendations in memory; a restarted
controller seeds its history with the target's current count, so even though the load has
dropped it cannot scale down until one window (``--horizontal-pod-autoscaler-downscale-
stabilization``, 5 minutes) has passed. podscale by default also persists the history on
the HPA (``persist_history``); either way the count holds for the whole window after the
scale-up and drops soon after it. Only the HPA controller restarts (``HpaRestarter``): the
API, the other controllers, the kubelets and the metrics server keep running.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from .e2e_b_manifests import cpu_load, cpu_utilization, deployment, hpa, scenario
from .e2e_b_plane import E2E, SYNC, HpaRestarter, run_e2e, without_hpa_controller

WINDOW = 300.0  # upstream's default downscale stabilization
CRASH_AFTER, DOWN_FOR = 3.0, 5.0  # crash 3 s after the scale-up, down for 5 s
# After the window: the restarted controller's first sync (one period after it starts,
# its seed being taken then), the next sync, and slack.
BUDGET = CRASH_AFTER + DOWN_FOR + 3 * SYNC


@dataclass(frozen=True, slots=True)
class RestartRun:
    e2e: E2E
    scaled_up_at: float
    starts: int


@pytest.fixture(scope="module", params=[True, False], ids=["persisted-history", "in-memory"])
def restart(request: pytest.FixtureRequest) -> RestartRun:
    # 400 req/s at 1 millicore each over 200m requests at 50%: 4 pods; then 50 req/s: 1.
    scn = scenario(
        "restart",
        [deployment("web", 1), hpa("web", "web", [cpu_utilization(50)], max_replicas=8)],
        [cpu_load("web", 400)],
    )

    async def body(e2e: E2E) -> RestartRun:
        async with HpaRestarter(e2e.plane, persist_history=request.param) as controller:
            while await e2e.replicas("web") < 4:
                await e2e.advance(e2e.now() + 1, tick=1)
            scaled_up_at = e2e.now()
            e2e.set_load("web", 50)
            await e2e.advance(scaled_up_at + CRASH_AFTER, tick=1)
            await controller.crash()
            await e2e.advance(scaled_up_at + CRASH_AFTER + DOWN_FOR, tick=1)
            await controller.start()
            await e2e.advance(scaled_up_at + WINDOW + BUDGET + SYNC)
            return RestartRun(e2e, scaled_up_at, controller.starts)

    return run_e2e(scn, body, **without_hpa_controller())


def test_the_controller_restarted_after_the_scale_up(restart: RestartRun) -> None:
    assert restart.starts == 2
    assert set(restart.e2e.replicas_seen("web", 0, restart.scaled_up_at)) == {1}


def test_no_scale_down_before_the_window_has_passed(restart: RestartRun) -> None:
    up = restart.scaled_up_at
    held = restart.e2e.replicas_seen("web", up, up + WINDOW)
    assert held
    assert set(held) == {4}
    assert restart.e2e.events_of("web", "SuccessfulRescale", start=up + 1, end=up + WINDOW) == []


def test_scales_down_once_the_window_has_passed(restart: RestartRun) -> None:
    up = restart.scaled_up_at
    down = restart.e2e.first_time("web", 1, after=up)
    assert down is not None
    assert up + WINDOW <= down <= up + WINDOW + BUDGET
    last = restart.e2e.events_of("web", "SuccessfulRescale")[-1]
    assert last.message == "New size: 1; reason: All metrics below target"
