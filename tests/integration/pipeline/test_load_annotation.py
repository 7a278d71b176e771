"""A load declared on a Deployment (the ``load.podscale.dev/v1alpha1`` annotation) drives its
CPU HPA on the embedded plane, on virtual time: set, the HPA scales up; removed, it scales
back down once the downscale stabilization window has passed; a bad value leaves the plane
running with an ``InvalidLoad`` Event on the Deployment."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

from podscale.api.kinds import kind_for
from podscale.plane.embedded import EmbeddedControlPlane
from podscale.runtime.clocks import VirtualClock
from podscale.runtime.kernel import run_virtual
from podscale.runtime.load.annotation import LOAD_ANNOTATION

from .pipeline import START, deployment, hpa_v2

JSON = dict[str, Any]
DEPLOYMENT = kind_for("apps/v1", "Deployment")
HPA = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")
EVENT = kind_for("v1", "Event")
# 25 requests/s at 20m each: 500m of CPU, five 200m pods' worth at the 50% target.
LOAD = {
    "load": {"type": "constant", "rate": 25},
    "containers": [{"name": "web", "perRequest": {"cpu": "20m"}}],
    "noise": {"stddev": 0},
}
WINDOW = 60  # the HPA's scaleDown stabilization window, seconds


def cpu_hpa() -> JSON:
    hpa = hpa_v2(
        "web",
        [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            }
        ],
    )
    hpa["spec"]["behavior"] = {"scaleDown": {"stabilizationWindowSeconds": WINDOW}}
    return hpa


def annotate(value: str | None) -> JSON:
    return {"metadata": {"annotations": {LOAD_ANNOTATION: value}}}


async def replicas(plane: EmbeddedControlPlane) -> int:
    return int((await plane.api.get(DEPLOYMENT, "default", "web"))["spec"]["replicas"])


async def events(plane: EmbeddedControlPlane) -> list[tuple[str, str, str]]:
    items = (await plane.api.list(EVENT, "default"))["items"]
    return [
        (e["type"], e["reason"], e["message"])
        for e in items
        if e["involvedObject"]["kind"] == "Deployment"
        and e["reason"] in ("LoadSet", "LoadRemoved", "InvalidLoad")
    ]


def on_plane(body: Any) -> Any:
    clock = VirtualClock(START)

    async def main() -> tuple[Any]:
        plane = EmbeddedControlPlane(clock, seed=3)
        task = asyncio.create_task(plane.run())
        try:
            await plane.wait_started()
            await plane.api.create(DEPLOYMENT, "default", deployment("web"))
            await plane.api.create(HPA, "default", cpu_hpa())
            return (await body(plane),)
        finally:
            plane.stop()
            await task

    result = run_virtual(main(), start=START, until=timedelta(hours=1))
    assert result is not None, "did not finish before the virtual deadline"
    return result[0]


def test_the_annotation_scales_the_hpa_up_and_its_removal_back_down() -> None:
    async def body(plane: EmbeddedControlPlane) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        await asyncio.sleep(120)
        seen["idle"] = await replicas(plane)
        await plane.api.patch(DEPLOYMENT, "default", "web", annotate(json.dumps(LOAD)))
        await asyncio.sleep(240)
        seen["loaded"] = await replicas(plane)
        seen["usage"] = plane.usage.offered_rate("Deployment", "default", "web", plane.clock.now())
        await plane.api.patch(DEPLOYMENT, "default", "web", annotate(None))
        # Every 5 s until idle: the metrics show the drop within two scrapes (60 s each),
        # then the window holds the high recommendation for WINDOW more seconds.
        timeline = []
        while (count := await replicas(plane)) > 1 and len(timeline) < 120:
            timeline.append(count)
            await asyncio.sleep(5)
        seen["holding"] = len(timeline) * 5
        seen["after"] = count
        seen["events"] = await events(plane)
        return seen

    seen = on_plane(body)
    assert seen["idle"] == 1
    assert seen["loaded"] == 5
    assert seen["usage"] == 25.0
    assert WINDOW <= seen["holding"] <= 2 * 60 + WINDOW + 30
    assert seen["after"] == 1
    assert seen["events"] == [
        ("Normal", "LoadSet", "Load set: constant 25 requests/s; per request/s: web 20m cpu"),
        ("Normal", "LoadRemoved", "Load removed: the pods idle"),
    ]


def test_a_bad_annotation_is_reported_and_the_plane_keeps_running() -> None:
    async def body(plane: EmbeddedControlPlane) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        bad = {"load": {"type": "constant", "rate": -1}, "containers": [{"name": "nginx"}]}
        await plane.api.patch(DEPLOYMENT, "default", "web", annotate(json.dumps(bad)))
        await asyncio.sleep(30)
        seen["bad"] = await events(plane)
        seen["loads"] = plane.usage.loads()
        await plane.api.patch(DEPLOYMENT, "default", "web", annotate(json.dumps(LOAD)))
        await asyncio.sleep(240)
        seen["loaded"] = await replicas(plane)
        return seen

    seen = on_plane(body)
    assert seen["bad"] == [
        (
            "Warning",
            "InvalidLoad",
            f'invalid load annotation "{LOAD_ANNOTATION}": '
            "[load.rate: Invalid value: -1: must be greater than or equal to 0]; "
            "the load is ignored and the pods idle",
        )
    ]
    assert seen["loads"] == []
    assert seen["loaded"] == 5  # the plane survived and a good value works
