"""Decisions of an HPA with ``minReplicas: 0`` (upstream's ``HPAScaleToZero``), as
``reconcileAutoscaler`` makes them: maintenance mode only when ``minReplicas != 0``, a
target at zero scaled on its External metric, and a count allowed down to zero."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.hpa import StaticMetricsSource, decide, scale_unavailable
from podscale.testing import make_hpa, make_pod, make_scale

NOW = datetime(2026, 11, 22, 10, tzinfo=UTC)
VALID = ("True", "ValidMetricFound")
DISABLED = ("False", "ScalingDisabled")
NO_WINDOW = {"scaleDown": {"stabilizationWindowSeconds": 0}}


def queue(target: dict[str, Any]) -> dict[str, Any]:
    return {"type": "External", "external": {"metric": {"name": "queue"}, "target": target}}


VALUE = queue({"type": "Value", "value": "10"})
AVERAGE = queue({"type": "AverageValue", "averageValue": "10"})

# (id, min replicas, metric, current replicas, queue value in milli-units,
#  desired replicas, rescale, ScalingActive (status, reason))
CASES: list[tuple[str, int, dict[str, Any], int, int, int, bool, tuple[str, str]]] = [
    ("min-1-at-zero-scaling-disabled", 1, VALUE, 0, 25000, 0, False, DISABLED),
    ("min-0-at-zero-value-ratio-rounded-up", 0, VALUE, 0, 25000, 3, True, VALID),
    ("min-0-at-zero-average-total-over-target", 0, AVERAGE, 0, 25000, 3, True, VALID),
    ("min-0-at-zero-nothing-stays-at-zero", 0, VALUE, 0, 0, 0, False, VALID),
    ("min-0-average-nothing-stays-at-zero", 0, AVERAGE, 0, 0, 0, False, VALID),
    ("min-0-value-drains-to-zero", 0, VALUE, 3, 0, 0, True, VALID),
    ("min-0-average-drains-to-zero", 0, AVERAGE, 3, 0, 0, True, VALID),
    ("min-1-drains-to-min", 1, VALUE, 3, 0, 1, True, VALID),
]  # fmt: skip


@pytest.mark.parametrize(
    ("min_replicas", "metric", "current", "value", "desired", "rescale", "active"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_decisions_with_min_replicas_zero(
    min_replicas: int,
    metric: dict[str, Any],
    current: int,
    value: int,
    desired: int,
    rescale: bool,
    active: tuple[str, str],
) -> None:
    hpa = make_hpa(min_replicas=min_replicas, max_replicas=5, metrics=[metric], behavior=NO_WINDOW)
    decision = decide(
        hpa,
        scale=make_scale(current),
        pods=[make_pod(f"web-{i}", now=NOW) for i in range(current)],
        metrics=StaticMetricsSource(timestamp=NOW, externals={"queue": [value]}),
        history=None,
        now=NOW,
    )
    assert (decision.desired_replicas, decision.rescale) == (desired, rescale)
    conditions = {c["type"]: c for c in decision.status["conditions"]}
    scaling_active = conditions["ScalingActive"]
    assert (scaling_active["status"], scaling_active["reason"]) == active


def test_a_failed_scale_read_traces_min_replicas_zero_as_zero() -> None:
    # Regression: minReplicas 0 was read as absent (1) in the FailedGetScale trace.
    hpa = make_hpa(min_replicas=0, metrics=[VALUE])
    decision = scale_unavailable(hpa, error="not found", history=None, now=NOW)
    assert decision.trace.min_replicas == 0
    assert (
        scale_unavailable(
            make_hpa(min_replicas=None), error="x", history=None, now=NOW
        ).trace.min_replicas
        == 1
    )
