"""The HPA controller's events go through client-go's correlator: a metrics API that keeps
failing gives one Event per reason whose ``count`` grows each sync period, and
``describe hpa`` shows it as ``(xN over ...)`` instead of N identical lines."""

from __future__ import annotations

import asyncio

import pytest

from podscale.cli.describe_hpa import describe_hpa

from .hpa_cluster import HPA, RS, SYNC, HpaCluster, hpa, replica_set, run_scenario

CAUSE = (
    "unable to get metrics for resource cpu: unable to fetch metrics from resource "
    "metrics API: metrics-server is down"
)


@pytest.mark.parametrize(
    ("syncs", "interval"),
    [(2, "2s (x2 over 17s)"), (5, "2s (x5 over 62s)"), (12, "2s (x12 over 2m47s)")],
    ids=["two", "five", "twelve"],
)
def test_repeated_metrics_failure_is_one_counted_event(syncs: int, interval: str) -> None:
    async def scenario(cluster: HpaCluster) -> tuple[list[tuple[str, int]], str]:
        await cluster.start()
        cluster.metrics.failing = "metrics-server is down"
        await cluster.api.create(RS, "default", replica_set("web", 2))
        await cluster.api.create(HPA, "default", hpa("web", "web"))
        # The first sync 15 s after the create, then one per sync period; read 2 s later.
        await asyncio.sleep(SYNC + 2 + (syncs - 1) * SYNC)
        events = await cluster.events("web")
        assert all(CAUSE in e["message"] for e in events)
        text = describe_hpa(await cluster.hpa("web"), events, cluster.clock.now())
        return sorted((e["reason"], int(e["count"])) for e in events), text

    counted, text = run_scenario(scenario)
    assert counted == [
        ("FailedComputeMetricsReplicas", syncs),
        ("FailedGetResourceMetric", syncs),
    ]
    rows = [line.split() for line in text.splitlines() if line.startswith("  Warning")]
    assert sorted(row[1] for row in rows) == [
        "FailedComputeMetricsReplicas",
        "FailedGetResourceMetric",
    ]
    assert all(interval in line for line in text.splitlines() if line.startswith("  Warning"))
