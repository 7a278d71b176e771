"""``render``: PodMetrics / NodeMetrics JSON as metrics-server marshals it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from podscale.metrics.server.render import (
    format_go_duration,
    render_node_metrics,
    render_pod_metrics,
    render_usage,
)
from podscale.metrics.server.usage import Usage

NOW = datetime(2026, 1, 1, 12, 0, 30, 500_000, tzinfo=UTC)
SAMPLED = datetime(2026, 1, 1, 12, 0, 15, 250_000, tzinfo=UTC)
WINDOW = timedelta(seconds=15)


@pytest.mark.parametrize(
    ("duration", "text"),
    [
        (timedelta(0), "0s"),
        (timedelta(seconds=15), "15s"),
        (timedelta(seconds=14, microseconds=500_000), "14.5s"),
        (timedelta(seconds=60), "1m0s"),
        (timedelta(seconds=90, microseconds=250_000), "1m30.25s"),
        (timedelta(hours=1), "1h0m0s"),
        (timedelta(hours=25, minutes=2, seconds=3), "25h2m3s"),
        (timedelta(milliseconds=500), "500ms"),
        (timedelta(microseconds=1_500), "1.5ms"),
        (timedelta(microseconds=7), "7µs"),
        (timedelta(seconds=-15), "-15s"),
    ],
    ids=[
        "zero",
        "15s",
        "fraction",
        "minute",
        "minute-fraction",
        "hour",
        "day",
        "ms",
        "ms-frac",
        "us",
        "negative",
    ],
)
def test_go_duration_strings(duration: timedelta, text: str) -> None:
    assert format_go_duration(duration) == text


@pytest.mark.parametrize(
    ("nanocores", "memory", "expected"),
    [
        (250_000_000, 64 * 1024**2, {"cpu": "250m", "memory": "64Mi"}),
        (123_456_789, 1536, {"cpu": "123456789n", "memory": "1536"}),
        (0, 1000, {"cpu": "0", "memory": "1k"}),
        (2_000_000_000, 3 * 1024**3, {"cpu": "2", "memory": "3Gi"}),
        (1_500_000, 5 * 1024 + 1, {"cpu": "1500u", "memory": "5121"}),
    ],
    ids=["quarter-core", "odd", "zero-and-small", "whole", "micro"],
)
def test_usage_quantities(nanocores: int, memory: int, expected: dict[str, str]) -> None:
    assert render_usage(Usage(nanocores, memory, SAMPLED, WINDOW)) == expected


def test_pod_metrics_take_time_and_window_of_the_earliest_container() -> None:
    early = Usage(250_000_000, 64 * 1024**2, SAMPLED, timedelta(seconds=12))
    late = Usage(5_000_000, 1024**2, SAMPLED + timedelta(seconds=1), WINDOW)
    item = render_pod_metrics(
        "default", "web-1", {"app": "web"}, NOW, [("side", late), ("web", early)]
    )
    assert item == {
        "metadata": {
            "name": "web-1",
            "namespace": "default",
            "creationTimestamp": "2026-01-01T12:00:30Z",
            "labels": {"app": "web"},
        },
        "timestamp": "2026-01-01T12:00:15Z",
        "window": "12s",
        "containers": [
            {"name": "side", "usage": {"cpu": "5m", "memory": "1Mi"}},
            {"name": "web", "usage": {"cpu": "250m", "memory": "64Mi"}},
        ],
    }


def test_a_pod_without_usable_containers_has_go_zero_time() -> None:
    item = render_pod_metrics("ns", "p", {}, NOW, [])
    assert item["metadata"] == {
        "name": "p",
        "namespace": "ns",
        "creationTimestamp": "2026-01-01T12:00:30Z",
    }
    assert (item["timestamp"], item["window"], item["containers"]) == (None, "0s", [])


def test_node_metrics() -> None:
    usage = Usage(1_000_000_000, 2 * 1024**3, SAMPLED, WINDOW)
    assert render_node_metrics("node-a", {}, NOW, usage) == {
        "metadata": {"name": "node-a", "creationTimestamp": "2026-01-01T12:00:30Z"},
        "timestamp": "2026-01-01T12:00:15Z",
        "window": "15s",
        "usage": {"cpu": "1", "memory": "2Gi"},
    }
