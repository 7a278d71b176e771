"""The decision trace: every step recorded, rendered as text and as JSON-ready data."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from podscale.hpa import StaticMetricsSource, decide, render_trace, trace_to_dict
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 11, 22, 10, tzinfo=UTC)


def scale_up_with_unknowns() -> object:
    pods = [
        make_pod("web-0", now=NOW),
        make_pod("web-1", now=NOW),
        make_pod("web-2", now=NOW, ready=False, started_ago=timedelta(seconds=30)),
        make_pod("web-3", now=NOW),
        make_pod("web-4", now=NOW, deleted=True),
    ]
    source = StaticMetricsSource(
        timestamp=NOW,
        resources={"cpu": {"web-0": {"app": 250}, "web-1": {"app": 250}, "web-2": {"app": 10}}},
    )
    return decide(
        make_hpa(metrics=[cpu_metric(50)], max_replicas=20, behavior={}),
        scale=make_scale(4),
        pods=pods,
        metrics=source,
        history=None,
        now=NOW,
    )


def test_trace_records_each_step() -> None:
    trace = scale_up_with_unknowns().trace  # type: ignore[attr-defined]
    calc = trace.metrics[0].calculation
    assert calc.ready_pod_count == 2
    assert calc.unready_pods == {"web-2": "not ready"}
    assert calc.ignored_pods == {"web-4": "deleted"}
    assert calc.missing_pods == ("web-3",)
    assert calc.usage_ratio == 5.0
    assert calc.rebalanced_ratio == 2.5
    assert trace.proposed_replicas == 10
    assert trace.stabilization.after == 10
    assert (trace.limit.reason, trace.limit.after, trace.limit.rate_limit) == ("ScaleUpLimit", 8, 8)
    assert [(p.type, p.allows) for p in trace.limit.policies] == [("Pods", 8), ("Percent", 8)]
    assert trace.desired_replicas == 8


def test_render_trace_explains_in_text() -> None:
    text = render_trace(scale_up_with_unknowns().trace)  # type: ignore[attr-defined]
    for fragment in (
        "HPA default/web at 2026-11-22T10:00:00Z: scale 4 -> 8",
        "ratio 5.000, outside tolerance [0.90, 1.10]",
        "unready: web-2 (not ready)",
        "ignored: web-4 (deleted)",
        "missing metrics: web-3",
        "ratio after rebalancing missing/unready pods: 2.500",
        "limits: 10 -> 8 (ScaleUpLimit)",
        "policy Pods 4 per 15s allows 8",
        "desired replicas: 8",
    ):
        assert fragment in text


def test_trace_to_dict_is_json_ready() -> None:
    data = trace_to_dict(scale_up_with_unknowns().trace)  # type: ignore[attr-defined]
    encoded = json.loads(json.dumps(data))
    assert encoded["at"] == "2026-11-22T10:00:00Z"
    assert encoded["metrics"][0]["calculation"]["missing_pods"] == ["web-3"]
    assert encoded["limit"]["policies"][0] == {
        "type": "Pods",
        "value": 4,
        "period_seconds": 15,
        "allows": 8,
    }
    assert encoded["stabilization"]["recommendations"][0] == {
        "replicas": 4,
        "timestamp": "2026-11-22T10:00:00Z",
    }


def test_failed_metric_is_traced_with_its_error() -> None:
    decision = decide(
        make_hpa(),
        scale=make_scale(2),
        pods=[make_pod("web-0", now=NOW), make_pod("web-1", now=NOW)],
        metrics=StaticMetricsSource(timestamp=NOW),
        history=None,
        now=NOW,
    )
    trace = decision.trace
    assert trace.invalid_metrics == 1
    assert trace.metrics[0].error is not None
    assert "no metrics returned from resource metrics API" in render_trace(trace)
