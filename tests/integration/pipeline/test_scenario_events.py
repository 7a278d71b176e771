"""A scenario's timeline on the plane (podscale.scenario.timeline): ``scale``, ``crash``,
``loseNode`` and ``restoreNode`` fire at their offsets, and the snapshots show it; an
autoscaling/v1 HPA manifest is created through its own version and scales like a v2 one."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from podscale.scenario.play import ScenarioResult, run_scenario
from podscale.scenario.snapshot import ScenarioSnapshot, SeenEvent

from .pipeline import deployment, scenario

JSON = dict[str, Any]


def snapshot_at(result: ScenarioResult, seconds: float) -> ScenarioSnapshot:
    return next(s for s in result.snapshots if s.offset >= timedelta(seconds=seconds))


def events(result: ScenarioResult) -> list[SeenEvent]:
    return [e for s in result.snapshots for e in s.events]


@pytest.fixture(scope="module")
def timeline() -> ScenarioResult:
    target = {"kind": "Deployment", "name": "web"}
    return run_scenario(
        scenario(
            "timeline",
            [deployment("web")],
            [{"target": target, "load": {"type": "constant", "rate": 1}}],
            duration="3m",
            events=[
                {"at": "30s", "type": "scale", "target": target, "replicas": 3},
                {"at": "60s", "type": "crash", "target": target, "count": 2},
                {"at": "90s", "type": "loseNode", "node": "node-2"},
                {"at": "100s", "type": "restoreNode", "node": "node-2"},
            ],
        )
    )


def test_scale_fires_at_its_offset(timeline: ScenarioResult) -> None:
    assert snapshot_at(timeline, 25).workload("web").replicas == 1
    assert snapshot_at(timeline, 30).workload("web").replicas == 3
    assert snapshot_at(timeline, 55).workload("web").ready_pods == 3


def test_crash_restarts_the_first_pods(timeline: ScenarioResult) -> None:
    restarted = {
        e.name
        for e in events(timeline)
        if e.reason == "Started" and e.offset >= timedelta(seconds=60)
    }
    assert len(restarted) == 2


def test_node_loss_and_recovery_are_seen(timeline: ScenarioResult) -> None:
    assert snapshot_at(timeline, 85).workload("web").ready_pods == 3
    assert snapshot_at(timeline, 95).workload("web").ready_pods == 2
    assert snapshot_at(timeline, 105).workload("web").ready_pods == 3
    not_ready = [e for e in events(timeline) if e.reason == "NodeNotReady"]
    assert [(e.kind, e.offset) for e in not_ready] == [("Pod", timedelta(seconds=95))]


def test_an_autoscaling_v1_hpa_scales_too() -> None:
    hpa_v1: JSON = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 4,
            "targetCPUUtilizationPercentage": 50,
        },
    }
    result = run_scenario(
        scenario(
            "v1",
            [deployment("web"), hpa_v1],
            [
                {
                    "target": {"kind": "Deployment", "name": "web"},
                    "load": {"type": "constant", "rate": 25},
                    "noise": {"stddev": 0},
                    "containers": [{"name": "web", "perRequest": {"cpu": "10m"}}],
                }
            ],
            duration="5m",
        )
    )
    # 250m on 200m requests at 50%: 2.5, so 3 pods.
    assert result.snapshots[-1].workload("web").replicas == 3
    assert result.snapshots[-1].hpa("web").target_utilization == 50
