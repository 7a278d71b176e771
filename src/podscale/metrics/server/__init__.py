"""The metrics server: resource usage from the kubelets, served as metrics.k8s.io/v1beta1.

A reimplementation of kubernetes-sigs/metrics-server. Modules, bottom up: ``summary`` (the
kubelet Summary API subset and the ``KubeletStatsSource`` protocol), ``points`` (decoding a
summary into metric points), ``usage`` (a rate from two points), ``render`` (the PodMetrics /
NodeMetrics JSON), ``storage`` (the last two scrapes, pure; its
pairing of each new point with a stored one in ``pairing``), ``pause`` (the wait between
ticks), ``scraper`` (``MetricsServer``: the loop on the injected clock, and the API server's
``MetricsProvider``), ``fake`` (deterministic kubelets for tests).
"""

from podscale.metrics.server.fake import FakeKubeletStats, KubeletUnavailable
from podscale.metrics.server.points import MetricsBatch, MetricsPoint, decode_summary
from podscale.metrics.server.scraper import MetricsServer, ScrapeResult
from podscale.metrics.server.storage import (
    DEFAULT_RESOLUTION,
    FRESH_CONTAINER_MIN_AGE,
    MetricsStorage,
)
from podscale.metrics.server.summary import (
    ContainerStats,
    CPUStats,
    KubeletStatsSource,
    MemoryStats,
    NodeStats,
    NodeSummary,
    PodStats,
)
from podscale.metrics.server.usage import Usage, UsageError, compute_usage

__all__ = [
    "DEFAULT_RESOLUTION",
    "FRESH_CONTAINER_MIN_AGE",
    "CPUStats",
    "ContainerStats",
    "FakeKubeletStats",
    "KubeletStatsSource",
    "KubeletUnavailable",
    "MemoryStats",
    "MetricsBatch",
    "MetricsPoint",
    "MetricsServer",
    "MetricsStorage",
    "NodeStats",
    "NodeSummary",
    "PodStats",
    "ScrapeResult",
    "Usage",
    "UsageError",
    "compute_usage",
    "decode_summary",
]
