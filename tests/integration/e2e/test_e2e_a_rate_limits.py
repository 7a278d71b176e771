"""Upstream e2e "with scale limited by number of Pods rate", "with scale limited by
percentage" and "with both scale up and down controls configured"
(horizontal_pod_autoscaling_behavior.go), through the whole stack on virtual time
(e2e_plane). Pods request 500m, the HPA targets 25% (125m a pod); the load for ``n`` pods
is ``n - 0.5`` pods' worth, so the HPA's ceiling lands on ``n``.

Rules under test (upstream horizontal.go, calculateScaleUp/DownLimitWithScalingRules): a
policy caps the change over its period, counted from the replicas at the start of the
period; a Percent policy rounds up when scaling up (3 * 1.5 -> 5) and down when scaling down
(7 * 0.75 -> 5). So with a 60 s period each step comes at least a period after the one
before, and at the first sync after that (within one sync period more).

Change instants are observed every ``POLL``, so a gap is measured to within one ``POLL``.
"""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .e2e_plane import (
    APP,
    POLL,
    REACTION,
    SYNC_PERIOD,
    Consumer,
    cpu_utilization,
    e2e_scenario,
    hpa,
    run_e2e,
    workload,
)

JSON = dict[str, Any]
PER_POD_AT_TARGET = 125
MINUTE = timedelta(minutes=1)


def usage_for(replicas: int) -> int:
    return replicas * PER_POD_AT_TARGET - PER_POD_AT_TARGET // 2


def policy_rule(kind: str, value: int, period: timedelta) -> JSON:
    """One policy and no stabilization (upstream's HPAScalingRuleWithScalingPolicy)."""
    return {
        "stabilizationWindowSeconds": 0,
        "selectPolicy": "Max",
        "policies": [{"type": kind, "value": value, "periodSeconds": int(period.total_seconds())}],
    }


def gaps(consumer: Consumer) -> list[timedelta]:
    changes = [at for at, _ in consumer.replica_changes()]
    return [b - a for a, b in itertools.pairwise(changes)]


def assert_one_step_per_period(consumer: Consumer, period: timedelta) -> None:
    """The first step within the reaction time, each later one a period after the last."""
    first, *later = gaps(consumer)
    assert first <= REACTION
    for gap in later:
        assert period - POLL <= gap <= period + SYNC_PERIOD + POLL, consumer.replica_changes()


def run_limited(replicas: int, rule: JSON, load: int, final: int) -> Consumer:
    kind = "Deployment"
    scenario = e2e_scenario(
        workload(kind, replicas, {APP: "500m"}),
        hpa(kind, cpu_utilization(25), max_replicas=10, behavior=rule),
        initial_millicores=usage_for(replicas),
    )

    async def body(consumer: Consumer) -> None:
        consumer.consume_cpu(load)
        await consumer.wait_for_replicas(final, 10 * MINUTE)
        await consumer.ensure_replicas_in_range(final, final, MINUTE)

    _, consumer = run_e2e(scenario, body)
    return consumer


@pytest.mark.parametrize(
    ("direction", "replicas", "load_for", "sequence"),
    [
        ("scaleUp", 1, 3, [1, 2, 3]),
        ("scaleDown", 3, 1, [3, 2, 1]),
        ("scaleUp", 2, 5, [2, 3, 4, 5]),
    ],
    ids=["up-1-to-3", "down-3-to-1", "up-2-to-5"],
)
def test_pods_policy_allows_one_pod_per_period(
    direction: str, replicas: int, load_for: int, sequence: list[int]
) -> None:
    rule = {direction: policy_rule("Pods", 1, MINUTE)}
    consumer = run_limited(replicas, rule, usage_for(load_for), sequence[-1])
    assert consumer.replica_sequence() == sequence
    assert_one_step_per_period(consumer, MINUTE)


@pytest.mark.parametrize(
    ("direction", "percent", "replicas", "load_for", "sequence"),
    [
        ("scaleUp", 50, 2, 8, [2, 3, 5, 8]),
        ("scaleDown", 25, 7, 1, [7, 5, 3, 2, 1]),
    ],
    ids=["up-50pct-2-3-5-8", "down-25pct-7-5-3-2-1"],
)
def test_percent_policy_limits_each_period(
    direction: str, percent: int, replicas: int, load_for: int, sequence: list[int]
) -> None:
    rule = {direction: policy_rule("Percent", percent, MINUTE)}
    consumer = run_limited(replicas, rule, usage_for(load_for), sequence[-1])
    assert consumer.replica_sequence() == sequence
    assert_one_step_per_period(consumer, MINUTE)


def test_pods_policy_with_a_longer_period() -> None:
    """Two pods per 2 minutes: 1 -> 3 -> 5 -> 7, each step two minutes after the last."""
    rule = {"scaleUp": policy_rule("Pods", 2, 2 * MINUTE)}
    consumer = run_limited(1, rule, usage_for(7), 7)
    assert consumer.replica_sequence() == [1, 3, 5, 7]
    assert_one_step_per_period(consumer, 2 * MINUTE)


def added_within(changes: list[tuple[timedelta, int]], period: timedelta) -> list[int]:
    """For each change, the pods added by it and the changes in the period before it (the
    budget a Pods policy checks; a change a whole period back no longer counts). Instants
    are known to within ``POLL``, so a change that far from the edge is left out."""
    totals = []
    for i, (at, _) in enumerate(changes):
        window = [
            after - before
            for (_, before), (when, after) in itertools.pairwise(changes[: i + 1])
            if when > at - period + POLL
        ]
        totals.append(sum(window))
    return totals


@settings(max_examples=10, deadline=None, derandomize=True)
@given(
    pods=st.integers(min_value=1, max_value=3),
    period_seconds=st.sampled_from([30, 45, 60, 90]),
    target=st.integers(min_value=2, max_value=8),
)
def test_a_pods_policy_never_adds_more_than_its_value_per_period(
    pods: int, period_seconds: int, target: int
) -> None:
    """Whatever the policy and the load, no period ever sees more than ``value`` pods
    added, and the count reaches the load's (just under ``target`` pods' worth, clear of
    the tolerance) in as many periods as the policy needs."""
    period = timedelta(seconds=period_seconds)
    rule = {"scaleUp": policy_rule("Pods", pods, period)}
    consumer = run_limited(1, rule, target * PER_POD_AT_TARGET - 20, target)
    sequence = consumer.replica_sequence()
    assert sequence == sorted(sequence)
    assert (sequence[0], sequence[-1]) == (1, target)
    assert max(added_within(consumer.replica_changes(), period)) <= pods, consumer.replica_changes()
    periods_needed = -(-(target - 1) // pods) - 1
    assert consumer.changed_to(target) <= REACTION + periods_needed * (period + SYNC_PERIOD)


def test_both_stabilization_windows_keep_the_count_within_the_range() -> None:
    """3 minute windows both ways, 1 to 5 replicas: the count holds for a window after each
    load change, then follows it within the reaction time (upstream's waitBuffer aside)."""
    window = 3 * MINUTE
    kind = "Deployment"
    behavior = {
        "scaleUp": {"stabilizationWindowSeconds": int(window.total_seconds())},
        "scaleDown": {"stabilizationWindowSeconds": int(window.total_seconds())},
    }
    scenario = e2e_scenario(
        workload(kind, 1, {APP: "500m"}),
        hpa(kind, cpu_utilization(25), max_replicas=5, behavior=behavior),
        initial_millicores=usage_for(1),
    )

    async def body(consumer: Consumer) -> tuple[timedelta, timedelta]:
        rise = consumer.consume_cpu(usage_for(3))
        await consumer.ensure_replicas_in_range(1, 1, window)
        await consumer.wait_for_replicas(3, REACTION)
        drop = consumer.consume_cpu(usage_for(2))
        await consumer.ensure_replicas_in_range(3, 3, window)
        await consumer.wait_for_replicas(2, REACTION)
        return rise, drop

    (rise, drop), consumer = run_e2e(scenario, body)
    assert consumer.replica_sequence() == [1, 3, 2]
    assert window < consumer.changed_to(3) - rise <= window + REACTION
    assert window < consumer.changed_to(2) - drop <= window + REACTION


def test_pods_rate_up_and_downscale_window_keep_the_count_within_the_range() -> None:
    """Up: one pod per 2 minutes; down: a 3 minute window; 2 to 5 replicas. Under 4 pods'
    worth the count stays within [2, 3] for the first period and reaches 4 after it; when the
    load falls to 2 pods' worth it holds at 4 for the window, then comes down to 2."""
    period, window = 2 * MINUTE, 3 * MINUTE
    kind = "Deployment"
    behavior = {
        "scaleUp": policy_rule("Pods", 1, period),
        "scaleDown": {"stabilizationWindowSeconds": int(window.total_seconds())},
    }
    scenario = e2e_scenario(
        workload(kind, 2, {APP: "500m"}),
        hpa(kind, cpu_utilization(25), min_replicas=2, max_replicas=5, behavior=behavior),
        initial_millicores=usage_for(2),
    )

    async def body(consumer: Consumer) -> timedelta:
        consumer.consume_cpu(usage_for(4))
        await consumer.ensure_replicas_in_range(2, 3, period)
        await consumer.wait_for_replicas(4, period + REACTION)
        drop = consumer.consume_cpu(usage_for(2))
        await consumer.ensure_replicas_in_range(4, 4, window)
        await consumer.wait_for_replicas(2, 2 * REACTION)
        return drop

    drop, consumer = run_e2e(scenario, body)
    sequence = consumer.replica_sequence()
    assert sequence[:3] == [2, 3, 4]
    # Down from 4 without growing again; a recommendation taken while the metrics mix the
    # old and the new load may add a step of 3 on the way.
    assert sequence[2:] == sorted(sequence[2:], reverse=True)
    assert sequence[-1] == 2
    assert period - POLL <= consumer.changed_to(4) - consumer.changed_to(3)
    below_4 = next(at for at, replicas in consumer.replica_changes() if at > drop and replicas < 4)
    assert window < below_4 - drop <= window + REACTION
