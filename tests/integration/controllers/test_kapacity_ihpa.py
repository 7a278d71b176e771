"""The IHPA controller on an in-process API and virtual time: the ReplicaProfile it keeps.

Only the IHPA controller runs (``controllers.kapacity.controller.IhpaController``): it
never touches pods or ``/scale``, so the tests read the ReplicaProfile's spec, the IHPA's
status and its events. Static 3 creates the profile; Static 1 with a Cutoff gray strategy
of 50% every 60 s goes (2, 1) at once, (1, 2) a minute later, then (1, 0) after the
observation; Preview deletes the profile and still reports the value; a Cron rule of
higher priority wins inside its window and the Static value comes back at its end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from podscale.api.kinds import kind_for
from podscale.apiserver.registry.bootstrap import ensure_system_namespaces
from podscale.apiserver.state import ServerState
from podscale.client.http import ApiError
from podscale.client.inprocess import InProcessApi
from podscale.controllers.kapacity.controller import IhpaController
from podscale.controllers.kapacity.kind import (
    IHPA,
    REPLICA_PROFILE,
    definition,
    replica_profile_definition,
)
from podscale.controllers.manager import ControllerManager
from podscale.hpa.types import MetricsUnavailable, PodMetric
from podscale.runtime import VirtualClock, run_virtual
from podscale.store.memory import MemoryStore

from .hpa_cluster import workload

JSON = dict[str, Any]
CRD: Final = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
EVENT: Final = kind_for("v1", "Event")
DEPLOY: Final = kind_for("apps/v1", "Deployment")
START: Final = datetime(2026, 3, 1, tzinfo=UTC)
MERGE: Final = "application/merge-patch+json"
STATIC_3: Final[JSON] = {"type": "Static", "priority": 0, "static": {"replicas": 3}}
GRAY_DOWN: Final[JSON] = {
    "scaleDown": {
        "grayStrategy": {
            "grayState": "Cutoff",
            "changeIntervalSeconds": 60,
            "changePercent": 50,
            "observationSeconds": 30,
        }
    }
}


def ihpa(providers: list[JSON], **spec: Any) -> JSON:
    return {
        "apiVersion": "autoscaling.kapacitystack.io/v1alpha1",
        "kind": "IntelligentHorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 0,
            "maxReplicas": 10,
            "portraitProviders": providers,
            **spec,
        },
    }


class QueueMetrics:
    """A ``MetricsClient`` serving one external metric, ``queue``, whose value tests set."""

    def __init__(self) -> None:
        self.milli = 0
        self.asked = 0

    async def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        raise MetricsUnavailable("no resource metrics here")

    async def pods_metric(
        self, metric_name: str, namespace: str, selector: str, metric_selector: JSON | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        raise MetricsUnavailable("no pods metrics here")

    async def object_metric(
        self, metric_name: str, namespace: str, described_object: JSON, metric_selector: JSON | None
    ) -> tuple[int, datetime]:
        raise MetricsUnavailable("no object metrics here")

    async def external_metric(
        self, metric_name: str, namespace: str, metric_selector: JSON | None
    ) -> tuple[list[int], datetime]:
        self.asked += 1
        if metric_name != "queue":
            raise MetricsUnavailable(f"no metric {metric_name}")
        return [self.milli], START


class Plane:
    def __init__(self, metrics: QueueMetrics | None = None) -> None:
        self.metrics = metrics
        self.clock = VirtualClock(START)
        self.store = MemoryStore(self.clock)
        ensure_system_namespaces(self.store)
        self.api = InProcessApi(ServerState(store=self.store, clock=self.clock))

    async def start(self) -> asyncio.Task[None]:
        await self.api.create(CRD, None, definition())
        await self.api.create(CRD, None, replica_profile_definition())
        manager = ControllerManager(self.api, self.clock)
        manager.register(IhpaController(self.api, self.clock, self.metrics))
        task = asyncio.create_task(manager.run())
        await manager.wait_started()
        return task

    async def sleep_to(self, seconds: float) -> None:
        await asyncio.sleep((START + timedelta(seconds=seconds) - self.clock.now()).total_seconds())

    async def counts(self) -> tuple[int, int, int] | None:
        try:
            rp = await self.api.get(REPLICA_PROFILE, "default", "web")
        except ApiError as err:
            if err.status != 404:
                raise
            return None
        spec = rp["spec"]
        return (spec["onlineReplicas"], spec["cutoffReplicas"], spec["standbyReplicas"])

    async def ihpa(self) -> JSON:
        return await self.api.get(IHPA, "default", "web")

    async def patch_spec(self, spec: JSON) -> None:
        await self.api.patch(IHPA, "default", "web", {"spec": spec}, content_type=MERGE)

    async def reasons(self) -> list[str]:
        items = (await self.api.list(EVENT, "default"))["items"]
        ordered = sorted(items, key=lambda e: e["metadata"]["creationTimestamp"])
        return [e["reason"] for e in ordered if e["involvedObject"]["kind"] == IHPA.kind]


def on_plane(
    body: Callable[[Plane], Awaitable[None]],
    metrics: QueueMetrics | None = None,
    *,
    plane: Plane | None = None,
) -> None:
    async def main() -> bool:
        nonlocal plane
        plane = plane or Plane(metrics)
        task = await plane.start()
        try:
            await body(plane)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return True

    assert run_virtual(main(), start=START, until=timedelta(days=1)), "did not finish"


def test_static_then_gray_scale_down_steps_then_preview() -> None:
    seen: dict[str, Any] = {}

    async def body(plane: Plane) -> None:
        await plane.api.create(IHPA, "default", ihpa([STATIC_3]))
        await plane.sleep_to(5)
        seen["created"] = await plane.counts()
        one = {"type": "Static", "priority": 0, "static": {"replicas": 1}}
        await plane.patch_spec({"portraitProviders": [one], "behavior": GRAY_DOWN})
        await plane.sleep_to(10)
        seen["first_step"] = await plane.counts()
        status = (await plane.ihpa())["status"]
        seen["values"] = (
            status["previousPortraitValue"]["replicas"],
            status["currentPortraitValue"]["replicas"],
            status["gray"]["grayPercent"],
        )
        seen["progressing"] = {c["type"]: c["reason"] for c in status["conditions"]}
        await plane.sleep_to(68)
        seen["second_step"] = await plane.counts()
        await plane.sleep_to(100)
        seen["observed"] = await plane.counts()
        await plane.patch_spec({"scaleMode": "Preview"})
        await plane.sleep_to(105)
        seen["preview"] = await plane.counts()
        preview = (await plane.ihpa())["status"]
        seen["preview_value"] = preview["currentPortraitValue"]["replicas"]
        seen["reasons"] = await plane.reasons()

    on_plane(body)
    assert seen["created"] == (3, 0, 0)
    assert seen["first_step"] == (2, 1, 0)
    assert seen["values"] == (3, 1, 50)
    assert seen["progressing"]["GrayProgressing"] == "ReplicasNotMatchPortrait"
    assert seen["progressing"]["ScalingActive"] == "SucceededAutoscaling"
    assert seen["second_step"] == (1, 2, 0)
    assert seen["observed"] == (1, 0, 0)
    assert seen["preview"] is None
    assert seen["preview_value"] == 1
    assert seen["reasons"].count("UpdateReplicaProfile") == 3
    assert seen["reasons"][0] == "CreateReplicaProfile"


def test_cron_of_higher_priority_wins_inside_its_window() -> None:
    seen: dict[str, Any] = {}
    cron = {
        "type": "Cron",
        "priority": 1,
        "cron": {
            "crons": [{"name": "busy", "start": "0 1 * * *", "end": "0 2 * * *", "replicas": 7}]
        },
    }

    async def body(plane: Plane) -> None:
        await plane.api.create(IHPA, "default", ihpa([STATIC_3, cron]))
        await plane.sleep_to(5)
        seen["before"] = await plane.counts()
        await plane.sleep_to(3600 + 5)
        seen["inside"] = await plane.counts()
        seen["provider"] = (await plane.ihpa())["status"]["currentPortraitValue"]
        await plane.sleep_to(7200 + 5)
        seen["after"] = await plane.counts()

    on_plane(body)
    assert seen["before"] == (3, 0, 0)
    assert seen["inside"] == (7, 0, 0)
    assert seen["provider"] == {
        "provider": "Cron",
        "replicas": 7,
        "expireTime": "2026-03-01T02:00:00Z",
    }
    assert seen["after"] == (3, 0, 0)


def test_dynamic_reactive_follows_the_metric_every_sync_period() -> None:
    metrics = QueueMetrics()
    metrics.milli = 70_000  # 70 messages, 10 per replica: 7
    seen: dict[str, Any] = {}
    reactive = {
        "type": "Dynamic",
        "priority": 0,
        "dynamic": {
            "portraitType": "Reactive",
            "metrics": [
                {
                    "type": "External",
                    "external": {
                        "metric": {"name": "queue"},
                        "target": {"type": "AverageValue", "averageValue": "10"},
                    },
                }
            ],
            "algorithm": {"type": "KubeHPA", "kubeHPA": {"syncPeriod": "15s"}},
        },
    }

    async def body(plane: Plane) -> None:
        await plane.api.create(DEPLOY, "default", workload("Deployment", "web", 2))
        await plane.api.create(IHPA, "default", ihpa([reactive]))
        await plane.sleep_to(5)
        seen["busy"] = await plane.counts()
        seen["value"] = (await plane.ihpa())["status"]["currentPortraitValue"]
        metrics.milli = 20_000
        await plane.sleep_to(25)
        seen["quiet"] = await plane.counts()
        seen["asked"] = metrics.asked

    on_plane(body, metrics)
    assert seen["busy"] == (7, 0, 0)
    assert seen["value"] == {"provider": "Dynamic-Reactive", "replicas": 7}
    assert seen["quiet"] == (2, 0, 0)
    assert seen["asked"] == 2  # once per sync period, not per reconcile


def test_rollback_checker_undoes_a_gray_change_then_it_restarts_after_cool_down() -> None:
    metrics = QueueMetrics()
    seen: dict[str, Any] = {}
    checker = {
        "type": "Metrics",
        "stabilizationAction": "Rollback",
        "coolDownSeconds": 120,
        "metrics": {
            "metrics": [
                {
                    "type": "External",
                    "external": {
                        "metric": {"name": "queue"},
                        "target": {"type": "Value", "value": "100"},
                    },
                }
            ]
        },
    }
    four = {"type": "Static", "priority": 0, "static": {"replicas": 4}}

    async def body(plane: Plane) -> None:
        await plane.api.create(DEPLOY, "default", workload("Deployment", "web", 4))
        await plane.api.create(IHPA, "default", ihpa([four], stabilityCheckers=[checker]))
        await plane.sleep_to(5)
        seen["created"] = await plane.counts()
        seen["asked_outside_gray"] = metrics.asked
        one = {"type": "Static", "priority": 0, "static": {"replicas": 1}}
        await plane.patch_spec({"portraitProviders": [one], "behavior": GRAY_DOWN})
        await plane.sleep_to(15)
        seen["first_step"] = await plane.counts()
        metrics.milli = 200_000  # 200 > 100: the checker sees an anomaly
        await plane.sleep_to(45)
        seen["rolled_back"] = await plane.counts()
        seen["gray"] = (await plane.ihpa())["status"]["gray"]["grayPercent"]
        metrics.milli = 0
        await plane.sleep_to(120)
        seen["cooling_down"] = await plane.counts()
        await plane.sleep_to(200)
        seen["restarted"] = await plane.counts()
        await plane.sleep_to(400)
        seen["done"] = await plane.counts()
        seen["reasons"] = await plane.reasons()

    on_plane(body, metrics)
    assert seen["created"] == (4, 0, 0)
    assert seen["asked_outside_gray"] == 0
    assert seen["first_step"] == (3, 1, 0)
    assert seen["rolled_back"] == (4, 0, 0)
    assert seen["gray"] == 0
    assert seen["cooling_down"] == (4, 0, 0)
    assert seen["restarted"] == (3, 1, 0)
    assert seen["done"] == (1, 0, 0)
    assert seen["reasons"].count("GrayRolledBack") == 1
