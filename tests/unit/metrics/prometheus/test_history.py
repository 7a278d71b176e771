"""``PrometheusHistory``: queries rendered per series, ``query_range`` answers read as
step means, over a fake HTTP transport."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from podscale.history import Point, SeriesKey
from podscale.metrics.prometheus.errors import PrometheusError
from podscale.metrics.prometheus.history import (
    PrometheusHistory,
    parse_range_points,
    pod_regex,
)
from podscale.metrics.prometheus.template import TemplateError

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
CPU = SeriesKey("shop", "Deployment", "web", "cpu_usage")


def stamp(minutes: float) -> float:
    return (START + timedelta(minutes=minutes)).timestamp()


def matrix(*series: list[tuple[float, str]]) -> dict[str, Any]:
    return {
        "resultType": "matrix",
        "result": [
            {"metric": {"i": str(i)}, "values": [[stamp(m), v] for m, v in values]}
            for i, values in enumerate(series)
        ],
    }


@pytest.mark.parametrize(
    ("kind", "name", "expected"),
    [
        ("Deployment", "web", "web-[a-z0-9]+-[a-z0-9]+"),
        ("StatefulSet", "db", "db-[0-9]+"),
        ("ReplicaSet", "web.v2", r"web\.v2-[a-z0-9]+"),
    ],
    ids=["deployment", "statefulset", "other-kind-and-escaped-name"],
)
def test_pod_regex(kind: str, name: str, expected: str) -> None:
    assert pod_regex(kind, name) == expected


@pytest.mark.parametrize(
    ("data", "end", "expected"),
    [
        (
            matrix([(1, "0.5"), (2, "0.75"), (3, "1")]),
            START + timedelta(minutes=3),
            [Point(START, 0.5), Point(START + MINUTE, 0.75), Point(START + 2 * MINUTE, 1.0)],
        ),
        (
            matrix([(1, "1"), (2, "2")], [(2, "10"), (3, "20")]),
            START + timedelta(minutes=3),
            [Point(START, 1.0), Point(START + MINUTE, 12.0), Point(START + 2 * MINUTE, 20.0)],
        ),
        (
            matrix([(1, "NaN"), (2, "+Inf"), (3, "4")]),
            START + timedelta(minutes=3),
            [Point(START + 2 * MINUTE, 4.0)],
        ),
        (matrix([(0, "9"), (1, "1"), (5, "9")]), START + timedelta(minutes=3), [Point(START, 1.0)]),
        (matrix(), START + timedelta(minutes=3), []),
    ],
    ids=["one-series", "summed-per-step", "nan-and-inf-are-gaps", "outside-is-dropped", "empty"],
)
def test_parse_range_points(data: dict[str, Any], end: datetime, expected: list[Point]) -> None:
    assert parse_range_points(data, START, end, MINUTE) == expected


@pytest.mark.parametrize(
    "data",
    [
        {"resultType": "vector", "result": []},
        {"resultType": "matrix", "result": {}},
        {"resultType": "matrix", "result": [{"values": [[1.0]]}]},
        {"resultType": "matrix", "result": [{"values": [["x", "1"]]}]},
        {"resultType": "matrix", "result": [{"values": [[1.0, "one"]]}]},
    ],
    ids=["vector", "result-not-list", "short-pair", "bad-timestamp", "bad-value"],
)
def test_malformed_answers_are_errors(data: dict[str, Any]) -> None:
    with pytest.raises(PrometheusError):
        parse_range_points(data, START, START + MINUTE, MINUTE)


class Recorder:
    def __init__(self, answer: dict[str, Any], status: int = 200) -> None:
        self.answer = answer
        self.status = status
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(self.status, json=self.answer)


def history(recorder: Recorder, **options: Any) -> PrometheusHistory:
    return PrometheusHistory(
        "http://prometheus:9090", transport=httpx.MockTransport(recorder), **options
    )


def test_read_asks_query_range_at_step_ends_with_the_default_cpu_query() -> None:
    recorder = Recorder({"status": "success", "data": matrix([(1, "0.25"), (2, "0.5")])})
    points = history(recorder).read(CPU, START, START + 2 * MINUTE, MINUTE)
    assert points == [Point(START, 0.25), Point(START + MINUTE, 0.5)]
    (request,) = recorder.requests
    assert request.url.path == "/api/v1/query_range"
    params = request.url.params
    assert params["query"] == (
        'sum(rate(container_cpu_usage_seconds_total{namespace="shop",'
        'pod=~"web-[a-z0-9]+-[a-z0-9]+",container!=""}[120s]))'
    )
    assert (float(params["start"]), float(params["end"]), params["step"]) == (
        stamp(1),
        stamp(2),
        "60",
    )


def test_memory_default_and_an_hour_step_window() -> None:
    recorder = Recorder({"status": "success", "data": matrix([(60, "1e9")])})
    key = SeriesKey("shop", "StatefulSet", "db", "memory_usage")
    points = history(recorder).read(key, START, START + timedelta(minutes=30), timedelta(hours=1))
    assert points == [Point(START, 1e9)]
    params = recorder.requests[0].url.params
    assert params["query"] == (
        'sum(avg_over_time(container_memory_working_set_bytes{namespace="shop",'
        'pod=~"db-[0-9]+",container!=""}[3600s]))'
    )
    assert float(params["end"]) == stamp(60)


def test_configured_queries_replace_the_defaults_and_add_series() -> None:
    recorder = Recorder({"status": "success", "data": matrix([(1, "7")])})
    reader = history(
        recorder,
        queries={"metric/0/rps": 'sum(rate(http_requests_total{app="<<.Name>>"}[<<.Window>>]))'},
    )
    key = SeriesKey("shop", "Deployment", "web", "metric/0/rps")
    assert reader.read(key, START, START + MINUTE, MINUTE) == [Point(START, 7.0)]
    assert recorder.requests[0].url.params["query"] == (
        'sum(rate(http_requests_total{app="web"}[120s]))'
    )
    assert reader.series_names == {"cpu_usage", "memory_usage", "metric/0/rps"}


@pytest.mark.parametrize(
    ("key", "end"),
    [
        (SeriesKey("shop", "Deployment", "web", "metric/1/unknown"), START + MINUTE),
        (CPU, START),
    ],
    ids=["series-without-a-query", "empty-range"],
)
def test_nothing_to_ask_reads_empty_without_a_request(key: SeriesKey, end: datetime) -> None:
    recorder = Recorder({})
    assert history(recorder).read(key, START, end, MINUTE) == []
    assert recorder.requests == []


def test_a_refused_query_raises() -> None:
    recorder = Recorder({"status": "error", "errorType": "bad_data", "error": "parse error"}, 400)
    with pytest.raises(PrometheusError, match="parse error"):
        history(recorder).read(CPU, START, START + MINUTE, MINUTE)


def test_a_bad_template_fails_at_construction() -> None:
    with pytest.raises(TemplateError):
        PrometheusHistory("http://p:9090", {"cpu_usage": "sum(x{pod=~<<.Pod>>})"})


def test_a_step_must_be_positive() -> None:
    with pytest.raises(ValueError, match="step"):
        history(Recorder({})).read(CPU, START, START + MINUTE, timedelta(0))


def test_read_async_on_the_callers_loop() -> None:
    recorder = Recorder({"status": "success", "data": matrix([(1, "3")])})
    points = asyncio.run(history(recorder).read_async(CPU, START, START + MINUTE, MINUTE))
    assert [(p.at, math.isclose(p.value, 3.0)) for p in points] == [(START, True)]
