"""decide() with a forecast's inputs: the larger proposal wins, window bounds replace the
spec's, behavior applies after, and the Decision and trace name the part that won."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.hpa import Decision, StaticMetricsSource, decide, render_trace, trace_to_dict
from podscale.hpa.predictive import Predictive
from podscale.hpa.trace_read import trace_from_dict
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC)
ONE_POD_A_MINUTE = {"scaleUp": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}}


def run(
    predictive: Predictive | None,
    *,
    current: int = 4,
    usage: int = 50,
    max_replicas: int = 10,
    behavior: dict[str, Any] | None = None,
) -> Decision:
    """``current`` pods of 100m requests each using ``usage`` millicores, target 50%."""
    hpa = make_hpa(
        metrics=[cpu_metric(50)], min_replicas=1, max_replicas=max_replicas, behavior=behavior
    )
    source = StaticMetricsSource(
        timestamp=NOW, resources={"cpu": {f"web-{i}": {"app": usage} for i in range(current)}}
    )
    return decide(
        hpa,
        scale=make_scale(current),
        pods=[make_pod(f"web-{i}", now=NOW) for i in range(current)],
        metrics=source,
        history=None,
        now=NOW,
        predictive=predictive,
    )


CASES = [
    # (predictive, keywords, desired, decided_by, passive, proactive)
    (Predictive(7), {}, 7, "proactive", 4, 7),
    (Predictive(3), {}, 4, "passive", 4, 3),
    (Predictive(None), {}, 4, "passive", 4, None),
    (None, {"usage": 100}, 8, "passive", 8, None),
    (Predictive(5), {"usage": 100}, 8, "passive", 8, 5),
    (Predictive(30), {}, 8, "behavior", 4, 30),  # legacy scale-up limit: max(2 * 4, 4)
    (Predictive(30), {"current": 6}, 10, "bounds", 6, 30),
    (Predictive(9, max_replicas=6, window="night"), {}, 6, "bounds", 4, 9),
    (Predictive(None, min_replicas=5, window="day"), {}, 5, "bounds", None, None),
    (Predictive(None, max_replicas=3, window="night"), {}, 3, "bounds", None, None),
    (Predictive(8), {"behavior": ONE_POD_A_MINUTE}, 5, "behavior", 4, 8),
    (Predictive(2), {"usage": 10}, 4, "behavior", 1, 2),  # scale-down stabilization holds 4
]


@pytest.mark.parametrize(
    ("predictive", "keywords", "desired", "by", "passive", "proactive"),
    CASES,
    ids=[
        "forecast-above-metrics-wins",
        "metrics-above-forecast-win",
        "no-forecast-is-the-hpa",
        "no-predictive-is-the-hpa",
        "metrics-win-a-scale-up",
        "rate-limit-holds-the-forecast",
        "spec-max-bounds-the-forecast",
        "window-max-bounds-the-forecast",
        "window-min-clamps-current",
        "window-max-clamps-current",
        "scale-up-policy-holds-the-forecast",
        "down-stabilization-holds",
    ],
)
def test_the_larger_proposal_then_bounds_then_behavior(
    predictive: Predictive | None,
    keywords: dict[str, Any],
    desired: int,
    by: str,
    passive: int | None,
    proactive: int | None,
) -> None:
    decision = run(predictive, **keywords)
    assert decision.desired_replicas == desired
    assert decision.decided_by == by
    assert (decision.passive_replicas, decision.proactive_replicas) == (passive, proactive)
    assert decision.trace.decided_by == by
    assert decision.trace.passive_replicas == passive
    assert decision.trace.proactive_replicas == proactive


def test_a_forecast_rescale_reads_as_predicted_demand() -> None:
    decision = run(Predictive(7, window="day"))
    assert decision.reason == "predicted demand above target"
    assert (
        "Normal",
        "SuccessfulRescale",
        "New size: 7; reason: predicted demand above target",
    ) in [tuple(e) for e in decision.events]
    text = render_trace(decision.trace)
    assert "passive (metrics): 4; proactive (forecast): 7" in text
    assert "window day: bounds [1, 10]" in text
    assert "desired replicas: 7 (decided by proactive)" in text
    assert trace_from_dict(trace_to_dict(decision.trace)) == decision.trace


def test_an_hpa_trace_reads_as_before() -> None:
    text = render_trace(run(None).trace)
    assert "proactive" not in text
    assert "decided by" not in text


@st.composite
def inputs(draw: st.DrawFn) -> dict[str, Any]:
    current = draw(st.integers(1, 12))
    behavior = draw(st.sampled_from([None, {}, ONE_POD_A_MINUTE]))
    low = draw(st.none() | st.integers(1, 8))
    high = draw(st.none() | st.integers(low or 1, 20))
    return {
        "current": current,
        "usage": draw(st.integers(0, 200)),
        "max_replicas": draw(st.integers(current, 20)),
        "behavior": behavior,
        "proactive": draw(st.none() | st.integers(0, 40)),
        "low": low,
        "high": high,
    }


@given(inputs())
def test_a_forecast_only_adds_and_bounds_hold(s: dict[str, Any]) -> None:
    keywords = {k: s[k] for k in ("current", "usage", "max_replicas", "behavior")}
    alone = run(None, **keywords)
    unbounded = run(Predictive(s["proactive"]), **keywords)
    # Before behavior, the proposal is never below the HPA's own; after it, neither is the
    # result (stabilization and rate limits are monotone in the proposal).
    if alone.trace.proposed_replicas is not None:
        assert unbounded.trace.proposed_replicas is not None
        assert unbounded.trace.proposed_replicas >= alone.trace.proposed_replicas
    assert unbounded.desired_replicas >= alone.desired_replicas
    if unbounded.decided_by == "proactive":
        assert unbounded.desired_replicas == s["proactive"]
    bounded = run(Predictive(s["proactive"], s["low"], s["high"], "w"), **keywords)
    low = 1 if s["low"] is None else s["low"]
    high = s["max_replicas"] if s["high"] is None else s["high"]
    assert min(low, high) <= bounded.desired_replicas <= max(high, low)
    if low <= s["current"] <= high and bounded.rescale:
        assert low <= bounded.desired_replicas <= high
