"""KEDA's prometheus scaler against a real Prometheus scraping the test exporter: a gauge
reads back with its activation threshold, several series are KEDA's error, NaN reads 0."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from podscale.controllers.keda.scalers.base import ScalerError, ScalerReading
from podscale.controllers.keda.scalers.prometheus import PrometheusScaler
from podscale.controllers.keda.triggers.prometheus import PrometheusTrigger
from podscale.controllers.keda.triggers.registry import parse_trigger

from .harness import PrometheusServer


def _read(server: PrometheusServer, query: str, **metadata: str) -> ScalerReading:
    spec = parse_trigger(
        0,
        {
            "type": "prometheus",
            "metadata": {
                "serverAddress": server.url,
                "query": query,
                "threshold": "10",
                **metadata,
            },
        },
    )
    assert isinstance(spec.details, PrometheusTrigger)
    trigger = spec.details

    async def run() -> ScalerReading:
        scaler = PrometheusScaler(trigger)
        try:
            # The real clock: the exporter's samples are in Prometheus's present.
            return await scaler.read(datetime.now(UTC))
        finally:
            await scaler.close()

    return asyncio.run(run())


def test_a_scraped_gauge_reads_back_with_its_activation(prometheus: PrometheusServer) -> None:
    query = 'queue_depth{queue="jobs"}'
    assert _read(prometheus, query, activationThreshold="41") == ScalerReading(42.0, True)
    assert _read(prometheus, query, activationThreshold="42") == ScalerReading(42.0, False)


def test_several_series_are_keda_s_error(prometheus: PrometheusServer) -> None:
    with pytest.raises(ScalerError, match=r"returned multiple elements$"):
        _read(prometheus, "queue_depth")


def test_nan_and_no_series_read_zero_unless_nulls_are_refused(
    prometheus: PrometheusServer,
) -> None:
    assert _read(prometheus, "broken_ratio") == ScalerReading(0.0, False)
    assert _read(prometheus, "absent_metric") == ScalerReading(0.0, False)
    with pytest.raises(ScalerError, match=r"^prometheus query returns NaN$"):
        _read(prometheus, "broken_ratio", ignoreNullValues="false")
