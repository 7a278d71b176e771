"""The PredictiveHorizontalPodAutoscaler controller on the embedded plane, on virtual time.

Four Deployments carry the same daily load: 10 requests/s (2 pods at the 50% target), 60
from 10:00 to 12:00 (12 pods). Three days of that load's CPU are written to the plane's
history before the run, as the usage recorder would have; the PHPAs forecast with a
one-day seasonal-naive model injected here (the controller's own models live in
``podscale.forecast``). Before 10:00 the PHPA in Auto mode has already scaled up, the HPA
beside it has not; the Preview one reports the same and scales nothing; a schedule window
caps the third.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from podscale.api.kinds import kind_for
from podscale.controllers.manager import Controller
from podscale.controllers.phpa.controller import PHPA, PredictiveHorizontalPodAutoscalerController
from podscale.controllers.phpa.forecasting import Fitted
from podscale.controllers.registry import (
    CONTROLLER_NAMES,
    ControllerContext,
    build_controllers,
)
from podscale.forecast.types import Forecast, Series
from podscale.history import Point, SeriesKey
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.load.usage import ContainerCost, LoadProfile

JSON = dict[str, Any]
START = datetime(2026, 3, 4, 9, 50, tzinfo=UTC)
DEPLOYMENT = kind_for("apps/v1", "Deployment")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
EVENT = kind_for("v1", "Event")
LOW, HIGH = 10.0, 60.0  # requests/s
CPU_PER_REQUEST = 20.0  # millicores per request/s
PHPA_NAME = "predictivehorizontalpodautoscalers.autoscaling.podscale.dev"


def busy(at: datetime) -> bool:
    return 10 <= at.hour < 12


@dataclass(frozen=True)
class DailyRate:
    """The load at ``START + t``."""

    def rate_at(self, t: timedelta) -> float:
        return HIGH if busy(START + t) else LOW


def one_day_ago(history: Series, horizon: int, algorithm: str) -> Fitted:
    """Seasonal naive: tomorrow is today (the last day of history, repeated)."""
    day = int(timedelta(days=1) / history.step)
    last = history.values[-day:]
    mean = np.resize(last, horizon).astype(np.float64)
    forecast = Forecast("seasonalNaive", history.end, history.step, mean, np.zeros(horizon))
    return Fitted(forecast, "seasonalNaive", 0.0, "ForecastAvailable", "yesterday repeats")


def crd() -> JSON:
    open_object = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": PHPA_NAME},
        "spec": {
            "group": "autoscaling.podscale.dev",
            "scope": "Namespaced",
            "names": {
                "plural": "predictivehorizontalpodautoscalers",
                "singular": "predictivehorizontalpodautoscaler",
                "kind": "PredictiveHorizontalPodAutoscaler",
                "shortNames": ["phpa"],
            },
            "versions": [
                {
                    "name": "v1alpha1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {"spec": open_object, "status": open_object},
                        }
                    },
                }
            ],
        },
    }


def deployment(name: str) -> JSON:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {"name": "web", "image": "web", "resources": {"requests": {"cpu": "200m"}}}
                    ]
                },
            },
        },
    }


def autoscaler(name: str, *, kind: str = "phpa", **extra: Any) -> JSON:
    spec: JSON = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
        "minReplicas": 1,
        "maxReplicas": 20,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            }
        ],
        **extra,
    }
    api_version, kind_name = (
        ("autoscaling.podscale.dev/v1alpha1", "PredictiveHorizontalPodAutoscaler")
        if kind == "phpa"
        else ("autoscaling/v2", "HorizontalPodAutoscaler")
    )
    return {
        "apiVersion": api_version,
        "kind": kind_name,
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def prefill(plane: EmbeddedControlPlane, name: str) -> None:
    """Three days of the load's CPU (cores) before the start, one point a minute."""
    first = START - timedelta(days=3)
    minutes = int((START - first) / timedelta(minutes=1))
    points = []
    for i in range(minutes):
        at = first + timedelta(minutes=i)
        points.append(Point(at, (HIGH if busy(at) else LOW) * CPU_PER_REQUEST / 1000))
    plane.history.write(SeriesKey("default", "Deployment", name, "cpu_usage"), points)


FITS: list[str] = []


def counted(history: Series, horizon: int, algorithm: str) -> Fitted:
    FITS.append(algorithm)
    return one_day_ago(history, horizon, algorithm)


def controllers(context: ControllerContext) -> list[Controller]:
    """The plane's controllers, the PHPA's with the seasonal-naive model."""
    others = [n for n in CONTROLLER_NAMES if n != "predictive-horizontal-pod-autoscaler-controller"]
    built = build_controllers(context, others)
    assert context.metrics is not None
    built.append(
        PredictiveHorizontalPodAutoscalerController(
            context.api,
            context.clock,
            context.metrics,
            history=context.history,
            fit=counted,
            correct=lambda _forecast, _recent, _at: None,
        )
    )
    return built


async def replicas(plane: EmbeddedControlPlane, name: str) -> int:
    return int((await plane.api.get(DEPLOYMENT, "default", name))["spec"]["replicas"])


def test_predictive_scaling_before_the_daily_rise() -> None:
    names = ("web", "preview", "capped", "api")
    FITS.clear()
    clock = VirtualClock(START)

    async def main() -> JSON:
        plane = EmbeddedControlPlane(clock, seed=5, controllers=controllers)
        for name in names[:3]:
            prefill(plane, name)
        task = asyncio.create_task(plane.run())
        seen: JSON = {}
        try:
            await plane.wait_started()
            profile = LoadProfile(default=ContainerCost(milli_cpu_per_rps=CPU_PER_REQUEST))
            for name in names:
                await plane.api.create(DEPLOYMENT, "default", deployment(name))
                plane.usage.set_load("Deployment", "default", name, DailyRate(), profile)
            await plane.api.create(CRD, None, crd())
            await plane.api.create(PHPA, "default", autoscaler("web", prediction={}))
            await plane.api.create(
                PHPA, "default", autoscaler("preview", prediction={}, mode="Preview")
            )
            window = [{"name": "cap", "cron": "* * * * *", "maxReplicas": 6}]
            await plane.api.create(
                PHPA, "default", autoscaler("capped", prediction={}, schedules=window)
            )
            await plane.api.create(HPA, "default", autoscaler("api", kind="hpa"))
            # A spec only the controller can refuse (the open test CRD admits it).
            await plane.api.create(DEPLOYMENT, "default", deployment("bad"))
            plane.usage.set_load("Deployment", "default", "bad", DailyRate(), profile)
            broken = [{"name": "w", "cron": "every monday", "maxReplicas": 6}]
            await plane.api.create(
                PHPA, "default", autoscaler("bad", prediction={}, schedules=broken)
            )
            await asyncio.sleep((START.replace(minute=59, second=50) - clock.now()).total_seconds())
            seen["replicas"] = {name: await replicas(plane, name) for name in names}
            seen["bad"] = (
                await replicas(plane, "bad"),
                await plane.api.get(PHPA, "default", "bad"),
            )
            seen["status"] = {
                name: (await plane.api.get(PHPA, "default", name)).get("status") or {}
                for name in names[:3]
            }
            events = (await plane.api.list(EVENT, "default"))["items"]
            seen["sources"] = {
                e["source"].get("component")
                for e in events
                if e["involvedObject"]["kind"] == "PredictiveHorizontalPodAutoscaler"
            }
            await asyncio.sleep(180)  # the HPA catches up only after the load arrived
            seen["hpa_after"] = await replicas(plane, "api")
            # A target gone: the scale is unreadable, the last prediction stays reported.
            await plane.api.delete(DEPLOYMENT, "default", "capped")
            await asyncio.sleep(30)
            seen["orphan"] = (await plane.api.get(PHPA, "default", "capped"))["status"]
        finally:
            plane.stop()
            await task
        return seen

    result = run_virtual(main(), start=START, until=timedelta(hours=1))
    assert result is not None, "did not finish before the virtual deadline"
    peak = math.ceil(HIGH * CPU_PER_REQUEST / 100)  # 100m per pod at 50% of 200m
    assert result["replicas"]["web"] == peak  # ready before 10:00
    assert result["replicas"]["api"] == 2  # the HPA still sees the low load
    assert result["hpa_after"] > 2
    bad_replicas, bad = result["bad"]
    assert bad_replicas == 1
    active = {c["type"]: c for c in bad["status"]["conditions"]}["ScalingActive"]
    assert (active["status"], active["reason"]) == ("False", "InvalidSpec")
    assert "spec.schedules[0].cron" in active["message"]
    web = result["status"]["web"]["prediction"]
    assert web["proactiveReplicas"] == peak
    assert web["decidedBy"] == "proactive"
    assert web["model"] == "seasonalNaive"
    assert web["forecast"] == "1200m"
    assert 75 <= web["leadTimeSeconds"] <= 90  # ~5 s to Ready + a 15 s sync + 60 s metrics
    ready = {c["type"]: c for c in result["status"]["web"]["conditions"]}["PredictionReady"]
    assert (ready["status"], ready["reason"]) == ("True", "ForecastAvailable")
    # Preview: the same decision reported, /scale never written.
    assert result["replicas"]["preview"] == 1
    preview = result["status"]["preview"]
    assert preview["prediction"]["proactiveReplicas"] == peak
    # What it would do from the one replica it really has: the scale-up rate limit binds.
    assert preview["desiredReplicas"] == 4
    assert preview["prediction"]["decidedBy"] == "behavior"
    assert "lastScaleTime" not in preview
    # The window's max replaces the spec's.
    assert result["replicas"]["capped"] == 6
    capped = result["status"]["capped"]["prediction"]
    assert (capped["schedule"], capped["boundMaxReplicas"], capped["decidedBy"]) == (
        "cap",
        6,
        "bounds",
    )
    assert result["sources"] == {"predictive-horizontal-pod-autoscaler"}
    orphan = result["orphan"]
    kinds = {c["type"]: c for c in orphan["conditions"]}
    assert (kinds["AbleToScale"]["status"], kinds["AbleToScale"]["reason"]) == (
        "False",
        "FailedGetScale",
    )
    assert kinds["PredictionReady"]["status"] == "True"
    assert orphan["prediction"]["schedule"] == "cap"
    # Fitted once each in the 13 minutes (refreshInterval 1h), not every 15 s sync.
    assert FITS == ["auto"] * 3
