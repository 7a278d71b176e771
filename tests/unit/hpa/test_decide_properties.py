"""Invariants of decide() over generated HPAs, pods and CPU samples."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from podscale.hpa import History, Recommendation, StaticMetricsSource, decide
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC)

behaviors = st.one_of(
    st.none(),
    st.just({}),
    st.builds(
        lambda up, down, window, select: {
            "scaleUp": {"policies": [{"type": "Pods", "value": up, "periodSeconds": 60}]},
            "scaleDown": {
                "stabilizationWindowSeconds": window,
                "selectPolicy": select,
                "policies": [{"type": "Percent", "value": down, "periodSeconds": 60}],
            },
        },
        st.integers(1, 10),
        st.integers(1, 100),
        st.integers(0, 600),
        st.sampled_from(["Max", "Min", "Disabled"]),
    ),
)


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    min_replicas = draw(st.integers(1, 5))
    max_replicas = draw(st.integers(min_replicas, 40))
    current = draw(st.integers(min_replicas, max_replicas))
    usage = draw(st.lists(st.integers(0, 600), min_size=current, max_size=current))
    recommendations = draw(st.lists(st.tuples(st.integers(1, 40), st.integers(1, 900)), max_size=8))
    return {
        "hpa": make_hpa(
            min_replicas=min_replicas,
            max_replicas=max_replicas,
            metrics=[cpu_metric(draw(st.integers(10, 200)))],
            behavior=draw(behaviors),
        ),
        "current": current,
        "usage": usage,
        "history": History(
            [Recommendation(r, NOW - timedelta(seconds=age)) for r, age in recommendations]
        ),
    }


def run(s: dict[str, Any]) -> Any:
    pods = [make_pod(f"web-{i}", now=NOW) for i in range(s["current"])]
    source = StaticMetricsSource(
        timestamp=NOW, resources={"cpu": {f"web-{i}": {"app": u} for i, u in enumerate(s["usage"])}}
    )
    return decide(
        s["hpa"],
        scale=make_scale(s["current"]),
        pods=pods,
        metrics=source,
        history=s["history"],
        now=NOW,
    )


@given(scenarios())
def test_result_stays_within_min_and_max(s: dict[str, Any]) -> None:
    decision = run(s)
    spec = s["hpa"]["spec"]
    assert spec["minReplicas"] <= decision.desired_replicas <= spec["maxReplicas"]
    assert decision.rescale == (decision.desired_replicas != s["current"])


@given(scenarios(), st.floats(0.9, 1.1))
def test_no_change_within_tolerance(s: dict[str, Any], ratio: float) -> None:
    target = s["hpa"]["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"]
    # Every pod at the same usage (percent of its 100m request), inside the band.
    level = int(target * ratio)
    if not 0.9 <= level / target <= 1.1:
        level = target
    s["usage"] = [level] * s["current"]
    # A steady controller: no remembered recommendation above the current size (the
    # legacy path would otherwise, like upstream, move up to the highest recent one).
    s["history"].recommendations[:] = [
        r for r in s["history"].recommendations if r.replicas <= s["current"]
    ]
    decision = run(s)
    assert decision.desired_replicas == s["current"]
    assert decision.rescale is False


@given(scenarios())
def test_scale_down_never_undercuts_the_window(s: dict[str, Any]) -> None:
    hpa = s["hpa"]
    behavior = hpa["spec"].get("behavior")
    window = 300
    if behavior and "scaleDown" in behavior:
        window = behavior["scaleDown"]["stabilizationWindowSeconds"]
    decision = run(s)
    recent = [
        r.replicas
        for r in s["history"].recommendations
        if r.timestamp > NOW - timedelta(seconds=window)
    ]
    if recent:
        floor = min(s["current"], max(recent))
        assert decision.desired_replicas >= min(floor, hpa["spec"]["maxReplicas"])


@given(scenarios())
def test_inputs_are_left_untouched_and_decisions_repeat(s: dict[str, Any]) -> None:
    hpa_before = copy.deepcopy(s["hpa"])
    history_before = s["history"].copy()
    first = run(s)
    assert s["hpa"] == hpa_before
    assert s["history"] == history_before
    second = run(s)
    assert (first.desired_replicas, first.status, first.events) == (
        second.desired_replicas,
        second.status,
        second.events,
    )
