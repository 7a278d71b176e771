"""Both metrics clients give the same answers and the same errors for the same cluster.

``RestMetricsClient`` goes through the real API server app (over httpx's ASGI transport,
no sockets) and ``InProcessMetricsClient`` reads the same providers directly; every case
is asked of both. A recording transport checks the URLs the REST client requests.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from podscale.apiserver.http.app import create_app
from podscale.apiserver.metricsapis.pod_usage import PodUsageReader
from podscale.apiserver.state import ServerState
from podscale.client.http import HttpApi
from podscale.client.kubeconfig import Connection
from podscale.controllers.hpa import InProcessMetricsClient, MetricsClient, RestMetricsClient
from podscale.controllers.hpa.metrics_inprocess import _usage_reader
from podscale.hpa.types import MetricsUnavailable, PodMetric
from podscale.metrics.push import PushMetricsProvider
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
STAMP = "2026-03-01T10:00:00Z"
Query = Callable[[MetricsClient], Awaitable[Any]]


class PodMetricsSource:
    """metrics.k8s.io data: pods ``web-0`` (two containers) and ``web-1``, ``db-0``."""

    def pod_metrics(self, namespace: str | None) -> list[dict[str, Any]]:
        def item(name: str, app: str, *usage: tuple[str, str]) -> dict[str, Any]:
            return {
                "metadata": {"name": name, "namespace": "ns", "labels": {"app": app}},
                "timestamp": STAMP,
                "window": "15s",
                "containers": [{"name": c, "usage": {"cpu": cpu}} for c, cpu in usage],
            }

        items = [
            item("web-0", "web", ("c", "200m"), ("side", "50m")),
            item("web-1", "web", ("c", "300m"), ("side", "10m")),
            item("db-0", "db", ("c", "1")),
        ]
        return items if namespace in (None, "ns") else []

    def node_metrics(self) -> list[dict[str, Any]]:
        return []


def make_state(*, with_providers: bool = True) -> ServerState:
    clock = FakeClock(NOW)
    store = MemoryStore(clock)
    push = PushMetricsProvider(clock, ttl=None)
    push.set_pod_metric("ns", "web-0", "rps", "10", window_seconds=30)
    push.set_pod_metric("ns", "web-1", "rps", "30", window_seconds=30)
    push.set_custom_metric("services", "ns", "front", "hits", "2500m")
    push.set_custom_metric("namespaces", None, "ns", "load", "7")
    push.set_external_metric("ns", "queue", "12", labels={"queue": "a"})
    push.set_external_metric("ns", "queue", "30", labels={"queue": "b"})
    if not with_providers:
        return ServerState(store=store, clock=clock)
    return ServerState(
        store=store,
        clock=clock,
        metrics_provider=PodMetricsSource(),
        custom_metrics_provider=push,
        external_metrics_provider=push,
    )


async def ask_both(state: ServerState, query: Query) -> tuple[Any, Any]:
    """``query`` answered by both clients: (rest, in-process); an error as its text."""
    app = create_app(
        state.store,
        clock=state.clock,
        metrics_provider=state.metrics_provider,
        custom_metrics_provider=state.custom_metrics_provider,
        external_metrics_provider=state.external_metrics_provider,
    )
    transport = httpx.ASGITransport(app=app)
    async with HttpApi(Connection(server="http://podscale"), transport=transport) as http:
        answers = []
        for client in (RestMetricsClient(http), InProcessMetricsClient(state)):
            try:
                answers.append(await query(client))
            except MetricsUnavailable as err:
                answers.append(f"error: {err}")
    return answers[0], answers[1]


def pm(value: int, window: float = 15) -> PodMetric:
    return PodMetric(value, NOW, timedelta(seconds=window))


CASES: list[tuple[str, Query, Any]] = [
    (
        "resource-summed",
        lambda c: c.resource_metric("cpu", "ns", "app=web", None),
        ({"web-0": pm(250), "web-1": pm(310)}, NOW),
    ),
    (
        "resource-container",
        lambda c: c.resource_metric("cpu", "ns", "app=web", "side"),
        ({"web-0": pm(50), "web-1": pm(10)}, NOW),
    ),
    (
        "resource-set-selector",
        lambda c: c.resource_metric("cpu", "ns", "app in (db)", None),
        ({"db-0": pm(1000)}, NOW),
    ),
    (
        "resource-nothing",
        lambda c: c.resource_metric("cpu", "ns", "app=none", None),
        "error: no metrics returned from resource metrics API",
    ),
    (
        "resource-container-missing",
        lambda c: c.resource_metric("cpu", "ns", "app=db", "side"),
        "error: failed to get container metrics: container side not present in metrics for "
        "pod ns/db-0",
    ),
    (
        "pods",
        lambda c: c.pods_metric("rps", "ns", "app=web", None),
        ({"web-0": pm(10_000, 30), "web-1": pm(30_000, 30)}, NOW),
    ),
    (
        "pods-unknown",
        lambda c: c.pods_metric("nope", "ns", "app=web", None),
        "error: unable to fetch metrics from custom metrics API: the server could not find "
        "the metric nope for pods",
    ),
    (
        "object",
        lambda c: c.object_metric(
            "hits", "ns", {"apiVersion": "v1", "kind": "Service", "name": "front"}, None
        ),
        (2500, NOW),
    ),
    (
        "object-namespace",
        lambda c: c.object_metric(
            "load", "ns", {"apiVersion": "v1", "kind": "Namespace", "name": "other"}, None
        ),
        (7000, NOW),
    ),
    (
        "external-all",
        lambda c: c.external_metric("queue", "ns", None),
        ([12_000, 30_000], NOW),
    ),
    (
        "external-selected",
        lambda c: c.external_metric("queue", "ns", {"matchLabels": {"queue": "b"}}),
        ([30_000], NOW),
    ),
    (
        "external-unknown",
        lambda c: c.external_metric("nope", "ns", None),
        "error: unable to fetch metrics from external metrics API: the server could not find "
        "the metric nope for namespaces",
    ),
]


@pytest.mark.parametrize(("query", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_clients_agree(query: Query, expected: Any) -> None:
    rest, inprocess = asyncio.run(ask_both(make_state(), query))
    if isinstance(expected, tuple) and isinstance(expected[1], datetime):
        # Pushed custom/external samples are stamped by the provider's clock (NOW).
        assert rest == inprocess == expected
    else:
        assert rest == inprocess
        assert rest == expected


@pytest.mark.parametrize(
    ("query", "api"),
    [
        (lambda c: c.resource_metric("cpu", "ns", "app=web", None), "resource"),
        (lambda c: c.pods_metric("rps", "ns", "app=web", None), "custom"),
        (lambda c: c.external_metric("queue", "ns", None), "external"),
    ],
    ids=["resource", "custom", "external"],
)
def test_an_unserved_metrics_api(query: Query, api: str) -> None:
    rest, inprocess = asyncio.run(ask_both(make_state(with_providers=False), query))
    assert (
        rest
        == inprocess
        == (
            f"error: unable to fetch metrics from {api} metrics API: the server could not find the "
            "requested resource"
        )
    )


class Recorder:
    """A transport that records each request and answers with one empty item list."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str] | None]] = []

    async def request(
        self, method: str, path: str, *, params: dict[str, str] | None = None
    ) -> dict[str, Any]:
        self.requests.append((method, path, params))
        return {"items": [{"value": "1", "metadata": {"name": "x"}, "timestamp": STAMP}]}


@pytest.mark.parametrize(
    ("query", "path", "params"),
    [
        (
            lambda c: c.resource_metric("cpu", "ns", "tier=a,app=web", None),
            "/apis/metrics.k8s.io/v1beta1/namespaces/ns/pods",
            {"labelSelector": "app=web,tier=a"},
        ),
        (
            lambda c: c.pods_metric("rps", "ns", "app=web", {"matchLabels": {"v": "1"}}),
            "/apis/custom.metrics.k8s.io/v1beta2/namespaces/ns/pods/*/rps",
            {"labelSelector": "app=web", "metricLabelSelector": "v=1"},
        ),
        (
            lambda c: c.object_metric(
                "hits", "ns", {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, None
            ),
            "/apis/custom.metrics.k8s.io/v1beta2/namespaces/ns/deployments.apps/d/hits",
            None,
        ),
        (
            lambda c: c.object_metric(
                "load", "ns", {"apiVersion": "v1", "kind": "Namespace", "name": "x"}, None
            ),
            "/apis/custom.metrics.k8s.io/v1beta2/namespaces/ns/metrics/load",
            None,
        ),
        (
            lambda c: c.external_metric("queue", "ns", {"matchLabels": {"q": "a"}}),
            "/apis/external.metrics.k8s.io/v1beta1/namespaces/ns/queue",
            {"labelSelector": "q=a"},
        ),
    ],
    ids=["resource", "pods", "object", "namespace-object", "external"],
)
def test_rest_urls(query: Query, path: str, params: dict[str, str] | None) -> None:
    recorder = Recorder()
    client = RestMetricsClient(recorder)
    # The canned answer does not fit every API; only the request matters here.
    with contextlib.suppress(MetricsUnavailable):
        asyncio.run(query(client))
    assert recorder.requests == [("GET", path, params)]


class _Reader:
    def pod_usage_selected(self, namespace: str, selector: Any) -> None:
        return None


class _Blocked(_Reader):
    pod_usage_selected = None  # type: ignore[assignment]


@pytest.mark.parametrize(
    "provider",
    [_Reader(), _Blocked(), PodMetricsSource(), object()],
    ids=["reader", "method-set-to-none", "json-only-provider", "plain-object"],
)
def test_usage_reader_check_agrees_with_the_protocol(provider: object) -> None:
    # The in-process client's cheap check answers as isinstance on the protocol does.
    found = _usage_reader(provider)
    assert (found is provider) == isinstance(provider, PodUsageReader)
    assert found is None or found is provider
