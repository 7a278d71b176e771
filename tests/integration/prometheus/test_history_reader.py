"""``PrometheusHistory`` against a real Prometheus scraping the test exporter: a configured
series reads the exporter's request rates back as per-step points of the workload's pods."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from podscale.history import SeriesKey
from podscale.metrics.prometheus.history import PrometheusHistory

from .harness import PrometheusServer

# The exporter's default-namespace pods web-1 (5/s) and web-2 (2/s) are a ReplicaSet "web"'s
# by their names; web.3 and webx3 are not.
RATE = 'sum(rate(http_requests_total{namespace="<<.Namespace>>",pod=~"<<.PodRegex>>"}[30s]))'


def test_a_configured_series_reads_the_pods_total_per_step(prometheus: PrometheusServer) -> None:
    reader = PrometheusHistory(prometheus.url, {"metric/0/requests": RATE})
    key = SeriesKey("default", "ReplicaSet", "web", "metric/0/requests")
    end = datetime.now(UTC).replace(microsecond=0)
    step = timedelta(seconds=5)
    # The last 10 s: their 30 s rate windows lie inside the data the harness waited for.
    points = reader.read(key, end - timedelta(seconds=10), end, step)
    assert len(points) == 2
    assert all(b.at - a.at == step for a, b in itertools.pairwise(points))
    assert all(6.0 <= point.value <= 8.0 for point in points), points


def test_a_workload_without_pods_reads_empty(prometheus: PrometheusServer) -> None:
    reader = PrometheusHistory(prometheus.url, {"cpu_usage": RATE})
    key = SeriesKey("default", "Deployment", "absent", "cpu_usage")
    end = datetime.now(UTC)
    assert reader.read(key, end - timedelta(seconds=20), end, timedelta(seconds=5)) == []
