# ruff: noqa: E501  (a table of upstream's messages, kept verbatim on one line each)
"""Every condition reason upstream's HPA controller sets, reached through the public API."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.hpa import (
    Decision,
    History,
    Recommendation,
    StaticMetricsSource,
    apply_rescale_failure,
    decide,
    scale_unavailable,
)
from podscale.testing import cpu_metric, make_hpa, make_pod, make_scale

NOW = datetime(2026, 11, 22, 10, tzinfo=UTC)
OLD = History([Recommendation(1, NOW - timedelta(hours=1))])
UNABLE = "the HPA was unable to compute the replica count: "


def sync(
    *,
    current: int = 4,
    usage: int = 100,
    hpa: dict[str, Any] | None = None,
    history: History | None = OLD,
    source: StaticMetricsSource | None = None,
) -> Decision:
    pods = [make_pod(f"web-{i}", now=NOW) for i in range(current)]
    source = source or StaticMetricsSource(
        timestamp=NOW, resources={"cpu": {f"web-{i}": {"app": usage} for i in range(current)}}
    )
    return decide(
        hpa or make_hpa(metrics=[cpu_metric(100)], min_replicas=2, max_replicas=10),
        scale=make_scale(current),
        pods=pods,
        metrics=source,
        history=history,
        now=NOW,
    )


def failing(metric: dict[str, Any]) -> Decision:
    return sync(hpa=make_hpa(metrics=[metric]), source=StaticMetricsSource(timestamp=NOW))


def rescale_failed() -> Decision:
    hpa = make_hpa(metrics=[cpu_metric(100)])
    return apply_rescale_failure(sync(usage=200, hpa=hpa), hpa, error="conflict", now=NOW)


POD_METRIC = {
    "type": "Pods",
    "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "1"}},
}
OBJECT_METRIC = {
    "type": "Object",
    "object": {
        "describedObject": {"apiVersion": "v1", "kind": "Service", "name": "web"},
        "metric": {"name": "hits"},
        "target": {"type": "Value", "value": "1"},
    },
}
EXTERNAL_METRIC = {
    "type": "External",
    "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "1"}},
}
CONTAINER_METRIC = {
    "type": "ContainerResource",
    "containerResource": {
        "name": "cpu",
        "container": "app",
        "target": {"type": "Utilization", "averageUtilization": 50},
    },
}
SCALE_DOWN_ONE_PER_MINUTE = {
    "scaleDown": {
        "stabilizationWindowSeconds": 0,
        "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}],
    }
}
SCALE_UP_WINDOW = {"scaleUp": {"stabilizationWindowSeconds": 60}}

CASES: list[tuple[str, Callable[[], Decision], str, str, str]] = [
    ("SucceededGetScale", lambda: sync(current=0), "AbleToScale", "True",
     "the HPA controller was able to get the target's current scale"),
    ("FailedGetScale", lambda: scale_unavailable(make_hpa(), error="not found", history=None, now=NOW),
     "AbleToScale", "False", "the HPA controller was unable to get the target's current scale: not found"),
    ("SucceededRescale", lambda: sync(usage=200), "AbleToScale", "True",
     "the HPA controller was able to update the target scale to 8"),
    ("FailedUpdateScale", rescale_failed, "AbleToScale", "False",
     "the HPA controller was unable to update the target scale: conflict"),
    ("ReadyForNewScale", lambda: sync(), "AbleToScale", "True", "recommended size matches current size"),
    ("ScaleUpStabilized",
     lambda: sync(usage=200, hpa=make_hpa(metrics=[cpu_metric(100)], behavior=SCALE_UP_WINDOW),
                  history=History([Recommendation(4, NOW - timedelta(seconds=30))])),
     "AbleToScale", "True",
     "recent recommendations were lower than current one, applying the lowest recent recommendation"),
    ("ScaleDownStabilized", lambda: sync(usage=50, history=None), "AbleToScale", "True",
     "recent recommendations were higher than current one, applying the highest recent recommendation"),
    ("ScalingDisabled", lambda: sync(current=0), "ScalingActive", "False",
     "scaling is disabled since the replica count of the target is zero"),
    ("ValidMetricFound", lambda: sync(), "ScalingActive", "True",
     "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)"),
    ("InvalidMetricSourceType", lambda: sync(hpa=make_hpa(metrics=[{"type": "Nope"}])), "ScalingActive", "False",
     UNABLE + 'unknown metric source type "Nope"'),
    ("FailedGetResourceMetric", lambda: failing(cpu_metric(50)), "ScalingActive", "False",
     UNABLE + "failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API"),
    ("FailedGetContainerResourceMetric", lambda: failing(CONTAINER_METRIC), "ScalingActive", "False",
     UNABLE + "failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API"),
    ("FailedGetPodsMetric", lambda: failing(POD_METRIC), "ScalingActive", "False",
     UNABLE + "unable to get metric rps: the server could not find the metric rps for pods"),
    ("FailedGetObjectMetric", lambda: failing(OBJECT_METRIC), "ScalingActive", "False",
     UNABLE + "unable to get metric hits: Service on default web/the server could not find the metric hits for service web"),
    ("FailedGetExternalMetric", lambda: failing(EXTERNAL_METRIC), "ScalingActive", "False",
     UNABLE + "unable to get external metric default/queue/nil: the server could not find the requested resource (get queue.external.metrics.k8s.io)"),
    ("ScaleUpLimit", lambda: sync(current=2, usage=500, hpa=make_hpa(metrics=[cpu_metric(100)], max_replicas=50)),
     "ScalingLimited", "True", "the desired replica count is increasing faster than the maximum scale rate"),
    ("ScaleDownLimit",
     lambda: sync(usage=10, hpa=make_hpa(metrics=[cpu_metric(100)], behavior=SCALE_DOWN_ONE_PER_MINUTE)),
     "ScalingLimited", "True", "the desired replica count is decreasing faster than the maximum scale rate"),
    ("TooManyReplicas", lambda: sync(usage=500, hpa=make_hpa(metrics=[cpu_metric(100)], max_replicas=5)),
     "ScalingLimited", "True", "the desired replica count is more than the maximum replica count"),
    ("TooFewReplicas", lambda: sync(usage=10), "ScalingLimited", "True",
     "the desired replica count is less than the minimum replica count"),
    ("DesiredWithinRange", lambda: sync(), "ScalingLimited", "False", "the desired count is within the acceptable range"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("reason", "run", "kind", "status", "message"), CASES, ids=[c[0] for c in CASES]
)
def test_condition_reason(
    reason: str, run: Callable[[], Decision], kind: str, status: str, message: str
) -> None:
    decision = run()
    conditions = {c["type"]: c for c in decision.status["conditions"]}
    assert (
        conditions[kind]["status"],
        conditions[kind]["reason"],
        conditions[kind]["message"],
    ) == (
        status,
        reason,
        message,
    )
