"""decide(): the whole sync, checked against upstream's conditions, events and status."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.hpa import (
    Config,
    History,
    Recommendation,
    ScaleEvent,
    StaticMetricsSource,
    apply_rescale_failure,
    decide,
)
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC)
CPU_NAME = "cpu resource utilization (percentage of request)"
NO_CPU = "unable to get metrics for resource cpu: no metrics returned from resource metrics API"


def cpu_source(**usage: str | int) -> StaticMetricsSource:
    """CPU samples in millicores per pod: cpu_source(web_0=200) -> pod web-0 at 200m."""
    values = {name.replace("_", "-"): {"app": int(v)} for name, v in usage.items()}
    return StaticMetricsSource(timestamp=NOW, resources={"cpu": values})


def pods(count: int, **kwargs: Any) -> list[dict[str, Any]]:
    return [make_pod(f"web-{i}", now=NOW, **kwargs) for i in range(count)]


def conditions_of(status: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in status["conditions"]}


def old_history(replicas: int) -> History:
    """A history whose only recommendation is outside every window."""
    return History([Recommendation(replicas, NOW - timedelta(hours=1))])


def test_doubles_when_usage_is_twice_the_target() -> None:
    decision = decide(
        make_hpa(metrics=[cpu_metric(100)]),
        scale=make_scale(2),
        pods=pods(2),
        metrics=cpu_source(web_0=200, web_1=200),
        history=None,
        now=NOW,
    )
    assert (decision.desired_replicas, decision.rescale) == (4, True)
    assert decision.reason == f"{CPU_NAME} above target"
    assert conditions_of(decision.status) == {
        "AbleToScale": (
            "True",
            "SucceededRescale",
            "the HPA controller was able to update the target scale to 4",
        ),
        "ScalingActive": (
            "True",
            "ValidMetricFound",
            f"the HPA was able to successfully calculate a replica count from {CPU_NAME}",
        ),
        "ScalingLimited": (
            "False",
            "DesiredWithinRange",
            "the desired count is within the acceptable range",
        ),
    }
    assert [(e.type, e.reason, e.message) for e in decision.events] == [
        ("Normal", "SuccessfulRescale", f"New size: 4; reason: {CPU_NAME} above target")
    ]
    assert decision.status["currentReplicas"] == 2
    assert decision.status["desiredReplicas"] == 4
    assert decision.status["lastScaleTime"] == "2026-11-22T10:00:00Z"
    assert decision.status["currentMetrics"] == [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "current": {"averageUtilization": 200, "averageValue": "200m"},
            },
        }
    ]
    assert decision.error is None


def test_first_sync_seeds_history_so_scale_down_waits_for_the_window() -> None:
    hpa = make_hpa(metrics=[cpu_metric(100)])
    decision = decide(
        hpa,
        scale=make_scale(4),
        pods=pods(4),
        metrics=cpu_source(web_0=50, web_1=50, web_2=50, web_3=50),
        history=None,
        now=NOW,
    )
    assert (decision.desired_replicas, decision.rescale) == (4, False)
    assert conditions_of(decision.status)["AbleToScale"] == (
        "True",
        "ScaleDownStabilized",
        "recent recommendations were higher than current one, "
        "applying the highest recent recommendation",
    )
    assert decision.events == ()
    # The seed and the new recommendation are both remembered.
    assert [r.replicas for r in decision.history.recommendations] == [4, 2]


def test_halves_once_the_window_has_passed() -> None:
    decision = decide(
        make_hpa(metrics=[cpu_metric(100)]),
        scale=make_scale(4),
        pods=pods(4),
        metrics=cpu_source(web_0=50, web_1=50, web_2=50, web_3=50),
        history=old_history(4),
        now=NOW,
    )
    assert (decision.desired_replicas, decision.rescale) == (2, True)
    assert decision.reason == "All metrics below target"
    assert conditions_of(decision.status)["AbleToScale"][1] == "SucceededRescale"


@pytest.mark.parametrize(
    ("usage", "expected"),
    [(105, 4), (95, 4), (110, 4), (111, 5), (89, 4)],
    ids=[
        "5%-over",
        "5%-under",
        "at-upper-edge",
        "just-outside-up",
        "just-outside-down-rounds-back",
    ],
)
def test_tolerance_band(usage: int, expected: int) -> None:
    decision = decide(
        make_hpa(metrics=[cpu_metric(100)]),
        scale=make_scale(4),
        pods=pods(4),
        metrics=cpu_source(**{f"web_{i}": usage for i in range(4)}),
        history=None,
        now=NOW,
    )
    assert decision.desired_replicas == expected


def test_target_at_zero_replicas_is_maintenance_mode() -> None:
    hpa = make_hpa(status={"desiredReplicas": 3, "currentReplicas": 3})
    decision = decide(
        hpa, scale=make_scale(0), pods=[], metrics=cpu_source(), history=None, now=NOW
    )
    assert (decision.desired_replicas, decision.rescale) == (0, False)
    assert conditions_of(decision.status)["ScalingActive"] == (
        "False",
        "ScalingDisabled",
        "scaling is disabled since the replica count of the target is zero",
    )
    assert "currentReplicas" not in decision.status  # omitempty, as Go serializes it
    assert decision.status["desiredReplicas"] == 0
    assert decision.events == ()


@pytest.mark.parametrize(
    ("current", "expected", "reason"),
    [
        (12, 10, "Current number of replicas above Spec.MaxReplicas"),
        (1, 2, "Current number of replicas below Spec.MinReplicas"),
    ],
    ids=["above-max", "below-min"],
)
def test_current_outside_bounds_is_clamped_without_metrics(
    current: int, expected: int, reason: str
) -> None:
    decision = decide(
        make_hpa(min_replicas=2, max_replicas=10),
        scale=make_scale(current),
        pods=pods(current),
        metrics=StaticMetricsSource(timestamp=NOW, failures={"resource/cpu": "must not be asked"}),
        history=None,
        now=NOW,
    )
    assert (decision.desired_replicas, decision.rescale, decision.reason) == (
        expected,
        True,
        reason,
    )
    assert "currentMetrics" not in decision.status
    assert [e.message for e in decision.events] == [f"New size: {expected}; reason: {reason}"]


def test_metrics_api_down_keeps_replicas_and_reports_upstreams_texts() -> None:
    hpa = make_hpa(status={"currentReplicas": 3, "desiredReplicas": 3})
    decision = decide(
        hpa, scale=make_scale(3), pods=pods(3), metrics=cpu_source(), history=None, now=NOW
    )
    inner = f"failed to get cpu utilization: {NO_CPU}"
    first = f"failed to get cpu resource metric value: {inner}"
    assert decision.rescale is False
    assert conditions_of(decision.status)["ScalingActive"] == (
        "False",
        "FailedGetResourceMetric",
        f"the HPA was unable to compute the replica count: {inner}",
    )
    assert [(e.type, e.reason, e.message) for e in decision.events] == [
        ("Warning", "FailedGetResourceMetric", inner),
        (
            "Warning",
            "FailedComputeMetricsReplicas",
            f"invalid metrics (1 invalid out of 1), first error is: {first}",
        ),
    ]
    assert decision.error == (
        "failed to compute desired number of replicas based on listed metrics for "
        f"Deployment/default/web: invalid metrics (1 invalid out of 1), first error is: {first}"
    )
    assert decision.status["currentReplicas"] == 3
    assert decision.status["desiredReplicas"] == 3
    assert decision.status["currentMetrics"] == [{"type": ""}]


EXTERNAL = {
    "type": "External",
    "external": {
        "metric": {"name": "queue_depth"},
        "target": {"type": "AverageValue", "averageValue": "10"},
    },
}


@pytest.mark.parametrize(
    ("cpu_usage", "rescale", "desired"),
    [(200, True, 8), (50, False, 4)],
    ids=["valid-metric-scales-up", "invalid-metric-blocks-scale-down"],
)
def test_partial_metrics(cpu_usage: int, rescale: bool, desired: int) -> None:
    source = StaticMetricsSource(
        timestamp=NOW,
        resources={"cpu": {f"web-{i}": {"app": cpu_usage} for i in range(4)}},
        failures={"external/queue_depth": "adapter unreachable"},
    )
    decision = decide(
        make_hpa(metrics=[cpu_metric(100), EXTERNAL], max_replicas=20),
        scale=make_scale(4),
        pods=pods(4),
        metrics=source,
        history=old_history(4),
        now=NOW,
    )
    assert (decision.rescale, decision.desired_replicas) == (rescale, desired)
    assert decision.error is not None
    assert decision.error.startswith(
        "invalid metrics (1 invalid out of 2)"
    ) or decision.error.startswith("failed to compute desired number of replicas")
    active = conditions_of(decision.status)["ScalingActive"]
    assert active[1] == ("ValidMetricFound" if rescale else "FailedGetExternalMetric")


@pytest.mark.parametrize(
    ("selector", "controlling", "reason", "message"),
    [
        ("", (), "InvalidSelector", "the HPA target's scale is missing a selector"),
        (
            "app in (web",
            (),
            "InvalidSelector",
            "couldn't convert selector into a corresponding internal selector object: ",
        ),
        (
            "app=web",
            ("default/web", "default/other"),
            "AmbiguousSelector",
            "pods by selector app=web are controlled by multiple HPAs: [default/other default/web]",
        ),
    ],
    ids=["missing", "unparsable", "ambiguous"],
)
def test_selector_problems_stop_scaling(
    selector: str, controlling: tuple[str, ...], reason: str, message: str
) -> None:
    decision = decide(
        make_hpa(),
        scale=make_scale(3, selector=selector),
        pods=pods(3),
        metrics=cpu_source(web_0=500, web_1=500, web_2=500),
        history=None,
        now=NOW,
        controlling_hpas=controlling,
    )
    assert decision.rescale is False
    status, got_reason, got_message = conditions_of(decision.status)["ScalingActive"]
    assert (status, got_reason) == ("False", reason)
    assert got_message.startswith(message)
    assert decision.events[-1].reason == "FailedComputeMetricsReplicas"


def test_unknown_metric_type_is_invalid_metric_source_type() -> None:
    decision = decide(
        make_hpa(metrics=[{"type": "Bogus"}]),
        scale=make_scale(3),
        pods=pods(3),
        metrics=cpu_source(),
        history=None,
        now=NOW,
    )
    assert conditions_of(decision.status)["ScalingActive"] == (
        "False",
        "InvalidMetricSourceType",
        'the HPA was unable to compute the replica count: unknown metric source type "Bogus"',
    )


def test_behavior_default_scale_up_policy_limits_the_step() -> None:
    decision = decide(
        make_hpa(metrics=[cpu_metric(10)], max_replicas=50, behavior={}),
        scale=make_scale(2),
        pods=pods(2),
        metrics=cpu_source(web_0=100, web_1=100),
        history=None,
        now=NOW,
    )
    # Wants 20; the defaults allow max(2 + 4 pods, 2 * 200%) = 6 per 15 s.
    assert decision.desired_replicas == 6
    assert conditions_of(decision.status)["ScalingLimited"] == (
        "True",
        "ScaleUpLimit",
        "the desired replica count is increasing faster than the maximum scale rate",
    )
    assert decision.trace.limit is not None
    assert [(p.type, p.allows) for p in decision.trace.limit.policies] == [
        ("Pods", 6),
        ("Percent", 4),
    ]


def test_legacy_scale_up_limit_and_max_clamp() -> None:
    decision = decide(
        make_hpa(metrics=[cpu_metric(10)], max_replicas=3),
        scale=make_scale(2),
        pods=pods(2),
        metrics=cpu_source(web_0=100, web_1=100),
        history=None,
        now=NOW,
    )
    assert decision.desired_replicas == 3
    assert conditions_of(decision.status)["ScalingLimited"][:2] == ("True", "TooManyReplicas")


def test_behavior_scale_down_window_holds_the_highest_recommendation() -> None:
    history = History([Recommendation(6, NOW - timedelta(seconds=60))])
    decision = decide(
        make_hpa(
            metrics=[cpu_metric(100)], behavior={"scaleDown": {"stabilizationWindowSeconds": 120}}
        ),
        scale=make_scale(4),
        pods=pods(4),
        metrics=cpu_source(web_0=50, web_1=50, web_2=50, web_3=50),
        history=history,
        now=NOW,
    )
    # Wants 2, but 6 was recommended 60 s ago inside the 120 s window: stay at 4 (current).
    assert (decision.desired_replicas, decision.rescale) == (4, False)
    assert conditions_of(decision.status)["AbleToScale"][1] == "ScaleDownStabilized"
    assert history.recommendations == [
        Recommendation(6, NOW - timedelta(seconds=60))
    ]  # not mutated


def test_scale_events_feed_the_next_policy_window() -> None:
    behavior = {"scaleUp": {"policies": [{"type": "Pods", "value": 2, "periodSeconds": 60}]}}
    hpa = make_hpa(metrics=[cpu_metric(10)], max_replicas=50, behavior=behavior)
    first = decide(
        hpa,
        scale=make_scale(2),
        pods=pods(2),
        metrics=cpu_source(web_0=100, web_1=100),
        history=None,
        now=NOW,
    )
    assert first.desired_replicas == 4
    assert first.history.scale_up_events == [ScaleEvent(2, NOW)]
    later = NOW + timedelta(seconds=30)
    second = decide(
        hpa,
        scale=make_scale(4),
        pods=pods(4),
        metrics=cpu_source(web_0=100, web_1=100, web_2=100, web_3=100),
        history=first.history,
        now=later,
    )
    # Two pods were already added in the last 60 s: nothing more allowed yet.
    assert (second.desired_replicas, second.rescale) == (4, False)
    assert conditions_of(second.status)["ScalingLimited"][1] == "ScaleUpLimit"


def test_rescale_failure_reports_upstreams_texts_and_forgets_the_event() -> None:
    hpa = make_hpa(
        metrics=[cpu_metric(100)], behavior={}, status={"desiredReplicas": 2, "currentReplicas": 2}
    )
    decision = decide(
        hpa,
        scale=make_scale(2),
        pods=pods(2),
        metrics=cpu_source(web_0=200, web_1=200),
        history=None,
        now=NOW,
    )
    failed = apply_rescale_failure(decision, hpa, error="the object has been modified", now=NOW)
    assert conditions_of(failed.status)["AbleToScale"] == (
        "False",
        "FailedUpdateScale",
        "the HPA controller was unable to update the target scale: the object has been modified",
    )
    assert [(e.type, e.reason) for e in failed.events] == [("Warning", "FailedRescale")]
    assert failed.events[0].message == (
        f"New size: 4; reason: {CPU_NAME} above target; error: the object has been modified"
    )
    assert failed.status["desiredReplicas"] == 2
    assert "lastScaleTime" not in failed.status
    assert failed.history.scale_up_events == []
    assert failed.error == "failed to rescale Deployment/default/web: the object has been modified"


def test_conditions_keep_order_and_transition_times() -> None:
    earlier = "2026-11-22T09:00:00Z"
    status = {
        "conditions": [
            {
                "type": "ScalingActive",
                "status": "True",
                "lastTransitionTime": earlier,
                "reason": "ValidMetricFound",
                "message": "x",
            },
            {
                "type": "AbleToScale",
                "status": "True",
                "lastTransitionTime": earlier,
                "reason": "ReadyForNewScale",
                "message": "y",
            },
        ]
    }
    decision = decide(
        make_hpa(metrics=[cpu_metric(100)], status=status),
        scale=make_scale(2),
        pods=pods(2),
        metrics=cpu_source(web_0=100, web_1=100),
        history=None,
        now=NOW,
    )
    types = [c["type"] for c in decision.status["conditions"]]
    assert types == ["ScalingActive", "AbleToScale", "ScalingLimited"]
    times = {c["type"]: c["lastTransitionTime"] for c in decision.status["conditions"]}
    assert times == {
        "ScalingActive": earlier,
        "AbleToScale": earlier,
        "ScalingLimited": "2026-11-22T10:00:00Z",
    }


def test_decide_does_not_touch_its_inputs() -> None:
    hpa = make_hpa(behavior={})
    snapshot = repr(hpa)
    history = old_history(3)
    decide(
        hpa,
        scale=make_scale(3),
        pods=pods(3),
        metrics=cpu_source(web_0=300, web_1=300, web_2=300),
        history=history,
        now=NOW,
        config=Config(),
    )
    assert repr(hpa) == snapshot
    assert history.recommendations == [Recommendation(3, NOW - timedelta(hours=1))]
