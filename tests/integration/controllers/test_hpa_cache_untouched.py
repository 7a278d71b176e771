"""The HPA controller syncs a shallow copy of its informer's cached HPA (only the copy's
apiVersion and kind are set), so no sync may change the cached object or anything in it,
nor the cached pods it decides from: every sync of a scale-up, a stabilized scale-down,
a metrics outage and a failed rescale is checked against snapshots."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import pytest

from podscale.api.json_copy import copy_json
from podscale.controllers.hpa import HorizontalPodAutoscalerController

from .hpa_cluster import HPA, RS, SYNC, HpaCluster, hpa, replica_set, run_scenario

JSON = dict[str, Any]


class _CheckingController(HorizontalPodAutoscalerController):
    """Snapshots every cached HPA and Pod around each sync."""

    changed: ClassVar[list[str]] = []
    syncs: ClassVar[int] = 0

    async def reconcile(self, key: str) -> None:
        _, hpas, pods = self._bound()
        cached = [*hpas.list("default"), *pods.list("default")]
        before = [(obj, copy_json(obj)) for obj in cached]
        try:
            await super().reconcile(key)
        finally:
            type(self).syncs += 1
            for obj, snapshot in before:
                if obj != snapshot:
                    type(self).changed.append(f"{key}: {obj['metadata']['name']}")


def _checking(api: Any, clock: Any, metrics: Any, config: Any, state: Any) -> Any:
    return _CheckingController(api, clock, metrics, config=config, history=state)


def test_no_sync_changes_a_cached_object(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_CheckingController, "changed", [])
    monkeypatch.setattr(_CheckingController, "syncs", 0)

    async def scenario(cluster: HpaCluster) -> list[str]:
        await cluster.start()
        cluster.metrics.usage["web"] = "150m"
        await cluster.api.create(RS, "default", replica_set("web", 1))
        await asyncio.sleep(5)
        await cluster.api.create(HPA, "default", hpa("web", "web"))
        await asyncio.sleep(3 * SYNC)  # 1 -> 3 -> 5: events, status writes, rescales
        cluster.metrics.failing = "metrics down"
        await asyncio.sleep(2 * SYNC)  # FailedGetResourceMetric
        cluster.metrics.failing = None
        cluster.counting.fail_scale_updates = 1
        cluster.metrics.usage["web"] = "10m"
        await asyncio.sleep(400)  # stabilized, then a failed rescale, then down to 1
        return await cluster.reasons("web")

    reasons = run_scenario(scenario, autoscaler=_checking)
    assert _CheckingController.syncs > 20
    assert _CheckingController.changed == []
    # The scenario did reach every step.
    assert {"SuccessfulRescale", "FailedGetResourceMetric", "FailedRescale"} <= set(reasons)
