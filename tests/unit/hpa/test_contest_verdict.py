"""The verdict on a replicas fight (``podscale.hpa.contest_verdict``): podscale's
``ReplicasContested`` condition, its Warning event and the trace's ``contest``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.hpa import Decision, History, Recommendation, StaticMetricsSource, decide
from podscale.hpa.contest import ContestState, ReplicasWrite
from podscale.hpa.contest_verdict import (
    REASON_FIGHT_LOOP,
    REASON_OVERWRITTEN,
    REASON_UNCONTESTED,
    REPLICAS_CONTESTED,
    TRANSFER_DOCS,
    apply_contest,
    assess,
    disagrees,
)
from podscale.hpa.trace import trace_to_dict
from podscale.hpa.trace_read import trace_from_dict
from podscale.hpa.trace_render import render_trace
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
TARGET = "Deployment/web"


def at(minutes_ago: float) -> str:
    return (NOW - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


def write(
    manager: str, minutes_ago: float, *, sub: str = "", contested: bool = True
) -> ReplicasWrite:
    op = "Update" if manager else ""
    return ReplicasWrite(manager, op, sub, at(minutes_ago), 1, 5, contested)


@pytest.mark.parametrize(
    ("writes", "reason", "manager", "count", "words"),
    [
        ((), None, "", 0, ()),
        (
            (write("argocd-controller", 1),),
            REASON_OVERWRITTEN,
            "argocd-controller",
            1,
            ('manager "argocd-controller" (Update)', "set to 1", "replacing 5", TRANSFER_DOCS),
        ),
        (
            (write("argocd-controller", 2), write("argocd-controller", 1)),
            REASON_FIGHT_LOOP,
            "argocd-controller",
            2,
            ("keeps resetting", "2 writes in the last 30m", "drop replicas from the manifest"),
        ),
        (
            (write("flux", 3), write("argocd-controller", 1)),
            REASON_OVERWRITTEN,
            "argocd-controller",
            1,
            ('"argocd-controller"',),
        ),
        (
            (write("argocd-controller", 45), write("argocd-controller", 1)),
            REASON_OVERWRITTEN,
            "argocd-controller",
            1,
            (),
        ),
        ((write("argocd-controller", 31),), None, "", 0, ()),
        ((write("cronhpa", 1, sub="scale", contested=False),), None, "", 0, ()),
        (
            (write("kubectl-scale", 1, sub="scale"),),
            REASON_OVERWRITTEN,
            "kubectl-scale",
            1,
            ("(Update through /scale)", "minReplicas/maxReplicas instead of writing /scale"),
        ),
        (
            (write("", 2), write("", 1)),
            REASON_FIGHT_LOOP,
            "",
            2,
            ("an unknown writer (no managedFields entry of the target names one)",),
        ),
    ],
    ids=[
        "nobody-wrote",
        "one-write-overwritten",
        "same-manager-twice-in-window-is-a-loop",
        "two-managers-no-loop-last-named",
        "older-write-outside-window-not-counted",
        "only-write-outside-window-no-verdict",
        "accepted-write-is-no-fight",
        "scale-subresource-writer-gets-the-bounds-fix",
        "unknown-writer-loop",
    ],
)
def test_assess(
    writes: tuple[ReplicasWrite, ...],
    reason: str | None,
    manager: str,
    count: int,
    words: tuple[str, ...],
) -> None:
    verdict = assess(ContestState(expected=1, writes=writes), target=TARGET, now=NOW)
    if reason is None:
        assert verdict is None
        return
    assert verdict is not None
    assert (verdict.reason, verdict.manager, verdict.writes_in_window) == (reason, manager, count)
    assert TARGET in verdict.message
    for word in words:
        assert word in verdict.message


def cpu(**usage: int) -> StaticMetricsSource:
    values = {name.replace("_", "-"): {"app": v} for name, v in usage.items()}
    return StaticMetricsSource(timestamp=NOW, resources={"cpu": values})


def decision_for(
    replicas: int,
    usage: int,
    *,
    min_replicas: int = 1,
    status: dict[str, Any] | None = None,
    history: History | None = None,
) -> Decision:
    pods = [make_pod(f"web-{i}", now=NOW) for i in range(replicas)]
    return decide(
        make_hpa(metrics=[cpu_metric(100)], min_replicas=min_replicas, status=status),
        scale=make_scale(replicas),
        pods=pods,
        metrics=cpu(**{f"web_{i}": usage for i in range(replicas)}),
        history=history,
        now=NOW,
    )


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        (decision_for(1, 500), True),
        (decision_for(5, 100), False),
        (decision_for(10, 50, history=History([Recommendation(10, NOW)])), True),
        (decision_for(8, 10, min_replicas=8), False),
    ],
    ids=[
        "rescales-back-up",
        "agrees-with-the-value",
        "held-only-by-the-downscale-window",
        "bounds-require-the-value-cronhpa-raised-min",
    ],
)
def test_disagrees(decision: Decision, expected: bool) -> None:
    assert disagrees(decision) is expected


def test_apply_contest_sets_condition_event_and_trace() -> None:
    decision = decision_for(1, 500)
    observed = write("argocd-controller", 0)
    state = ContestState(expected=1, writes=(observed,))
    contested = apply_contest(decision, state, target=TARGET, now=NOW, observed=observed)
    conditions = {c["type"]: c for c in contested.status["conditions"]}
    cond = conditions[REPLICAS_CONTESTED]
    assert (cond["status"], cond["reason"]) == ("True", REASON_OVERWRITTEN)
    assert '"argocd-controller"' in cond["message"]
    # Upstream's conditions are untouched, in their order, then podscale's own.
    assert [c["type"] for c in contested.status["conditions"]][:-1] == [
        c["type"] for c in decision.status["conditions"]
    ]
    assert contested.events[0].type == "Warning"
    assert contested.events[0].reason == REASON_OVERWRITTEN
    assert contested.events[1:] == decision.events
    assert contested.trace.contest is not None
    assert contested.trace.contest.observed
    # The same state a sync later: the condition stays, no second event.
    later = apply_contest(decision, state, target=TARGET, now=NOW + timedelta(seconds=15))
    assert later.events == decision.events
    assert later.trace.contest is not None
    assert not later.trace.contest.observed


def test_the_condition_clears_after_a_quiet_window() -> None:
    observed = write("argocd-controller", 0)
    state = ContestState(expected=1, writes=(observed,))
    first = apply_contest(decision_for(1, 500), state, target=TARGET, now=NOW, observed=observed)
    later = NOW + timedelta(minutes=31)
    quiet = decision_for(5, 100, status=first.status)
    cleared = apply_contest(quiet, state, target=TARGET, now=later)
    cond = next(c for c in cleared.status["conditions"] if c["type"] == REPLICAS_CONTESTED)
    assert (cond["status"], cond["reason"]) == ("False", REASON_UNCONTESTED)
    assert cleared.trace.contest is None
    assert cleared.events == quiet.events


def test_a_quiet_hpa_never_gets_the_condition() -> None:
    decision = decision_for(5, 100)
    assert apply_contest(decision, ContestState(expected=5), target=TARGET, now=NOW) is decision


def test_the_trace_carries_the_contest_through_json() -> None:
    observed = write("argocd-controller", 0)
    state = ContestState(expected=1, writes=(write("argocd-controller", 2), observed))
    decision = apply_contest(decision_for(1, 500), state, target=TARGET, now=NOW, observed=observed)
    document = trace_to_dict(decision.trace)
    assert document["contest"]["reason"] == REASON_FIGHT_LOOP
    assert document["contest"]["last"]["manager"] == "argocd-controller"
    back = trace_from_dict(document)
    assert back.contest == decision.trace.contest
    assert f"replicas contested ({REASON_FIGHT_LOOP})" in render_trace(back)
    assert render_trace(back) == render_trace(decision.trace)
