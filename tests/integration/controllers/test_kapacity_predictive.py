"""The IHPA's Dynamic Predictive portrait on an in-process API and virtual time.

Only the IHPA controller runs, with a memory history store holding three days of the
target's ``cpu_usage`` as the usage-history controller records it: 1 core, and 4 cores
every day from 12:00 to 13:00. A Predictive provider forecasting it with the seasonal
naive model (a day ahead, refit daily, 10-minute points, a 10-minute lead) at an
``averageValue`` of 500m per pod holds the ReplicaProfile at 2 online replicas in the
morning and raises it to 8 before noon, ahead of the peak, with no metric read; after
the peak it returns to 2. Without history the provider offers nothing and the IHPA says
``NoValidPortraitValue``.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any, Final

from podscale.controllers.kapacity.controller import IhpaController
from podscale.controllers.kapacity.kind import definition, replica_profile_definition
from podscale.controllers.manager import ControllerManager
from podscale.history import MemoryHistory, Point, SeriesKey

from .hpa_cluster import workload
from .test_kapacity_ihpa import CRD, DEPLOY, IHPA, START, Plane, ihpa, on_plane

JSON = dict[str, Any]
HOUR: Final = 3600
PREDICTIVE: Final[JSON] = {
    "type": "Dynamic",
    "priority": 0,
    "dynamic": {
        "portraitType": "Predictive",
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "AverageValue", "averageValue": "500m"},
                },
            }
        ],
        "algorithm": {
            "type": "ExternalJob",
            "config": {
                "model": "seasonalNaive",
                "historyLength": "72h",
                "sampleInterval": "10m",
                "predictionLength": "24h",
                "refreshInterval": "24h",
                "leadTime": "10m",
            },
        },
    },
}


def daily_peak(days: int) -> MemoryHistory:
    history = MemoryHistory()
    key = SeriesKey("default", "Deployment", "web", "cpu_usage")
    points = []
    for minute in range(days * 24 * 60):
        at = START - timedelta(minutes=minute + 1)
        points.append(Point(at, 4.0 if at.hour == 12 else 1.0))
    history.write(key, points)
    return history


class HistoryPlane(Plane):
    def __init__(self, history: MemoryHistory) -> None:
        super().__init__()
        self.history = history

    async def start(self) -> asyncio.Task[None]:
        await self.api.create(CRD, None, definition())
        await self.api.create(CRD, None, replica_profile_definition())
        manager = ControllerManager(self.api, self.clock)
        manager.register(IhpaController(self.api, self.clock, history=self.history))
        task = asyncio.create_task(manager.run())
        await manager.wait_started()
        return task


def test_predictive_portrait_raises_replicas_ahead_of_a_daily_peak() -> None:
    seen: dict[str, Any] = {}

    async def body(plane: Plane) -> None:
        await plane.api.create(DEPLOY, "default", workload("Deployment", "web", 2))
        await plane.api.create(IHPA, "default", ihpa([PREDICTIVE], minReplicas=1))
        await plane.sleep_to(5)
        seen["night"] = await plane.counts()
        seen["value"] = (await plane.ihpa())["status"]["currentPortraitValue"]
        await plane.sleep_to(11 * HOUR + 45 * 60)
        seen["before_noon"] = await plane.counts()
        await plane.sleep_to(11 * HOUR + 55 * 60)
        seen["ahead_of_peak"] = await plane.counts()
        await plane.sleep_to(12 * HOUR + 30 * 60)
        seen["peak"] = await plane.counts()
        await plane.sleep_to(13 * HOUR + 5 * 60)
        seen["after"] = await plane.counts()

    on_plane(body, plane=HistoryPlane(daily_peak(3)))
    assert seen["night"] == (2, 0, 0)
    assert seen["value"] == {
        "provider": "Dynamic-Predictive",
        "replicas": 2,
        "expireTime": "2026-03-01T00:10:00Z",
    }
    assert seen["before_noon"] == (2, 0, 0)
    assert seen["ahead_of_peak"] == (8, 0, 0)
    assert seen["peak"] == (8, 0, 0)
    assert seen["after"] == (2, 0, 0)


def test_predictive_portrait_without_history_offers_nothing() -> None:
    seen: dict[str, Any] = {}

    async def body(plane: Plane) -> None:
        await plane.api.create(DEPLOY, "default", workload("Deployment", "web", 2))
        await plane.api.create(IHPA, "default", ihpa([PREDICTIVE], minReplicas=1))
        await plane.sleep_to(5)
        seen["counts"] = await plane.counts()
        status = (await plane.ihpa())["status"]
        seen["active"] = next(c for c in status["conditions"] if c["type"] == "ScalingActive")

    on_plane(body, plane=HistoryPlane(MemoryHistory()))
    assert seen["counts"] is None
    assert seen["active"]["status"] == "False"
    assert seen["active"]["reason"] == "NoValidPortraitValue"
