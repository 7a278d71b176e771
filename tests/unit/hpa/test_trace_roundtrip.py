"""``trace_from_dict`` reads back what ``trace_to_dict`` wrote, through JSON.

The HPA controller stores ``trace_to_dict`` of the last decision as compact JSON on the
HPA and ``podscale describe hpa`` renders it with ``render_trace`` after
``trace_from_dict``: the rendered text must be the original's. Checked on traces that
``decide`` produces from generated HPAs, pods and metrics (every branch: scaling
disabled, invalid metrics, stabilization and policies), plus the malformed documents.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podscale.hpa import History, Recommendation, ScaleEvent, StaticMetricsSource, decide
from podscale.hpa.trace import DecisionTrace, trace_to_dict
from podscale.hpa.trace_read import TraceFormatError, trace_from_dict
from podscale.hpa.trace_render import render_trace
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC)


def external_metric(name: str, average: int | None, value: int | None) -> dict[str, Any]:
    target: dict[str, Any] = {"type": "AverageValue", "averageValue": str(average)}
    if value is not None:
        target = {"type": "Value", "value": str(value)}
    return {"type": "External", "external": {"metric": {"name": name}, "target": target}}


behaviors = st.one_of(
    st.none(),
    st.just({}),
    st.builds(
        lambda up, down, window, select, tolerance: {
            "scaleUp": {
                "policies": [{"type": "Pods", "value": up, "periodSeconds": 60}],
                **({"tolerance": tolerance} if tolerance else {}),
            },
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
        st.sampled_from([None, "0.05", "0.5"]),
    ),
)
# A pod's state: (ready, deleted, phase, started seconds ago, has a cpu sample).
pod_states = st.tuples(
    st.booleans(),
    st.booleans(),
    st.sampled_from(["Running", "Running", "Pending", "Failed"]),
    st.integers(5, 900),
    st.booleans(),
)


@st.composite
def decisions(draw: st.DrawFn) -> DecisionTrace:
    min_replicas = draw(st.integers(1, 4))
    max_replicas = draw(st.integers(min_replicas, 30))
    current = draw(st.integers(0, max_replicas + 2))
    states = draw(st.lists(pod_states, min_size=0, max_size=8))
    metrics = [cpu_metric(draw(st.integers(10, 200)))]
    externals: dict[str, list[int]] = {}
    if draw(st.booleans()):
        metrics.append(
            external_metric(
                "queue", draw(st.integers(1, 50)), draw(st.one_of(st.none(), st.integers(1, 99)))
            )
        )
        if draw(st.booleans()):  # otherwise the metric is missing: an invalid metric
            externals["queue"] = draw(st.lists(st.integers(0, 900_000), min_size=1, max_size=3))
    pods, usage = [], {}
    for i, (ready, deleted, phase, age, sampled) in enumerate(states):
        name = f"web-{i}"
        pods.append(
            make_pod(
                name,
                now=NOW,
                ready=ready,
                deleted=deleted,
                phase=phase,
                started_ago=timedelta(seconds=age),
            )
        )
        if sampled:
            usage[name] = {"app": draw(st.integers(0, 500))}
    recommendations = draw(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 900)), max_size=5))
    ups = draw(st.lists(st.tuples(st.integers(1, 5), st.integers(0, 120)), max_size=3))
    history = draw(
        st.one_of(
            st.none(),
            st.just(
                History(
                    [Recommendation(r, NOW - timedelta(seconds=s)) for r, s in recommendations],
                    [ScaleEvent(c, NOW - timedelta(seconds=s)) for c, s in ups],
                )
            ),
        )
    )
    source = StaticMetricsSource(timestamp=NOW, resources={"cpu": usage}, externals=externals)
    decision = decide(
        make_hpa(
            min_replicas=min_replicas,
            max_replicas=max_replicas,
            metrics=metrics,
            behavior=draw(behaviors),
        ),
        scale=make_scale(current, status_replicas=draw(st.integers(0, max_replicas))),
        pods=pods,
        metrics=source,
        history=history,
        now=NOW,
    )
    return decision.trace


def stored(trace: DecisionTrace) -> dict[str, Any]:
    """What the controller writes and ``describe`` reads: the trace through compact JSON."""
    document = json.loads(json.dumps(trace_to_dict(trace), separators=(",", ":")))
    assert isinstance(document, dict)
    return document


@settings(max_examples=150, deadline=None)
@given(decisions())
def test_a_stored_trace_reads_back_and_renders_the_same(trace: DecisionTrace) -> None:
    restored = trace_from_dict(stored(trace))
    assert render_trace(restored) == render_trace(trace)
    text = json.dumps(trace_to_dict(trace))
    assert json.dumps(trace_to_dict(restored)) == text
    # Whole-second inputs: nothing is lost, not even the record types. (A usage ratio can
    # be NaN, as upstream's 0/0 with no replicas, and NaN equals nothing.)
    if "NaN" not in text:
        assert restored == trace


def test_sub_second_times_render_the_same() -> None:
    base = trace_from_dict(stored(_example()))
    fine = base._replace(at=NOW + timedelta(microseconds=700_000))
    restored = trace_from_dict(stored(fine))
    assert restored.at == NOW  # the stored form keeps seconds only, like metav1.Time
    assert render_trace(restored) == render_trace(fine)


def test_fields_added_later_fall_back_to_their_defaults() -> None:
    document = stored(_example())
    for optional in ("tolerances", "metrics", "notes", "stabilization", "limit", "proposed_by"):
        document.pop(optional, None)
    restored = trace_from_dict(document)
    assert (restored.tolerances, restored.metrics, restored.notes) == (None, (), ())
    assert (restored.stabilization, restored.limit, restored.proposed_by) == (None, None, "")


def _example() -> DecisionTrace:
    pods = [make_pod(f"web-{i}", now=NOW) for i in range(3)]
    source = StaticMetricsSource(
        timestamp=NOW, resources={"cpu": {f"web-{i}": {"app": 90} for i in range(3)}}
    )
    hpa = make_hpa(metrics=[cpu_metric(50)], behavior={})
    return decide(hpa, scale=make_scale(3), pods=pods, metrics=source, history=None, now=NOW).trace


def _without(document: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != key}


MALFORMED: list[tuple[Any, str]] = [
    ([], "not a decision trace: a list, not an object"),
    ("text", "not a decision trace: a str, not an object"),
    (_without(stored(_example()), "hpa"), "not a decision trace: missing field 'hpa'"),
    ({**stored(_example()), "at": "yesterday"}, "not a decision trace: Invalid isoformat"),
    ({**stored(_example()), "current_replicas": "three"}, "not a decision trace: invalid literal"),
    ({**stored(_example()), "tolerances": [0.1]}, "not a decision trace: not enough values"),
    (
        {**stored(_example()), "metrics": [{"position": 0}]},
        "not a decision trace: missing field 'type'",
    ),
]


@pytest.mark.parametrize(
    ("document", "message"),
    MALFORMED,
    ids=["list", "string", "no-hpa", "bad-time", "bad-count", "bad-tolerances", "bad-metric"],
)
def test_malformed_documents_are_format_errors(document: Any, message: str) -> None:
    with pytest.raises(TraceFormatError) as caught:
        trace_from_dict(document)
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, ValueError)
