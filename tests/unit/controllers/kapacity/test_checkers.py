"""Metrics stability checkers: each rule's comparison "<actual> <operator> <target>" (">"
when unset), the value the HPA reports per target type, checker names, the events when an
action comes into force, and when a gray change is running (so checkers are read)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.kapacity.checkers import (
    MetricRule,
    checker_name,
    holds,
    observed,
    rule_of,
)
from podscale.controllers.kapacity.gray import ReplicaSplit
from podscale.controllers.kapacity.portraits import PortraitOffer, PortraitValue
from podscale.controllers.kapacity.reading import KapacityError
from podscale.controllers.kapacity.reconcile import (
    CHECK_PERIOD,
    Existing,
    ProviderResult,
    decide,
    gray_in_force,
)
from podscale.controllers.kapacity.stability import CheckerReading
from podscale.controllers.kapacity.types import (
    Ihpa,
    StabilityChecker,
    StabilizationAction,
    parse_ihpa,
)
from podscale.hpa.types import CalculationTrace, MetricProposal


def external(target: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "External", "external": {"metric": {"name": "q"}, "target": target}, **extra}


CPU = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
}

RULE_CASES = [
    pytest.param(
        external({"type": "Value", "value": "100"}), ">", "Value", 100_000, id="default-gt"
    ),
    pytest.param(
        external({"type": "AverageValue", "averageValue": "500m"}, operator="<="),
        "<=",
        "AverageValue",
        500,
        id="average-value-milli",
    ),
    pytest.param(CPU, ">", "Utilization", 80, id="utilization-percent"),
    pytest.param(
        {**CPU, "name": "cpu-high", "operator": "=="}, "==", "Utilization", 80, id="named-eq"
    ),
]


@pytest.mark.parametrize(("metric", "operator", "kind", "target"), RULE_CASES)
def test_rule_of(metric: dict[str, Any], operator: str, kind: str, target: int) -> None:
    rule = rule_of(metric, "m")
    assert (rule.operator, rule.kind, rule.target) == (operator, kind, target)
    assert set(rule.spec) == set(metric) - {"name", "operator"}


BAD_RULES = [
    pytest.param(external({"type": "Value", "value": "1"}, operator="!="), "m.operator", id="op"),
    pytest.param({"type": "Nope"}, "m.type", id="unknown-source"),
    pytest.param({"type": "External", "external": {}}, "m.external.target", id="no-target"),
    pytest.param(external({"type": "Ratio"}), "m.external.target.type", id="unknown-target"),
    pytest.param(external({"type": "Value", "value": "ten"}), "m.external.target", id="bad-qty"),
]


@pytest.mark.parametrize(("metric", "where"), BAD_RULES)
def test_unreadable_rules_name_their_field(metric: dict[str, Any], where: str) -> None:
    with pytest.raises(KapacityError, match=f"^{where}"):
        rule_of(metric, "m")


def rule(operator: str, target: int = 100) -> MetricRule:
    return MetricRule({}, operator, "Value", target)  # type: ignore[arg-type]


HOLD_CASES = [
    pytest.param(">", 101, True, id="above-target-anomalous"),
    pytest.param(">", 100, False, id="at-target-not-above"),
    pytest.param(">=", 100, True, id="ge-at-target"),
    pytest.param("<", 99, True, id="below-target"),
    pytest.param("<=", 101, False, id="le-above"),
    pytest.param("==", 100, True, id="eq"),
    pytest.param("==", 99, False, id="eq-miss"),
]


@pytest.mark.parametrize(("operator", "actual", "anomalous"), HOLD_CASES)
def test_holds(operator: str, actual: int, anomalous: bool) -> None:
    assert holds(rule(operator), actual) is anomalous


@given(st.integers(-(10**9), 10**9), st.integers(-(10**9), 10**9))
def test_operators_partition(actual: int, target: int) -> None:
    lt, eq, gt = (holds(rule(o, target), actual) for o in ("<", "==", ">"))
    assert [lt, eq, gt].count(True) == 1
    assert holds(rule(">=", target), actual) == (gt or eq)
    assert holds(rule("<=", target), actual) == (lt or eq)


def proposal(utilization: int | None, raw: int) -> MetricProposal:
    trace = CalculationTrace("m", "Value", raw, 0, 1.0, (0.1, 0.1), True)
    return MetricProposal(1, utilization, raw, None, trace)


def test_observed_reads_utilization_or_the_raw_value() -> None:
    assert observed(rule_of(CPU, "m"), proposal(93, 450)) == 93
    value = rule_of(external({"type": "Value", "value": "1"}), "m")
    assert observed(value, proposal(None, 7_000)) == 7_000
    with pytest.raises(KapacityError):
        observed(rule_of(CPU, "m"), proposal(None, 450))


NAME_CASES = [
    pytest.param((), 2, "checker-2", id="index"),
    pytest.param(({**CPU, "name": "cpu-high"},), 0, "cpu-high", id="first-metric-name"),
    pytest.param((CPU, {**CPU, "name": "second"}), 1, "checker-1", id="only-first-counts"),
]


@pytest.mark.parametrize(("metrics", "index", "name"), NAME_CASES)
def test_checker_name(metrics: tuple[dict[str, Any], ...], index: int, name: str) -> None:
    checker = StabilityChecker("Metrics", StabilizationAction.PAUSE, 0, metrics)
    assert checker_name(index, checker) == name


# -- the decision around the readings -----------------------------------------------------

T0 = dt.datetime(2026, 5, 4, 12, tzinfo=dt.UTC)
CUTOFF_HALF = {
    "scaleDown": {
        "grayStrategy": {
            "grayState": "Cutoff",
            "changeIntervalSeconds": 60,
            "changePercent": 50,
            "observationSeconds": 30,
        }
    }
}
STATIC_3 = {"currentPortraitValue": {"provider": "Static", "replicas": 3}}


def ihpa(*, status: dict[str, Any], behavior: dict[str, Any], **spec: Any) -> Ihpa:
    body = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 10,
        "portraitProviders": [{"type": "Static", "priority": 0, "static": {"replicas": 1}}],
        "behavior": behavior,
        **spec,
    }
    meta = {"name": "web", "namespace": "default", "generation": 2}
    return parse_ihpa({"metadata": meta, "spec": body, "status": status})


def static(replicas: int) -> ProviderResult:
    return ProviderResult(PortraitOffer(0, PortraitValue("Static", replicas)))


def existing(online: int, cutoff: int = 0) -> Existing:
    spec = {"onlineReplicas": online, "cutoffReplicas": cutoff, "standbyReplicas": 0}
    return Existing(ReplicaSplit(online, cutoff), spec)


GRAY_50 = {
    **STATIC_3,
    "previousPortraitValue": {"provider": "Static", "replicas": 3},
    "currentPortraitValue": {"provider": "Static", "replicas": 1},
    "gray": {"grayPercent": 50, "lastUpdateTime": "2026-05-04T12:00:00Z"},
}
CHECKER = {"type": "Metrics", "stabilizationAction": "Rollback", "coolDownSeconds": 60}


def at(seconds: int) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


IN_FORCE_CASES = [
    pytest.param(GRAY_50, {}, at(10), True, id="mid-change"),
    pytest.param(
        {**GRAY_50, "gray": {**GRAY_50["gray"], "grayPercent": 100}},
        {},
        at(10),
        True,
        id="observing",
    ),
    pytest.param(
        {**GRAY_50, "gray": {**GRAY_50["gray"], "grayPercent": 100}},
        {},
        at(31),
        False,
        id="observation-over",
    ),
    pytest.param(STATIC_3, {}, at(10), False, id="no-gray"),
    pytest.param(GRAY_50, {"scaleMode": "Preview"}, at(10), False, id="preview"),
]


@pytest.mark.parametrize(("status", "spec", "now", "running"), IN_FORCE_CASES)
def test_gray_in_force(
    status: dict[str, Any], spec: dict[str, Any], now: dt.datetime, running: bool
) -> None:
    assert gray_in_force(ihpa(status=status, behavior=CUTOFF_HALF, **spec), now) is running


def test_rollback_event_once_when_it_comes_into_force() -> None:
    obj = ihpa(status=GRAY_50, behavior=CUTOFF_HALF, stabilityCheckers=[CHECKER])
    loud = CheckerReading("checker-0", "Rollback", 60, anomalous=True)
    first = decide(obj, [static(1)], existing(2, 1), (loud,), {}, at(10))
    assert [e[1] for e in first.events] == ["GrayRolledBack", "UpdateReplicaProfile"]
    assert first.events[0] == (
        "Warning",
        "GrayRolledBack",
        "gray change rolled back to 3 online replicas: "
        "stability checker(s) checker-0 detected anomalies",
    )
    again = decide(obj, [static(1)], existing(3), (loud,), first.last_anomaly, at(20))
    assert again.events == ()


def test_pause_event_and_checker_period_requeue() -> None:
    pause = {**CHECKER, "stabilizationAction": "Pause", "coolDownSeconds": 300}
    obj = ihpa(status=GRAY_50, behavior=CUTOFF_HALF, stabilityCheckers=[pause])
    loud = CheckerReading("checker-0", "Pause", 300, anomalous=True)
    found = decide(obj, [static(1)], existing(2, 1), (loud,), {}, at(10))
    assert [e[1] for e in found.events] == ["GrayPaused"]
    assert found.requeue_after == CHECK_PERIOD


def test_quiet_checkers_send_no_event_and_poll_during_the_change() -> None:
    obj = ihpa(status=GRAY_50, behavior=CUTOFF_HALF, stabilityCheckers=[CHECKER])
    quiet = CheckerReading("checker-0", "Rollback", 60, anomalous=False)
    found = decide(obj, [static(1)], existing(2, 1), (quiet,), {}, at(10))
    assert found.events == ()
    assert found.requeue_after == CHECK_PERIOD
    without = decide(
        ihpa(status=GRAY_50, behavior=CUTOFF_HALF), [static(1)], existing(2, 1), (), {}, at(10)
    )
    assert without.requeue_after == dt.timedelta(seconds=50)
