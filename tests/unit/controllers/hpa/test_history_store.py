"""The history document: bounded, written only on meaningful change, restoring a history
that stabilizes exactly like the one it was made from; older versions' annotations read."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podscale.api.timestamps import format_micro_time
from podscale.controllers.hpa.history_store import (
    HISTORY_ANNOTATION,
    HISTORY_STATE,
    LAST_DECISION_ANNOTATION,
    LAST_DECISION_STATE,
    Retention,
    _history_signature,
    _same_history,
    encode_history,
    legacy_state,
    load_history,
    retention_for,
    state_changes,
    trace_signature,
)
from podscale.hpa import Config, History, StaticMetricsSource, decide
from podscale.hpa.normalize import stabilize_recommendation, stabilize_with_behavior
from podscale.hpa.trace import DecisionTrace
from podscale.hpa.types import Recommendation, ScaleEvent
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
CONFIG = Config()
WINDOW = Retention(timedelta(minutes=5), timedelta(seconds=60), timedelta(seconds=15))


def at(seconds: float) -> datetime:
    return NOW + timedelta(seconds=seconds)


def test_encode_keeps_each_counts_latest_inside_the_window() -> None:
    history = History(
        [
            Recommendation(4, at(-400)),  # before the window
            Recommendation(5, at(-300)),  # exactly at the cutoff: still counts
            Recommendation(3, at(-200)),
            Recommendation(5, at(-100)),
            Recommendation(3, at(-30)),
            Recommendation(2, at(0)),
        ],
        [ScaleEvent(2, at(-90)), ScaleEvent(1, at(-30))],
        [ScaleEvent(1, at(-20)), ScaleEvent(3, at(-5))],
    )
    document = encode_history(history, now=NOW, retention=WINDOW)
    assert document == {
        "recommendations": [
            {"replicas": 5, "time": "2026-03-01T09:58:20.000000Z"},
            {"replicas": 3, "time": "2026-03-01T09:59:30.000000Z"},
            {"replicas": 2, "time": "2026-03-01T10:00:00.000000Z"},
        ],
        "scaleUpEvents": [{"change": 1, "time": "2026-03-01T09:59:30.000000Z"}],
        "scaleDownEvents": [{"change": 3, "time": "2026-03-01T09:59:55.000000Z"}],
    }


def test_load_takes_the_latest_recommendation_as_made_now() -> None:
    history = History([Recommendation(5, at(-100)), Recommendation(2, at(-15))])
    document = json.loads(json.dumps(encode_history(history, now=NOW, retention=WINDOW)))
    loaded = load_history(document, now=at(60))
    assert loaded is not None
    assert loaded.recommendations == [Recommendation(5, at(-100)), Recommendation(2, at(60))]


@pytest.mark.parametrize(
    "document",
    [None, {}, "not a document", {"recommendations": [{}]}, {"scaleUpEvents": [{"change": 1}]}],
    ids=["absent", "empty", "not-a-mapping", "incomplete-recommendation", "incomplete-event"],
)
def test_no_usable_history(document: Any) -> None:
    assert load_history(document, now=NOW) is None


@pytest.mark.parametrize(
    ("annotations", "documents", "present"),
    [
        (None, {}, False),
        ({"team": "web"}, {}, False),
        (
            {HISTORY_ANNOTATION: '{"recommendations":[]}', LAST_DECISION_ANNOTATION: '{"a":1}'},
            {HISTORY_STATE: {"recommendations": []}, LAST_DECISION_STATE: {"a": 1}},
            True,
        ),
        ({HISTORY_ANNOTATION: "not json", LAST_DECISION_ANNOTATION: "[1]"}, {}, True),
    ],
    ids=["no-annotations", "only-others", "both-readable", "unreadable-still-removed"],
)
def test_legacy_state(
    annotations: dict[str, str] | None, documents: dict[str, Any], present: bool
) -> None:
    assert legacy_state({"metadata": {"annotations": annotations}}) == (documents, present)


@pytest.mark.parametrize(
    ("behavior", "expected"),
    [
        (None, Retention(timedelta(minutes=5), timedelta(0), timedelta(0))),
        ({}, Retention(timedelta(minutes=5), timedelta(seconds=15), timedelta(seconds=15))),
        (
            {
                "scaleUp": {
                    "stabilizationWindowSeconds": 600,
                    "policies": [{"type": "Pods", "value": 1, "periodSeconds": 120}],
                },
                "scaleDown": {"stabilizationWindowSeconds": 60},
            },
            Retention(timedelta(minutes=10), timedelta(seconds=120), timedelta(seconds=15)),
        ),
    ],
    ids=["legacy", "defaulted-behavior", "custom"],
)
def test_retention_for(behavior: dict[str, Any] | None, expected: Retention) -> None:
    spec = {} if behavior is None else {"behavior": behavior}
    assert retention_for(spec, CONFIG) == expected


# Sync times on a 15 s beat, as the controller makes them; the last one is "now".
histories = st.lists(st.tuples(st.integers(1, 8), st.integers(0, 40)), min_size=1, max_size=30).map(
    lambda recs: History(
        [Recommendation(r, at(-15 * age)) for r, age in recs] + [Recommendation(recs[0][0], NOW)]
    )
)


@given(history=histories, desired=st.integers(1, 8), later=st.integers(0, 40))
def test_restored_history_stabilizes_like_the_original(
    history: History, desired: int, later: int
) -> None:
    document = json.loads(json.dumps(encode_history(history, now=NOW, retention=WINDOW)))
    restored = load_history(document, now=NOW)
    assert restored is not None
    moment = at(15 * later)
    assert stabilize_recommendation(
        restored.copy(), desired, now=moment, config=CONFIG
    ) == stabilize_recommendation(history.copy(), desired, now=moment, config=CONFIG)
    behavior = {
        "scaleUp": {"stabilizationWindowSeconds": 120, "policies": [], "selectPolicy": "Max"},
        "scaleDown": {"stabilizationWindowSeconds": 300, "policies": [], "selectPolicy": "Max"},
    }
    assert stabilize_with_behavior(
        restored.copy(), desired, current_replicas=4, behavior=behavior, now=moment, config=CONFIG
    ) == stabilize_with_behavior(
        history.copy(), desired, current_replicas=4, behavior=behavior, now=moment, config=CONFIG
    )


def decision_at(now: datetime, history: History | None, cpu: int) -> Any:
    hpa = make_hpa("web", min_replicas=1, max_replicas=10, metrics=[cpu_metric(50)])
    pods = [make_pod(f"web-{i}", now=now, requests={"cpu": "100m"}) for i in range(2)]
    source = StaticMetricsSource(
        timestamp=now, resources={"cpu": {f"web-{i}": {"c": cpu} for i in range(2)}}
    )
    decision = decide(hpa, scale=make_scale(2), pods=pods, metrics=source, history=history, now=now)
    return hpa, decision


def test_changes_only_when_something_meaningful_changed() -> None:
    hpa, first = decision_at(NOW, None, 50)
    spec = hpa["spec"]
    changes = state_changes({}, first, first.history, spec=spec, now=NOW, config=CONFIG)
    assert set(changes) == {HISTORY_STATE, LAST_DECISION_STATE}
    stored = json.loads(json.dumps(changes))  # as a store gives them back
    # The same decision one sync later: a refreshed recommendation and trace time only.
    _, second = decision_at(at(15), first.history, 50)
    assert state_changes(stored, second, second.history, spec=spec, now=at(15), config=CONFIG) == {}
    # A different load: a new recommendation count and a new trace.
    _, third = decision_at(at(30), second.history, 20)
    changed = state_changes(stored, third, third.history, spec=spec, now=at(30), config=CONFIG)
    assert set(changed) == {HISTORY_STATE, LAST_DECISION_STATE}
    assert [r["replicas"] for r in changed[HISTORY_STATE]["recommendations"]] == [2, 1]
    # A caller vouching for the stored trace: only the history is compared.
    vouched = state_changes(
        stored, third, third.history, spec=spec, now=at(30), config=CONFIG, trace_unchanged=True
    )
    assert set(vouched) == {HISTORY_STATE}


_REC = st.fixed_dictionaries(
    {"replicas": st.integers(1, 3), "time": st.sampled_from(["t1", "t2", "t3"])},
    optional={"extra": st.just(1)},
)
# Mostly lists of recommendations (what a store holds), some odd shapes besides.
_RECS = st.sampled_from(["list"] * 8 + ["none", "odd", "ints"]).flatmap(
    lambda shape: {"list": st.lists(_REC, min_size=1, max_size=3), "none": st.none()}.get(
        shape, st.just("odd" if shape == "odd" else [1])
    )
)
_HISTORY_DOC = st.fixed_dictionaries(
    {"recommendations": _RECS},
    optional={
        "scaleUpEvents": st.lists(st.just({"change": 1, "time": "t1"}), max_size=1),
        "scaleDownEvents": st.just([]),
    },
)


@given(_HISTORY_DOC, _HISTORY_DOC)
def test_same_history_equals_comparing_the_signatures(old: Any, new: Any) -> None:
    try:
        expected: Any = _history_signature(old) == _history_signature(new)
    except Exception as err:  # a malformed document fails alike
        expected = type(err)
    try:
        got: Any = _same_history(old, new)
    except Exception as err:
        got = type(err)
    assert got == expected


def _encode_by_spec(history: History, now: datetime, retention: Retention) -> dict[str, Any]:
    """The history document as the module docstring specifies it, written plainly: per
    count the latest recommendation inside the window (the later position on a tie), in
    the order of those times and positions; the scale events after their cutoffs, by time."""
    cutoff = now - retention.recommendations
    latest: dict[int, tuple[datetime, int]] = {}
    for position, rec in enumerate(history.recommendations):
        if rec.timestamp >= cutoff and (rec.timestamp, position) > latest.get(
            rec.replicas, (cutoff, -1)
        ):
            latest[rec.replicas] = (rec.timestamp, position)
    ordered = sorted(latest.items(), key=lambda item: item[1])

    def events(kept: list[ScaleEvent], period: timedelta) -> list[dict[str, Any]]:
        inside = sorted((e for e in kept if e.timestamp > now - period), key=lambda e: e.timestamp)
        return [
            {"change": e.replica_change, "time": format_micro_time(e.timestamp)} for e in inside
        ]

    return {
        "recommendations": [{"replicas": r, "time": format_micro_time(t)} for r, (t, _) in ordered],
        "scaleUpEvents": events(history.scale_up_events, retention.scale_up_events),
        "scaleDownEvents": events(history.scale_down_events, retention.scale_down_events),
    }


# Few counts and times (ties of time, of count, both; the cutoff itself; unsorted lists).
_moments = st.sampled_from([-400, -300, -299.5, -60, -15, -15, 0]).map(at)
_entries = st.lists(st.tuples(st.integers(1, 4), _moments), max_size=12)


@given(
    recs=_entries,
    up=_entries,
    down=_entries,
    window=st.sampled_from([timedelta(0), timedelta(minutes=5), timedelta(minutes=10)]),
)
def test_encode_equals_the_plain_reading_of_its_rules(
    recs: list[tuple[int, datetime]],
    up: list[tuple[int, datetime]],
    down: list[tuple[int, datetime]],
    window: timedelta,
) -> None:
    # ``encode_history``'s loop (a later position replaces the kept one when its time is
    # not earlier; one count kept: no sort) and its empty-events shortcut give the plain
    # reading's document.
    history = History(
        [Recommendation(r, t) for r, t in recs],
        [ScaleEvent(c, t) for c, t in up],
        [ScaleEvent(c, t) for c, t in down],
    )
    retention = Retention(window, timedelta(seconds=60), timedelta(seconds=15))
    assert encode_history(history, now=NOW, retention=retention) == _encode_by_spec(
        history, NOW, retention
    )


@pytest.mark.parametrize(
    "window", [timedelta(minutes=5), timedelta(minutes=1), timedelta(0)], ids=["5m", "1m", "0s"]
)
def test_legacy_retention_follows_the_configured_window(window: timedelta) -> None:
    # Kept per window: each config's own, asked twice (kept), and another window after it.
    config = Config(downscale_stabilization=window)
    for _ in range(2):
        assert retention_for({}, config) == Retention(window, timedelta(0), timedelta(0))
    other = Config(downscale_stabilization=window + timedelta(seconds=30))
    assert retention_for({}, other).recommendations == window + timedelta(seconds=30)


def _signature_by_replace(trace: DecisionTrace) -> DecisionTrace:
    stabilization = trace.stabilization
    if stabilization is not None:
        stabilization = stabilization._replace(recommendations=())
    return trace._replace(at=datetime.min, stabilization=stabilization)


@pytest.mark.parametrize(
    ("history", "cpu", "without_stabilization"),
    [
        (None, 80, False),
        (History([Recommendation(3, at(-30)), Recommendation(2, at(-15))]), 20, False),
        (History([Recommendation(3, at(-30))]), 50, True),
    ],
    ids=["first-sync", "window-of-recommendations", "no-stabilization"],
)
def test_trace_signature_is_the_trace_with_time_and_looked_at_blanked(
    history: History | None, cpu: int, without_stabilization: bool
) -> None:
    # ``trace_signature`` builds the records directly: the ``_replace`` of both, of the same
    # classes; another time gives the same signature, another value another one.
    _, decision = decision_at(NOW, history, cpu)
    trace = decision.trace
    if without_stabilization:
        trace = trace._replace(stabilization=None)
    signature = trace_signature(trace)
    assert signature == _signature_by_replace(trace)
    assert type(signature) is type(trace)
    assert type(signature.stabilization) is type(trace.stabilization)
    assert trace_signature(trace._replace(at=at(60))) == signature
    assert trace_signature(trace._replace(desired_replicas=99)) != signature
