"""Scaling on requests per second per pod: the simulated kubelets publish each ready pod's
request rate as the Pods custom metric ``http_requests_per_second`` and an autoscaling/v2
HPA with an AverageValue target on it scales the Deployment, through
custom.metrics.k8s.io on the same virtual clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from podscale.api.quantity import parse_quantity
from podscale.api.selectors import parse_selector
from podscale.apiserver.metricsapis.providers import CustomMetricInfo
from podscale.scenario.play import ScenarioResult, run_scenario
from podscale.scenario.run import ScenarioRun

from .pipeline import deployment, hpa_v2, on_plane, scenario, sleep_until

JSON = dict[str, Any]
METRIC = "http_requests_per_second"


def rps_scenario(per_pod_target: str, steps: list[JSON]) -> Any:
    pods_metric = {
        "type": "Pods",
        "pods": {
            "metric": {"name": METRIC},
            "target": {"type": "AverageValue", "averageValue": per_pod_target},
        },
    }
    return scenario(
        "rps",
        [deployment("api"), hpa_v2("api", [pods_metric], max_replicas=8)],
        [
            {
                "target": {"kind": "Deployment", "name": "api"},
                "load": {"type": "step", "steps": steps},
                "containers": [{"name": "web", "perRequest": {"cpu": "1m"}}],
            }
        ],
        duration="20m",
    )


@pytest.fixture(scope="module")
def result() -> ScenarioResult:
    # 10 req/s per pod wanted: 35 req/s needs 4 pods, then 70 would need 7.
    steps = [{"at": "0s", "rate": 35}, {"at": "8m", "rate": 70}]
    return run_scenario(rps_scenario("10", steps))


def replicas_at(result: ScenarioResult, minutes: float) -> int:
    wanted = timedelta(minutes=minutes)
    return next(s for s in result.snapshots if s.offset >= wanted).workload("api").replicas


@pytest.mark.parametrize(("minutes", "replicas"), [(7, 4), (19, 7)], ids=["35-rps", "70-rps"])
def test_scales_to_requests_over_target(
    result: ScenarioResult, minutes: float, replicas: int
) -> None:
    assert replicas_at(result, minutes) == replicas


def test_the_hpa_reports_the_pods_metric_rescale(result: ScenarioResult) -> None:
    messages = [
        e.message
        for s in result.snapshots
        for e in s.events
        if e.kind == "HorizontalPodAutoscaler" and e.reason == "SuccessfulRescale"
    ]
    assert messages
    assert all(m.endswith(f"pods metric {METRIC} above target") for m in messages)
    assert max(result.replicas_of("api")) <= 8


def test_each_ready_pod_serves_its_share() -> None:
    async def body(run: ScenarioRun) -> list[JSON]:
        await sleep_until(run, timedelta(minutes=6))
        push = run.plane.push
        assert push is not None
        info = CustomMetricInfo("pods", True, METRIC)
        return await push.get_metric_by_selector(
            "default", parse_selector("app=api"), info, parse_selector("")
        )

    items = on_plane(rps_scenario("10", [{"at": "0s", "rate": 35}]), body)
    assert len(items) == 4
    for item in items:
        assert item["metric"]["name"] == METRIC
        assert item["describedObject"]["kind"] == "Pod"
        assert parse_quantity(item["value"]).milli_value() == 8750
