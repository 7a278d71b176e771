"""A restarted PHPA controller continues from the state store, as the HPA controller does.

The PHPA controller is the HPA controller on another kind: given the plane's history store
it keeps the engine's recommendations under the PHPA's uid (``hpa/history``), so the
downscale stabilization window survives a restart, and the summary of each series' last
fit (``phpa/model``). The forecasts are not stored: the restarted controller refits at its
first sync, and ``status.prediction.fittedAt`` names that fit. Without a store it forgets
everything, as upstream's HPA controller does. Same timeline as ``test_hpa_restart``.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from podscale.api.kinds import kind_for
from podscale.api.timestamps import parse_time
from podscale.controllers.hpa import HorizontalPodAutoscalerController, MetricsClient
from podscale.controllers.phpa.controller import (
    MODEL_STATE,
    PHPA,
    PredictiveHorizontalPodAutoscalerController,
)
from podscale.controllers.phpa.forecasting import Fitted
from podscale.controllers.phpa.kind import definition
from podscale.forecast.types import Forecast, Series
from podscale.history import MemoryHistory, Point, SeriesKey
from podscale.hpa import Config

from .hpa_cluster import RS, HpaCluster, hpa, replica_set, run_scenario

CRD = kind_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
SERIES = SeriesKey("default", "ReplicaSet", "web", "cpu_usage")
FITS: list[str] = []


def flat(history: Series, horizon: int, algorithm: str) -> Fitted:
    """A constant forecast of the load the pods report (5 x 10m), counting the fits."""
    FITS.append(algorithm)
    mean = np.full(horizon, 0.05)
    forecast = Forecast("flat", history.end, history.step, mean, np.zeros(horizon))
    return Fitted(forecast, "flat", 0.01, "ForecastAvailable", "flat")


def phpa_controller(
    api: Any,
    clock: Any,
    metrics: MetricsClient,
    config: Config | None,
    state: MemoryHistory | None,
) -> HorizontalPodAutoscalerController:
    return PredictiveHorizontalPodAutoscalerController(
        api,
        clock,
        metrics,
        history=state,
        config=config,
        fit=flat,
        correct=lambda _forecast, _recent, _at: None,
    )


def phpa(name: str) -> dict[str, Any]:
    body = hpa(name, name)
    body["apiVersion"] = PHPA.api_version
    body["kind"] = PHPA.kind
    body["spec"]["prediction"] = {}
    return body


def fitted_at(obj: dict[str, Any]) -> float:
    return parse_time(obj["status"]["prediction"]["fittedAt"]).timestamp()


@pytest.mark.parametrize(
    ("persist", "still_five_for", "down_by"),
    # As test_hpa_restart: the first sync (S) seeds 5, kept by the window until S+300;
    # restarted at S+101, down at S+311 with the stored history, at S+431 without.
    [(True, 290, 320), (False, 410, 440)],
    ids=["persisted-window-continues", "in-memory-window-restarts"],
)
def test_restart_during_the_downscale_window(
    persist: bool, still_five_for: float, down_by: float
) -> None:
    FITS.clear()

    async def scenario(cluster: HpaCluster) -> None:
        # A day of the workload's CPU, as the usage recorder would have written it.
        now = cluster.clock.now().replace(second=0, microsecond=0)
        cluster.history.write(
            SERIES, [Point(now - timedelta(minutes=i), 0.05) for i in range(1, 24 * 60)]
        )
        await cluster.api.create(CRD, None, definition())
        await cluster.start()
        cluster.metrics.usage["web"] = "10m"  # wants 1 replica from the start
        await cluster.api.create(RS, "default", replica_set("web", 5))
        await cluster.api.create(PHPA, "default", phpa("web"))
        await asyncio.sleep(16)
        first_sync = cluster.clock.elapsed() - 1
        before = await cluster.api.get(PHPA, "default", "web")
        await asyncio.sleep(100)
        await cluster.stop()
        restarted = cluster.clock.now().timestamp()
        await cluster.start()
        await asyncio.sleep(first_sync + still_five_for - cluster.clock.elapsed())
        assert await cluster.replicas("web") == 5
        after = await cluster.api.get(PHPA, "default", "web")
        stored = cluster.history.state_of(after["metadata"]["uid"])
        if persist:
            # Fitted at the first sync (a second or so before ``before`` was read), then
            # refit at the restarted controller's first sync and reported as such.
            assert 0 < restarted - 100 - fitted_at(before) <= 2
            assert len(FITS) == 2
            refit = fitted_at(after)
            assert restarted < refit <= restarted + 16
            assert after["status"]["prediction"]["model"] == "flat"
            summary = stored[MODEL_STATE]["series"]["cpu_usage"]
            assert parse_time(summary["fittedAt"]).timestamp() == refit
            assert (summary["model"], summary["reason"]) == ("flat", "ForecastAvailable")
            # Written once per fit, not at every sync.
            puts = [name for _, name in cluster.history.puts if name == MODEL_STATE]
            assert len(puts) == 2
        else:  # no store: neither state nor series (nothing to forecast from)
            assert stored == {}
            assert FITS == []
            ready = {c["type"]: c for c in after["status"]["conditions"]}["PredictionReady"]
            assert ready["reason"] == "HistoryUnavailable"
        await asyncio.sleep(first_sync + down_by - cluster.clock.elapsed())
        assert await cluster.replicas("web") == 1

    run_scenario(scenario, persist_history=persist, autoscaler=phpa_controller)
