"""The EffectiveHorizontalPodAutoscaler on an embedded control plane on virtual time: the
generated HPA and its metrics, the two crane metrics served to it on
external.metrics.k8s.io, a workload following its cron window and its forecast, and
Preview computing replicas on a Substitute without touching the workload."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from podscale.api.kinds import kind_for
from podscale.api.selectors import selector_from_label_selector
from podscale.apiserver.metricsapis.providers import ExternalMetricInfo
from podscale.controllers.ehpa.controller import EffectiveHPAController
from podscale.controllers.ehpa.kind import EHPA, SUBSTITUTE, definition, substitute_definition
from podscale.controllers.manager import Controller
from podscale.controllers.registry import ControllerContext, build_controllers, select_controllers
from podscale.forecast.types import Forecast, Forecaster, Series
from podscale.history import Point, SeriesKey
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime import VirtualClock, run_virtual
from podscale.runtime.simulated.kubelet_state import StartupProfile

JSON = dict[str, Any]
START = datetime(2026, 3, 2, tzinfo=UTC)  # a Monday, 00:00 UTC
CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
DEPLOY = kind_for("apps/v1", "Deployment")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
EVENT = kind_for("v1", "Event")
PROFILE = StartupProfile(
    startup=timedelta(seconds=5),
    readiness_delay=timedelta(seconds=2),
    termination=timedelta(seconds=1),
)


class Constant:
    """A test forecaster: ``level`` cores for every step ahead."""

    def __init__(self, level: float) -> None:
        self.level = level

    @property
    def name(self) -> str:
        return "constant"

    def fit(self, history: Series, horizon: int) -> Forecast:
        mean = np.full(horizon, self.level)
        return Forecast("constant", history.end, history.step, mean, np.zeros(horizon))


def deployment(name: str, replicas: int) -> JSON:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "app",
                            "image": "nginx",
                            "resources": {"requests": {"cpu": "100m"}},
                        }
                    ]
                },
            },
        },
    }


def ehpa(name: str, target: str, **spec: Any) -> JSON:
    return {
        "apiVersion": "autoscaling.crane.io/v1alpha1",
        "kind": "EffectiveHorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
            "maxReplicas": 10,
            **spec,
        },
    }


CRON = {"name": "rush", "start": "10 0 * * *", "end": "20 0 * * *", "targetReplicas": 5}
CPU_50 = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
}


class Plane:
    def __init__(self, plane: EmbeddedControlPlane) -> None:
        self.plane = plane
        self.api = plane.api

    async def install(self, *deployments: tuple[str, int]) -> None:
        await self.api.create(CRD, None, definition())
        await self.api.create(CRD, None, substitute_definition())
        for name, replicas in deployments:
            await self.api.create(DEPLOY, "default", deployment(name, replicas))

    async def at(self, minutes: float) -> None:
        """Let virtual time run to ``minutes`` after the start."""
        now = self.plane.clock.now()
        await asyncio.sleep(max(0.0, (START + timedelta(minutes=minutes) - now).total_seconds()))

    async def replicas(self, name: str) -> int:
        return int((await self.api.get(DEPLOY, "default", name))["spec"]["replicas"])

    async def hpa(self, name: str) -> JSON:
        return await self.api.get(HPA, "default", f"ehpa-{name}")

    async def status(self, name: str) -> JSON:
        return dict((await self.api.get(EHPA, "default", name)).get("status") or {})

    async def events(self) -> list[tuple[str, str]]:
        items = (await self.api.list(EVENT, "default"))["items"]
        return [
            (e["reason"], e["message"])
            for e in items
            if e["involvedObject"]["kind"] == "EffectiveHorizontalPodAutoscaler"
        ]


async def served(p: Plane, hpa: JSON, index: int) -> str:
    """What external.metrics.k8s.io serves for the HPA's metric ``index`` (the push
    provider the EHPA controller publishes into, read as the HPA reads it)."""
    metric = hpa["spec"]["metrics"][index]["external"]["metric"]
    push = p.plane.push
    assert push is not None
    selector = selector_from_label_selector(metric["selector"])
    items = await push.get_external_metric("default", selector, ExternalMetricInfo(metric["name"]))
    [item] = items
    return str(item["value"])


def external_value(hpa: JSON, metric: str) -> str | None:
    for current in (hpa.get("status") or {}).get("currentMetrics") or ():
        external = current.get("external") or {}
        if (external.get("metric") or {}).get("name") == metric:
            return str((external.get("current") or {}).get("averageValue"))
    return None


def on_plane(
    body: Callable[[Plane], Awaitable[None]], forecaster: Forecaster | None = None
) -> None:
    clock = VirtualClock(START)

    def controllers(context: ControllerContext) -> list[Controller]:
        built = build_controllers(context, select_controllers("*,-ehpa"))
        make = (lambda _a, _p: forecaster) if forecaster is not None else None
        ehpa_controller = EffectiveHPAController(
            context.api,
            context.clock,
            history=context.history,
            writer=context.external_metrics_writer,
            **({"forecaster": make} if make is not None else {}),
        )
        return [*built, ehpa_controller]

    async def main() -> bool:
        plane = EmbeddedControlPlane(clock, seed=3, profile=PROFILE, controllers=controllers)
        task = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            await body(Plane(plane))
        finally:
            plane.stop()
            await task
        return True

    assert run_virtual(main(), start=START, until=timedelta(hours=2)), "ran out of virtual time"


def test_a_cron_window_scales_the_target_through_the_generated_hpa() -> None:
    async def body(p: Plane) -> None:
        await p.install(("web", 2))
        await p.api.create(EHPA, "default", ehpa("web", "web", crons=[CRON]))
        await p.at(2)
        hpa = await p.hpa("web")
        labels = hpa["metadata"]["labels"]
        assert labels["app.kubernetes.io/managed-by"] == "effective-hpa-controller"
        assert labels["app.kubernetes.io/part-of"] == "web"
        owner = hpa["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["name"], owner["controller"]) == (
            "EffectiveHorizontalPodAutoscaler",
            "web",
            True,
        )
        [metric] = hpa["spec"]["metrics"]
        assert metric["external"]["metric"] == {
            "name": "crane_autoscaling_cron",
            "selector": {
                "matchLabels": {
                    "targetKind": "Deployment",
                    "targetName": "web",
                    "targetNamespace": "default",
                    "resourceIdentifier": "cron",
                }
            },
        }
        assert metric["external"]["target"] == {"type": "AverageValue", "averageValue": "1"}
        # Outside its window a cron alone keeps the workload's replicas.
        assert await served(p, hpa, 0) == "2"
        await p.at(9.9)
        assert await p.replicas("web") == 2
        await p.at(11)
        assert await p.replicas("web") == 5
        assert await served(p, await p.hpa("web"), 0) == "5"
        assert external_value(await p.hpa("web"), "crane_autoscaling_cron") == "1"  # per pod
        status = await p.status("web")
        assert status["expectReplicas"] == 5
        ready = {c["type"]: c for c in status["conditions"]}
        assert ready["Ready"]["status"] == "True"
        assert ready["Ready"]["reason"] == "EffectiveHorizontalPodAutoscalerReady"
        assert ready["AbleToScale"]["status"] == "True"  # the HPA's, mirrored
        assert ("HPACreated", "Create HorizontalPodAutoscaler successfully") in await p.events()

    on_plane(body)


def test_a_forecast_is_served_and_the_target_follows_it() -> None:
    async def body(p: Plane) -> None:
        await p.install(("api", 2))
        key = SeriesKey("default", "Deployment", "api", "cpu_usage")
        past = [Point(START - timedelta(minutes=m), 0.1) for m in range(1, 240)]
        p.plane.history.write(key, past)
        prediction = {
            "predictionWindowSeconds": 600,
            "predictionAlgorithm": {"algorithmType": "dsp"},
        }
        body_ = ehpa("api", "api", metrics=[CPU_50], prediction=prediction)
        await p.api.create(EHPA, "default", body_)
        await p.at(3)
        hpa = await p.hpa("api")
        assert hpa["spec"]["metrics"][0] == CPU_50
        predicted = hpa["spec"]["metrics"][1]["external"]
        assert predicted["metric"]["name"] == "crane_autoscaling_prediction"
        assert (
            predicted["metric"]["selector"]["matchLabels"]["resourceIdentifier"] == "resource.cpu"
        )
        # 100m requested per pod at 50%: 50m per pod.
        assert predicted["target"] == {"type": "AverageValue", "averageValue": "50m"}
        await p.at(8)
        # 0.3 cores forecast / 50m per pod.
        assert await p.replicas("api") == 6
        assert await served(p, await p.hpa("api"), 1) == "300m"
        # The HPA reports an AverageValue external metric per pod: 300m over 6 pods.
        assert external_value(await p.hpa("api"), "crane_autoscaling_prediction") == "50m"
        conditions = {c["type"]: c for c in (await p.status("api"))["conditions"]}
        assert conditions["PredictionReady"]["status"] == "True"

    on_plane(body, Constant(0.3))


def test_preview_computes_replicas_on_a_substitute_and_leaves_the_target() -> None:
    async def body(p: Plane) -> None:
        await p.install(("web", 2))
        await p.api.create(
            EHPA, "default", ehpa("web", "web", crons=[CRON], scaleStrategy="Preview")
        )
        await p.at(2)
        hpa = await p.hpa("web")
        assert hpa["spec"]["scaleTargetRef"] == {
            "apiVersion": "autoscaling.crane.io/v1alpha1",
            "kind": "Substitute",
            "name": "ehpa-web",
        }
        substitute = await p.api.get(SUBSTITUTE, "default", "ehpa-web")
        assert substitute["spec"]["substituteTargetRef"]["name"] == "web"
        assert substitute["status"]["labelSelector"] == "app=web"
        await p.at(12)
        assert await p.replicas("web") == 2  # never scaled
        assert (await p.status("web"))["expectReplicas"] == 5  # but computed

    on_plane(body)


def test_preview_with_specific_replicas_holds_the_target_there() -> None:
    async def body(p: Plane) -> None:
        await p.install(("web", 2))
        spec = {"crons": [CRON], "scaleStrategy": "Preview", "specificReplicas": 3}
        await p.api.create(EHPA, "default", ehpa("web", "web", **spec))
        await p.at(2)
        assert await p.replicas("web") == 3
        await p.at(12)
        assert await p.replicas("web") == 3
        assert (await p.status("web"))["expectReplicas"] == 5

    on_plane(body)
