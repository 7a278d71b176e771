"""KEDA's fallback: health counting, when a metric falls back, the replica count by behavior,
the metric value served instead, and the Fallback condition."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.keda.fallback import (
    fallback_active,
    fallback_condition,
    fallback_enabled,
    fallback_replicas,
    fallback_value,
    update_health,
)
from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.triggers.spec import TriggerSpec
from podscale.controllers.keda.types import ScaledObject

M = "s0-prometheus"


def so(fallback: dict[str, Any] | None = None, **spec: Any) -> ScaledObject:
    body: dict[str, Any] = {
        "scaleTargetRef": {"name": "web"},
        "triggers": [{"type": "prometheus", "metadata": {}, "name": "q"}],
        **spec,
    }
    if fallback is not None:
        body["fallback"] = fallback
    return parse_scaled_object({"metadata": {"name": "so", "namespace": "ns"}, "spec": body})


def trigger_spec(target: float) -> TriggerSpec:
    return TriggerSpec(
        type="prometheus",
        name="q",
        index=0,
        metric_name=M,
        metric_type="AverageValue",
        target_value=target,
        activation_target=0.0,
        use_cached_metrics=False,
        details=None,
    )


def test_health_counts_consecutive_failures_and_resets_on_success() -> None:
    health: dict[str, Any] = {}
    for _ in range(3):
        health = update_health(health, M, ok=False)
    assert health == {M: {"numberOfFailures": 3, "status": "Failing"}}
    assert update_health(health, M, ok=True) == {M: {"numberOfFailures": 0, "status": "Happy"}}


def test_health_keeps_other_metrics() -> None:
    health = {"s1-other": {"numberOfFailures": 2, "status": "Failing"}}
    assert update_health(health, M, ok=True)["s1-other"] == health["s1-other"]


FAILING_3 = {M: {"numberOfFailures": 3, "status": "Failing"}}


@pytest.mark.parametrize(
    ("obj", "health", "expected"),
    [
        (so({"failureThreshold": 2, "replicas": 5}), FAILING_3, True),
        (so({"failureThreshold": 3, "replicas": 5}), FAILING_3, False),
        (so(), FAILING_3, False),
        (so({"failureThreshold": 2, "replicas": 5}), {M: {"numberOfFailures": 3}}, False),
        (so({"failureThreshold": 2, "replicas": 5}), {}, False),
        (
            so(
                {"failureThreshold": 2, "replicas": 5},
                advanced={"scalingModifiers": {"formula": "q", "target": "x"}},
            ),
            FAILING_3,
            False,
        ),
        (
            so(
                {"failureThreshold": 2, "replicas": 5},
                advanced={"scalingModifiers": {"formula": "q", "target": "4"}},
            ),
            FAILING_3,
            True,
        ),
        (
            so(
                {"failureThreshold": 2, "replicas": 5},
                advanced={
                    "scalingModifiers": {"formula": "q", "target": "4", "metricType": "Value"}
                },
            ),
            FAILING_3,
            False,
        ),
    ],
    ids=[
        "fallback-over-threshold",
        "fallback-needs-more-than-threshold-failures",
        "no-fallback-spec",
        "fallback-needs-failing-status",
        "fallback-no-health-yet",
        "fallback-invalid-modifiers-target",
        "fallback-with-modifiers-integer-target",
        "fallback-modifiers-value-metric-type-disabled",
    ],
)
def test_fallback_active(obj: ScaledObject, health: dict[str, Any], expected: bool) -> None:
    assert fallback_active(obj, health, M) is expected


def test_fallback_disabled_for_value_metric_type() -> None:
    obj = so({"failureThreshold": 0, "replicas": 1})
    assert not fallback_enabled(obj, "Value")
    assert not fallback_active(obj, FAILING_3, M, metric_type="Value")


@pytest.mark.parametrize(
    ("behavior", "current", "expected"),
    [
        (None, 7, 3),
        ("static", 7, 3),
        ("currentReplicas", 7, 7),
        ("currentReplicasIfHigher", 7, 7),
        ("currentReplicasIfHigher", 1, 3),
        ("currentReplicasIfLower", 7, 3),
        ("currentReplicasIfLower", 1, 1),
    ],
    ids=[
        "fallback-static-by-default",
        "fallback-static",
        "fallback-current-replicas",
        "fallback-if-higher-keeps-current",
        "fallback-if-higher-takes-fallback",
        "fallback-if-lower-takes-fallback",
        "fallback-if-lower-keeps-current",
    ],
)
def test_fallback_replicas(behavior: str | None, current: int, expected: int) -> None:
    spec: dict[str, Any] = {"failureThreshold": 1, "replicas": 3}
    if behavior is not None:
        spec["behavior"] = behavior
    assert fallback_replicas(so(spec), current) == expected


@pytest.mark.parametrize(
    ("obj", "target", "expected"),
    [
        (so({"failureThreshold": 1, "replicas": 3}), 10.0, 30.0),
        (so({"failureThreshold": 1, "replicas": 3}), 2.9, 6.0),
        (so({"failureThreshold": 1, "replicas": 3}), 0.5, 0.0),
        (
            so(
                {"failureThreshold": 1, "replicas": 3},
                advanced={"scalingModifiers": {"formula": "q", "target": "7"}},
            ),
            10.0,
            21.0,
        ),
    ],
    ids=[
        "fallback-value-target-times-replicas",
        "fallback-value-truncates-target",
        "fallback-value-sub-unit-target-is-zero",
        "fallback-value-modifiers-target",
    ],
)
def test_fallback_value(obj: ScaledObject, target: float, expected: float) -> None:
    assert fallback_value(obj, trigger_spec(target), current_replicas=1) == expected


def test_fallback_condition_texts() -> None:
    obj = so({"failureThreshold": 2, "replicas": 5})
    assert fallback_condition(obj, FAILING_3) == (
        "True",
        "FallbackExists",
        "At least one trigger is falling back on this scaled object",
    )
    assert fallback_condition(obj, {}) == (
        "False",
        "NoFallbackFound",
        "No fallbacks are active on this scaled object",
    )


@given(
    st.sampled_from(
        ["static", "currentReplicas", "currentReplicasIfHigher", "currentReplicasIfLower"]
    ),
    st.integers(min_value=0, max_value=1000),
    st.integers(min_value=0, max_value=1000),
)
def test_fallback_replicas_is_one_of_fallback_or_current(
    behavior: str, replicas: int, current: int
) -> None:
    got = fallback_replicas(
        so({"failureThreshold": 0, "replicas": replicas, "behavior": behavior}), current
    )
    assert got in (replicas, current)
    assert min(replicas, current) <= got <= max(replicas, current)


@given(st.lists(st.booleans(), max_size=30), st.integers(min_value=0, max_value=5))
def test_fallback_active_iff_trailing_failures_exceed_threshold(
    reads: list[bool], threshold: int
) -> None:
    obj = so({"failureThreshold": threshold, "replicas": 2})
    health: dict[str, Any] = {}
    for ok in reads:
        health = update_health(health, M, ok)
    trailing = 0
    for ok in reversed(reads):
        if ok:
            break
        trailing += 1
    assert fallback_active(obj, health, M) is (trailing > threshold)
