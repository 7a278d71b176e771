"""The default HPA replayed on a load step whose answer is known by hand."""

from __future__ import annotations

from datetime import timedelta

from podscale.replay.replay import FIXED_AT_PEAK, ORACLE, replay
from podscale.replay.target import Autoscaler
from podscale.replay.window import choose_window
from podscale.scenario.loader import parse_scenario

from .scenarios import step_scenario

STEP_MINUTE = 2  # the window starts at 3m, the step comes at 5m


def test_default_hpa_respects_the_startup_lower_bound() -> None:
    """A step from 1 to 10 needed pods, held 30 minutes, with pods Ready 90 s after creation.

    At 5 req/s x 10m each request, the demand is 50m: with a 100m request at u = 50%,
    needed = ceil(50 / 50) = 1, and the one pod runs at exactly its 50% target, so the HPA
    holds 1 replica. At T = 5m the rate becomes 50 req/s: 500m, needed = 10. No pod that
    is not Ready at T can be Ready before T + 90 s (the test checks that nothing scaled
    before T, so every other pod is created at T or later). Hence, by minute:

    - minute T (60 s after T): ready <= 1 throughout, short >= 10 - 1 = 9;
    - minute T+1: ready <= 1 for its first 30 s, <= 10 for the rest, so its mean is at most
      (30 x 1 + 30 x 10) / 60 = 5.5 and short >= 4.5;

    a lower bound of 9 + 4.5 = 13.5 under-provisioned pod-minutes (8 + 3.5 = 11.5 beyond
    one pod, 2 minutes with ready < needed) that no reactive autoscaler can beat, and
    the HPA, which must also wait for metrics and its sync, does worse.
    """
    document = step_scenario(
        [{"at": "0s", "rate": 5}, {"at": "5m", "rate": 50}, {"at": "35m", "rate": 5}], "40m"
    )
    scenario = parse_scenario(document)
    window = choose_window(
        scenario.duration, timedelta(minutes=3), timedelta(minutes=35), timedelta(minutes=3)
    )
    report = replay(scenario, [Autoscaler("default")], window, workers=1)
    hpa, peak, best = report.runs
    assert (peak.name, best.name) == (FIXED_AT_PEAK, ORACLE)
    series = hpa.series
    assert series.needed == (1,) * STEP_MINUTE + (10,) * 30 + (1,) * 3
    # The bound's premise: one pod, ready, and no scaling before the step.
    assert series.ready[:STEP_MINUTE] == (1.0,) * STEP_MINUTE
    assert all(e.minute >= STEP_MINUTE for e in series.events)
    totals = hpa.totals
    assert totals.under_pod_minutes >= 13.5
    assert totals.under_beyond_one_pod_minutes >= 11.5
    assert totals.under_minutes >= 2
    # And it does catch up: 10 ready pods long before the step ends.
    assert series.ready[STEP_MINUTE + 10 : STEP_MINUTE + 30] == (10.0,) * 20
    assert totals.scale_ups >= 1
    assert totals.max_replicas == 10
    assert totals.rises == 1
    assert totals.react_max_minutes is not None
    assert totals.react_max_minutes >= 2  # minute T+1 is still short (the bound above)
    # The references, from the same demand.
    assert best.totals.under_pod_minutes == peak.totals.under_pod_minutes == 0
    assert best.totals.over_pod_hours == 0
    assert peak.totals.over_pod_hours == 9 * 5 / 60  # 5 one-pod minutes at 10 pods
    assert best.totals.cost_pod_hours == (1 * 5 + 10 * 30) / 60
