"""decide() driven over virtual time like the controller drives it: sync every 15 s.

Each sync feeds back what the previous one produced (the HPA's status, the history) and
applies a rescale at once, with new pods ready immediately. A five-minute stabilization
window takes milliseconds: time is an input, nothing sleeps.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from podscale.hpa import History, StaticMetricsSource, decide
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

START = datetime(2026, 11, 22, 10, tzinfo=UTC)
SYNC = timedelta(seconds=15)

# Total CPU demand (millicores) at a moment; it is spread evenly over the pods.
Demand = Callable[[timedelta], int]


def run_controller(
    hpa: dict[str, Any], *, replicas: int, demand: Demand, duration: timedelta
) -> list[tuple[float, int]]:
    """Sync every 15 s for ``duration``; return (seconds, replicas) after each rescale."""
    history: History | None = None
    timeline = [(0.0, replicas)]
    elapsed = timedelta(0)
    while elapsed <= duration:
        now = START + elapsed
        pods = [
            make_pod(f"web-{i}", now=now, started_ago=timedelta(hours=1)) for i in range(replicas)
        ]
        per_pod = demand(elapsed) // replicas
        source = StaticMetricsSource(
            timestamp=now,
            resources={"cpu": {f"web-{i}": {"app": per_pod} for i in range(replicas)}},
        )
        decision = decide(
            hpa, scale=make_scale(replicas), pods=pods, metrics=source, history=history, now=now
        )
        hpa = {**hpa, "status": decision.status}
        history = decision.history
        if decision.rescale:
            replicas = decision.desired_replicas
            timeline.append((elapsed.total_seconds(), replicas))
        elapsed += SYNC
    return timeline


def test_scale_down_waits_for_the_five_minute_window() -> None:
    # 100m requests, 50% target: 400m of demand wants 8 pods, 100m wants 2.
    def demand(t: timedelta) -> int:
        return 400 if t < timedelta(minutes=2) else 100

    hpa = make_hpa(metrics=[cpu_metric(50)], min_replicas=1, max_replicas=20)
    timeline = run_controller(hpa, replicas=2, demand=demand, duration=timedelta(minutes=10))
    assert timeline[1] == (0.0, 4)  # legacy scale-up limit: max(2 * 2, 4)
    assert timeline[2] == (15.0, 8)
    # Demand dropped at 120 s; the last high recommendation was made at 105 s, so the
    # window keeps 8 pods until that sample is older than 300 s.
    first_down = next(t for t, r in timeline[3:])
    assert first_down == 420.0
    assert timeline[-1][1] == 2


def test_docs_scale_down_policy_walk() -> None:
    # The HPA docs' example: remove at most 4 pods or 10% per minute, whichever is more,
    # with no stabilization, from 80 replicas down to minReplicas 10.
    behavior = {
        "scaleDown": {
            "stabilizationWindowSeconds": 0,
            "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 60},
                {"type": "Percent", "value": 10, "periodSeconds": 60},
            ],
        }
    }
    hpa = make_hpa(metrics=[cpu_metric(50)], min_replicas=10, max_replicas=100, behavior=behavior)
    timeline = run_controller(
        hpa, replicas=80, demand=lambda _t: 10, duration=timedelta(minutes=20)
    )
    sizes = [r for _, r in timeline]
    assert sizes[:9] == [80, 72, 64, 57, 51, 45, 40, 36, 32]
    assert sizes[-1] == 10
    times = [t for t, _ in timeline[1:]]
    assert all(later - earlier == 60.0 for earlier, later in itertools.pairwise(times))


def test_scale_up_policy_limits_each_period() -> None:
    behavior = {"scaleUp": {"policies": [{"type": "Percent", "value": 50, "periodSeconds": 60}]}}
    hpa = make_hpa(metrics=[cpu_metric(50)], max_replicas=50, behavior=behavior)
    timeline = run_controller(
        hpa, replicas=2, demand=lambda _t: 2000, duration=timedelta(minutes=4)
    )
    # The e2e expectation: 2 -> 3 -> 5 (ceil(3 * 1.5) = 5), one step per minute.
    assert [r for _, r in timeline[:4]] == [2, 3, 5, 8]
    assert [t for t, _ in timeline[1:4]] == [0.0, 60.0, 120.0]
