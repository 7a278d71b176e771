"""KEDA's ScaledObject scale-loop step (getScaledObjectState + RequestScale): activation,
cooldown and deactivation, idle and minimum replicas, pause annotations, trigger errors and
fallback, scaling modifiers, and the status and events each step writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.controllers.keda.activity import TriggerOutcome
from podscale.controllers.keda.decisions import (
    PollDecision,
    PollInputs,
    format_time,
    poll,
)
from podscale.controllers.keda.reading import parse_scaled_object
from podscale.controllers.keda.status import initial_conditions

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
A = "autoscaling.keda.sh/"
KIND = "apps/v1.Deployment"


def ago(seconds: int) -> str:
    return format_time(NOW - timedelta(seconds=seconds))


def on(name: str = "q", metric: str = "s0-prometheus", value: float = 5.0) -> TriggerOutcome:
    return TriggerOutcome(name, metric, value, True, None)


def off(name: str = "q", metric: str = "s0-prometheus", value: float = 0.0) -> TriggerOutcome:
    return TriggerOutcome(name, metric, value, False, None)


def failed(name: str = "q", metric: str = "s0-prometheus", text: str = "boom") -> TriggerOutcome:
    return TriggerOutcome(name, metric, None, False, text)


@dataclass(frozen=True)
class Case:
    current: int
    outcomes: tuple[TriggerOutcome, ...]
    spec: dict[str, Any] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)
    created_ago: int = 3600
    triggers: tuple[str, ...] = ("prometheus",)


def run(case: Case) -> PollDecision:
    names = [o.name for o in case.outcomes] or ["q"]
    triggers = [
        {"type": t, "name": names[i] if i < len(names) else f"t{i}", "metadata": {}}
        for i, t in enumerate(case.triggers)
    ]
    obj = {
        "metadata": {"name": "so", "namespace": "ns", "annotations": case.annotations},
        "spec": {"scaleTargetRef": {"name": "web"}, "triggers": triggers, **case.spec},
    }
    status = initial_conditions(
        {"scaleTargetKind": KIND, "externalMetricNames": ["s0-prometheus"], **case.status}
    )
    return poll(
        PollInputs(
            so=parse_scaled_object(obj),
            current_replicas=case.current,
            outcomes=case.outcomes,
            status=status,
            created_at=NOW - timedelta(seconds=case.created_ago),
            now=NOW,
        )
    )


def conditions(**states: str) -> list[dict[str, str]]:
    """All four condition types, Unknown unless given."""
    kinds = ("Ready", "Active", "Fallback", "Paused")
    return [{"type": k, "status": states.get(k, "Unknown")} for k in kinds]


def cond(decision: PollDecision, kind: str) -> tuple[Any, ...]:
    for c in decision.status["conditions"]:
        if c["type"] == kind:
            return c["status"], c.get("reason"), c.get("message")
    raise AssertionError(kind)


def texts(decision: PollDecision) -> list[tuple[str, str, str]]:
    return [(e.type, e.reason, e.message) for e in decision.events]


SCALE_CASES = {
    "activation-from-zero": (Case(0, (on(),)), 1),
    "activation-from-zero-to-min": (Case(0, (on(),), spec={"minReplicaCount": 3}), 3),
    "activation-forced-by-annotation": (
        Case(0, (off(),), annotations={A + "force-activation": "true"}),
        1,
    ),
    "active-above-zero-leaves-scaling-to-hpa": (Case(4, (on(),)), None),
    "idle-to-min-on-activation": (
        Case(0, (on(),), spec={"idleReplicaCount": 0, "minReplicaCount": 2}),
        2,
    ),
    "idle-above-zero-to-min-on-activation": (
        Case(1, (on(),), spec={"idleReplicaCount": 1, "minReplicaCount": 3}),
        3,
    ),
    "cooldown-not-elapsed-keeps-replicas": (
        Case(2, (off(),), status={"lastActiveTime": ago(100)}),
        None,
    ),
    "cooldown-exactly-elapsed-keeps-replicas": (
        Case(2, (off(),), status={"lastActiveTime": ago(300)}),
        None,
    ),
    "cooldown-elapsed-deactivates-to-zero": (
        Case(2, (off(),), status={"lastActiveTime": ago(301)}),
        0,
    ),
    "custom-cooldown-period": (
        Case(2, (off(),), spec={"cooldownPeriod": 10}, status={"lastActiveTime": ago(11)}),
        0,
    ),
    "no-last-active-time-deactivates-after-creation": (Case(2, (off(),)), 0),
    "initial-cooldown-not-elapsed-keeps-replicas": (
        Case(2, (off(),), spec={"initialCooldownPeriod": 120}, created_ago=60),
        None,
    ),
    "initial-cooldown-elapsed-deactivates": (
        Case(2, (off(),), spec={"initialCooldownPeriod": 120}, created_ago=121),
        0,
    ),
    "deactivation-to-idle": (
        Case(
            3,
            (off(),),
            spec={"idleReplicaCount": 1, "minReplicaCount": 3},
            status={"lastActiveTime": ago(400)},
        ),
        1,
    ),
    "inactive-at-idle-no-change": (
        Case(
            1,
            (off(),),
            spec={"idleReplicaCount": 1, "minReplicaCount": 3},
            status={"lastActiveTime": ago(400)},
        ),
        None,
    ),
    "inactive-below-min-scales-to-min": (Case(1, (off(),), spec={"minReplicaCount": 2}), 2),
    "inactive-at-min-no-change": (Case(2, (off(),), spec={"minReplicaCount": 2}), None),
    "inactive-at-zero-no-change": (Case(0, (off(),)), None),
    "paused-scale-in-blocks-deactivation": (
        Case(2, (off(),), annotations={A + "paused-scale-in": "true"}),
        None,
    ),
    "paused-scale-out-blocks-activation": (
        Case(0, (on(),), annotations={A + "paused-scale-out": "true"}),
        None,
    ),
    "paused-stops-the-loop": (Case(0, (on(),), annotations={A + "paused": "true"}), None),
    "paused-false-runs-the-loop": (Case(0, (on(),), annotations={A + "paused": "false"}), 1),
    "paused-replicas-scales-to-paused-count": (
        Case(5, (on(),), annotations={A + "paused-replicas": "2"}),
        2,
    ),
    "paused-replicas-overrides-activation": (
        Case(0, (on(),), annotations={A + "paused-replicas": "0"}),
        None,
    ),
    "paused-replicas-recorded-stops-the-loop": (
        Case(
            2, (on(),), annotations={A + "paused-replicas": "2"}, status={"pausedReplicaCount": 2}
        ),
        None,
    ),
    "paused-replicas-changed-scales-again": (
        Case(
            2, (on(),), annotations={A + "paused-replicas": "4"}, status={"pausedReplicaCount": 2}
        ),
        4,
    ),
    "paused-replicas-negative-never-written": (
        Case(2, (on(),), annotations={A + "paused-replicas": "-1"}),
        None,
    ),
    "trigger-error-without-fallback-keeps-replicas": (
        Case(2, (failed(),), status={"lastActiveTime": ago(900)}),
        None,
    ),
    "trigger-error-with-fallback-keeps-replicas": (
        Case(
            2,
            (failed(),),
            spec={"fallback": {"failureThreshold": 1, "replicas": 4}},
            status={"lastActiveTime": ago(900)},
        ),
        None,
    ),
    "trigger-error-with-zero-fallback-replicas-deactivates": (
        Case(
            2,
            (failed(),),
            spec={"fallback": {"failureThreshold": 1, "replicas": 0}},
            status={"lastActiveTime": ago(900)},
        ),
        0,
    ),
    "partial-trigger-error-still-activates": (
        Case(0, (on(), failed("r", "s1-prometheus")), triggers=("prometheus", "prometheus")),
        1,
    ),
    "cpu-only-triggers-always-active": (
        Case(0, (off("", "cpu"),), spec={"minReplicaCount": 1}, triggers=("cpu",)),
        1,
    ),
    "cpu-only-trigger-error-is-not-forced-active": (
        Case(0, (failed("", "cpu"),), spec={"minReplicaCount": 1}, triggers=("cpu",)),
        None,
    ),
}


@pytest.mark.parametrize(("case", "expected"), list(SCALE_CASES.values()), ids=list(SCALE_CASES))
def test_scale_to(case: Case, expected: int | None) -> None:
    assert run(case).scale_to == expected


def test_activation_event_and_status() -> None:
    decision = run(Case(0, (on(),)))
    assert texts(decision) == [
        (
            "Normal",
            "KEDAScaleTargetActivated",
            "Scaled apps/v1.Deployment ns/web from 0 to 1, triggered by s0-prometheus",
        )
    ]
    assert decision.status["lastActiveTime"] == "2026-01-01T12:00:00Z"
    assert cond(decision, "Active") == (
        "True",
        "ScalerActive",
        "Scaling is performed because triggers are active",
    )
    assert decision.status["triggersActivity"] == {"s0-prometheus": {"isActive": True}}


def test_activation_names_every_active_trigger() -> None:
    outcomes = (on("a", "s0-x"), off("b", "s1-y"), on("c", "s2-z"))
    decision = run(Case(0, outcomes, triggers=("prometheus",) * 3))
    assert decision.events[0].message.endswith("triggered by s0-x;s2-z")


def test_forced_activation_event_and_condition() -> None:
    decision = run(Case(0, (off(),), annotations={A + "force-activation": "true"}))
    assert texts(decision) == [
        (
            "Normal",
            "KEDAScaleTargetActivated",
            "Scaled apps/v1.Deployment ns/web from 0 to 1, caused by forced activation annotation",
        )
    ]
    assert cond(decision, "Active") == (
        "True",
        "ScalerActive",
        "Scaling is performed because activation is being forced by annotation",
    )


def test_active_above_zero_refreshes_last_active_time() -> None:
    decision = run(Case(3, (on(),), status={"lastActiveTime": ago(50)}))
    assert decision.status["lastActiveTime"] == "2026-01-01T12:00:00Z"
    assert decision.events == ()


def test_deactivation_event_and_condition() -> None:
    decision = run(Case(2, (off(),), status={"lastActiveTime": ago(301)}))
    assert texts(decision) == [
        (
            "Normal",
            "KEDAScaleTargetDeactivated",
            "Deactivated apps/v1.Deployment ns/web from 2 to 0",
        )
    ]
    assert cond(decision, "Active") == (
        "False",
        "ScalerNotActive",
        "Scaling is not performed because triggers are not active",
    )
    assert decision.status["lastActiveTime"] == ago(301)
    assert decision.status["triggersActivity"] == {"s0-prometheus": {"isActive": False}}


def test_cooldown_condition() -> None:
    decision = run(Case(2, (off(),), status={"lastActiveTime": ago(10)}))
    assert cond(decision, "Active") == (
        "False",
        "ScalerCooldown",
        "Scaler cooling down because triggers are not active",
    )
    assert decision.events == ()


def test_scaler_error_event_and_ready_false() -> None:
    decision = run(Case(2, (failed(text="prometheus query api returned error"),)))
    assert texts(decision) == [
        ("Warning", "KEDAScalerFailed", "prometheus query api returned error")
    ]
    assert cond(decision, "Ready") == (
        "False",
        "TriggerError",
        "Triggers defined in ScaledObject are not working correctly",
    )
    assert "health" not in decision.status


def test_partial_error_ready_unknown() -> None:
    outcomes = (on(), failed("r", "s1-prometheus"))
    decision = run(
        Case(
            2,
            outcomes,
            triggers=("prometheus", "prometheus"),
            status={"conditions": conditions(Ready="True")},
        )
    )
    assert cond(decision, "Ready") == (
        "Unknown",
        "PartialTriggerError",
        "Some triggers defined in ScaledObject are not working correctly",
    )
    assert [e.reason for e in decision.events] == ["KEDAScalerFailed"]


def test_ready_restored_when_triggers_recover() -> None:
    status = {"conditions": conditions(Ready="False")}
    decision = run(Case(2, (on(),), status=status))
    assert cond(decision, "Ready") == (
        "True",
        "ScaledObjectReady",
        "ScaledObject is defined correctly and is ready for scaling",
    )


def test_fallback_condition_follows_the_metrics_server_s_health() -> None:
    # KEDA's loop counts no failure (only the metrics server's reads do): the health comes
    # in with the status and the Fallback condition follows it.
    spec = {"fallback": {"failureThreshold": 2, "replicas": 4}}
    health = {"s0-prometheus": {"numberOfFailures": 3, "status": "Failing"}}
    decision = run(Case(2, (failed(),), spec=spec, status={"health": health}))
    assert decision.status["health"] == health
    assert cond(decision, "Fallback") == (
        "True",
        "FallbackExists",
        "At least one trigger is falling back on this scaled object",
    )
    assert cond(decision, "Ready")[0] == "Unknown"  # fallback set: no TriggerError
    happy = {"s0-prometheus": {"numberOfFailures": 0, "status": "Happy"}}
    recovered = run(Case(2, (on(),), spec=spec, status={**decision.status, "health": happy}))
    assert recovered.status["health"] == happy
    assert cond(recovered, "Fallback") == (
        "False",
        "NoFallbackFound",
        "No fallbacks are active on this scaled object",
    )


def test_paused_replicas_records_count_and_pauses() -> None:
    decision = run(Case(5, (on(),), annotations={A + "paused-replicas": "2"}))
    assert decision.status["pausedReplicaCount"] == 2
    assert cond(decision, "Paused") == ("True", "ScaledObjectPaused", "ScaledObject is paused")
    assert decision.events == ()


def test_paused_replicas_bad_value_marks_ready_false() -> None:
    decision = run(Case(5, (on(),), annotations={A + "paused-replicas": "x"}))
    assert decision.scale_to is None
    assert cond(decision, "Ready") == (
        "False",
        "ScaledObjectReady",
        "ScaledObject is defined correctly and is ready for scaling",
    )


def test_paused_stops_loop_without_events_or_status_changes() -> None:
    decision = run(Case(0, (failed(),), annotations={A + "paused": "true"}))
    assert decision.events == ()
    assert cond(decision, "Paused") == ("True", "ScaledObjectPaused", "ScaledObject is paused")
    assert cond(decision, "Ready")[0] == "Unknown"


MODS = {
    "advanced": {"scalingModifiers": {"formula": "a + b", "target": "2", "activationTarget": "5"}}
}


@pytest.mark.parametrize(
    ("values", "expected"),
    [((3.0, 3.0), 1), ((2.0, 3.0), None), ((2.0, 2.0), None)],
    ids=[
        "modifiers-composite-above-activation",
        "modifiers-composite-at-activation",
        "modifiers-below-activation",
    ],
)
def test_scaling_modifiers_activation(values: tuple[float, float], expected: int | None) -> None:
    # Each trigger alone says active; only the composite value counts.
    outcomes = (on("a", "s0-x", values[0]), on("b", "s1-y", values[1]))
    decision = run(Case(0, outcomes, spec=MODS, triggers=("prometheus", "prometheus")))
    assert decision.scale_to == expected
    if expected:
        assert decision.events[0].message.endswith("triggered by ModifiersTrigger")


def test_scaling_modifiers_error_is_metric_source_failed_and_inactive() -> None:
    outcomes = (on("a", "s0-x", 100.0), failed("b", "s1-y", "down"))
    decision = run(Case(0, outcomes, spec=MODS, triggers=("prometheus", "prometheus")))
    assert decision.scale_to is None
    assert texts(decision) == [("Warning", "KEDAMetricSourceFailed", "down")]


def test_status_keeps_fields_it_does_not_own() -> None:
    decision = run(Case(0, (on(),), status={"hpaName": "keda-hpa-so", "originalReplicaCount": 3}))
    assert decision.status["hpaName"] == "keda-hpa-so"
    assert decision.status["originalReplicaCount"] == 3
    assert decision.status["scaleTargetKind"] == KIND


ANNOTATION_SETS = st.dictionaries(
    st.sampled_from(
        [
            A + "paused",
            A + "paused-replicas",
            A + "paused-scale-in",
            A + "paused-scale-out",
            A + "force-activation",
        ]
    ),
    st.sampled_from(["true", "false", "0", "2", "7", "x"]),
    max_size=3,
)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    low = draw(st.integers(0, 5))
    high = draw(st.integers(max(low, 1), 10))
    spec: dict[str, Any] = {"minReplicaCount": low, "maxReplicaCount": high}
    if low > 0 and draw(st.booleans()):
        spec["idleReplicaCount"] = draw(st.integers(0, low - 1))
    if draw(st.booleans()):
        spec["fallback"] = {
            "failureThreshold": draw(st.integers(0, 3)),
            "replicas": draw(st.integers(0, 5)),
        }
    spec["cooldownPeriod"] = draw(st.integers(0, 600))
    outcome = st.sampled_from([on(), off(), failed()])
    status: dict[str, Any] = {}
    if draw(st.booleans()):
        status["lastActiveTime"] = ago(draw(st.integers(0, 1200)))
    if draw(st.booleans()):
        status["pausedReplicaCount"] = draw(st.integers(0, 7))
    return Case(
        current=draw(st.integers(0, high)),
        outcomes=(draw(outcome),),
        spec=spec,
        annotations=draw(ANNOTATION_SETS),
        status=status,
        created_ago=draw(st.integers(0, 1200)),
    )


@given(cases())
def test_scale_to_stays_within_bounds(case: Case) -> None:
    decision = run(case)
    if decision.scale_to is None:
        return
    paused = case.annotations.get(A + "paused-replicas", "")
    ceiling = max(case.spec["maxReplicaCount"], int(paused) if paused.isdigit() else 0)
    assert 0 <= decision.scale_to <= ceiling
    assert decision.scale_to != case.current


@given(cases())
def test_paused_without_paused_replicas_never_scales(case: Case) -> None:
    annotations = {k: v for k, v in case.annotations.items() if k != A + "paused-replicas"}
    annotations[A + "paused"] = "true"
    decision = run(
        Case(case.current, case.outcomes, case.spec, annotations, case.status, case.created_ago)
    )
    assert decision.scale_to is None
    assert decision.events == ()


@given(cases())
def test_one_way_pauses_hold_their_direction(case: Case) -> None:
    decision = run(case)
    if decision.scale_to is None or A + "paused-replicas" in case.annotations:
        return
    if case.annotations.get(A + "paused-scale-in") == "true":
        assert decision.scale_to > case.current
    if case.annotations.get(A + "paused-scale-out") == "true":
        assert decision.scale_to < case.current or case.current < case.spec["minReplicaCount"]


@given(cases())
def test_poll_is_idempotent_on_its_own_status_when_nothing_scales(case: Case) -> None:
    first = run(case)
    if first.scale_to is not None:
        return
    again = poll(
        PollInputs(
            so=parse_scaled_object(
                {
                    "metadata": {"name": "so", "namespace": "ns", "annotations": case.annotations},
                    "spec": {
                        "scaleTargetRef": {"name": "web"},
                        "triggers": [{"type": "prometheus", "name": "q", "metadata": {}}],
                        **case.spec,
                    },
                }
            ),
            current_replicas=case.current,
            outcomes=case.outcomes,
            status=first.status,
            created_at=NOW - timedelta(seconds=case.created_ago),
            now=NOW,
        )
    )
    assert again.scale_to is None
    # Health counts failures and the Fallback condition follows it; everything else is stable.
    assert _without_fallback(again.status) == _without_fallback(first.status)


def _without_fallback(status: Any) -> dict[str, Any]:
    out = {k: v for k, v in status.items() if k != "health"}
    out["conditions"] = [c for c in status["conditions"] if c["type"] != "Fallback"]
    return out
