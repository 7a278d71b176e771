"""The usage-history controller on an embedded plane, on virtual time: a loaded Deployment
with an HPA gets a ``cpu_usage`` point every minute in ``plane.history``, its HPA's metric
series next to it, and a PredictiveHorizontalPodAutoscaler's target is recorded once that
kind's CRD is installed (before, its absence is no error)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from podscale.api.kinds import kind_for
from podscale.controllers.usagehistory.kinds import PHPA
from podscale.history import Point, SeriesKey
from podscale.scenario.run import ScenarioRun

from .pipeline import START, deployment, hpa_v2, on_plane, scenario, sleep_until

JSON = dict[str, Any]
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
CPU_50 = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
}


def loaded(name: str, rate: float) -> JSON:
    return {
        "target": {"kind": "Deployment", "name": name},
        "load": {"type": "constant", "rate": rate},
        "noise": {"stddev": 0},
        "containers": [
            {
                "name": "web",
                "baseline": {"cpu": "5m", "memory": "20Mi"},
                "perRequest": {"cpu": "10m"},
            }
        ],
    }


def key(name: str, series: str) -> SeriesKey:
    return SeriesKey("default", "Deployment", name, series)


def phpa_crd() -> JSON:
    names = {"plural": PHPA.plural, "singular": PHPA.singular, "kind": PHPA.kind}
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{PHPA.plural}.{PHPA.group}"},
        "spec": {
            "group": PHPA.group,
            "scope": "Namespaced",
            "names": names,
            "versions": [
                {
                    "name": PHPA.version,
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }


def test_a_loaded_deployment_gets_its_usage_every_minute() -> None:
    # 20 req/s of 10m each plus 5m per pod: a bit over 0.2 cores in total, whatever the
    # replicas the HPA chooses.
    scn = scenario(
        "usage-history", [deployment("web"), hpa_v2("web", [CPU_50])], [loaded("web", 20.0)]
    )

    async def body(run: ScenarioRun) -> dict[SeriesKey, list[Point]]:
        await sleep_until(run, timedelta(minutes=10, seconds=30))
        history = run.plane.history
        end = START + timedelta(minutes=11)
        stored = history.keys()
        return {k: list(history.read(k, START, end, timedelta(minutes=1))) for k in stored}

    series = on_plane(scn, body)
    assert {key("web", "cpu_usage"), key("web", "memory_usage"), key("web", "metric/0/cpu")} <= (
        set(series)
    )
    cpu = series[key("web", "cpu_usage")]
    minutes = [point.at for point in cpu]
    # From the first scrape on, one point per minute, on the minute, up to the tenth.
    assert minutes == [START + timedelta(minutes=m) for m in range(11 - len(minutes), 11)]
    assert len(minutes) >= 9
    assert all(0.2 <= point.value <= 0.3 for point in cpu[1:])
    assert all(point.value >= 20 * 1024 * 1024 for point in series[key("web", "memory_usage")])
    assert all(0 < point.value <= 200 for point in series[key("web", "metric/0/cpu")])


def test_a_predictive_autoscalers_target_is_recorded_once_its_crd_is_served() -> None:
    scn = scenario("usage-history-phpa", [deployment("web")], [loaded("web", 10.0)])
    phpa = {
        "apiVersion": PHPA.api_version,
        "kind": PHPA.kind,
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 1,
        },
    }

    async def body(run: ScenarioRun) -> tuple[list[SeriesKey], list[Point]]:
        await sleep_until(run, timedelta(minutes=3))
        before = list(run.plane.history.keys())
        await run.plane.api.create(CRD, None, phpa_crd())
        await sleep_until(run, timedelta(minutes=4))
        await run.plane.api.create(PHPA, "default", phpa)
        await sleep_until(run, timedelta(minutes=8, seconds=30))
        end = START + timedelta(minutes=9)
        points = run.plane.history.read(key("web", "cpu_usage"), START, end, timedelta(minutes=1))
        return before, list(points)

    before, points = on_plane(scn, body)
    assert before == []
    assert [p.at for p in points][-4:] == [START + timedelta(minutes=m) for m in range(5, 9)]
    assert all(0.1 <= p.value <= 0.15 for p in points)
