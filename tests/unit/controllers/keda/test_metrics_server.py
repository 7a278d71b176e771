"""KEDA's metrics server apart from the operator: an informer-fed scale handler.

A fake informer set stands in for the ScaledObject cache, and a fake external metrics
provider for the podscale-push source, so each case drives the server as its informer
would: a ScaledObject added is served, one updated to a new generation has its scalers
rebuilt (a new trigger's metric served, the old one gone), one deleted (or being deleted,
or with triggers KEDA would refuse) is no longer served, and the fallback health the
leader's loop writes to the status is adopted. ``FirstSource`` prefers the handler that
knows the ScaledObject. Nothing here writes to the API.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.errors import ApiError, status_body
from podscale.apiserver.metricsapis.providers import ExternalMetricInfo
from podscale.controllers.keda.adapter import MetricUnavailable
from podscale.controllers.keda.handler import ScaleHandler
from podscale.controllers.keda.metrics_server import FirstSource, KedaMetricsServer
from podscale.controllers.keda.scalers.base import ScalerEnv, ScalerReading

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
KEY = "ns/so"
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


class Clock:
    def now(self) -> datetime:
        return NOW


class Values:
    """An external metrics provider: each metric's value, or a message to fail with."""

    def __init__(self, **values: float | str) -> None:
        self.values = values

    def list_external_metrics(self) -> list[ExternalMetricInfo]:
        return []

    async def get_external_metric(
        self, namespace: str, metric_selector: Any, info: ExternalMetricInfo
    ) -> list[dict[str, Any]]:
        value = self.values.get(info.metric)
        if value is None or isinstance(value, str):
            raise ApiError(status_body(404, str(value or "unknown"), "NotFound"))
        return [{"value": str(value)}]


class Lister:
    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}

    def get(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self.objects.get(f"{namespace}/{name}")


class FakeInformer:
    def __init__(self) -> None:
        self.lister = Lister()
        self.handlers: list[Any] = []

    def add_handler(self, handler: Any) -> None:
        self.handlers.append(handler)


class FakeInformers:
    def __init__(self) -> None:
        self.by_kind: dict[str, FakeInformer] = {}

    def informer_for(self, kind: Any, source: Any = None) -> FakeInformer:
        return self.by_kind.setdefault(kind.plural, FakeInformer())


class Queue:
    def __init__(self) -> None:
        self.added: list[str] = []

    def add(self, key: str) -> None:
        self.added.append(key)


def scaled_object(
    generation: int = 1,
    triggers: list[dict[str, Any]] | None = None,
    *,
    status: dict[str, Any] | None = None,
    deleting: bool = False,
    fallback: dict[str, Any] | None = None,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "so", "namespace": "ns", "generation": generation}
    if deleting:
        meta["deletionTimestamp"] = "2026-03-01T11:00:00Z"
    spec: dict[str, Any] = {
        "scaleTargetRef": {"name": "web"},
        "triggers": triggers if triggers is not None else [push("queue")],
    }
    if fallback is not None:
        spec["fallback"] = fallback
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": meta,
        "spec": spec,
        "status": status or {},
    }


def push(metric: str, value: str = "5") -> dict[str, Any]:
    return {"type": "podscale-push", "metadata": {"metricName": metric, "value": value}}


class ReadOnlyApi:
    """The target's /scale (2 replicas); any write fails the test."""

    def __init__(self) -> None:
        self.reads: list[tuple[str, str, str | None]] = []

    async def rest_mappings(self, group: str, kind: str) -> list[KindInfo]:
        return [kind_for("apps/v1", "Deployment")]

    async def get(
        self, kind: KindInfo, namespace: str, name: str, subresource: str | None = None
    ) -> dict[str, Any]:
        self.reads.append((kind.plural, name, subresource))
        return {"spec": {"replicas": 2}, "status": {"selector": "app=web"}}

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the metrics server called {name} on the API")


class Harness:
    def __init__(self, provider: Values) -> None:
        self.api = ReadOnlyApi()
        self.server = KedaMetricsServer(self.api, Clock(), external=provider)  # type: ignore[arg-type]
        self.informers = FakeInformers()
        self.queue = Queue()
        self.server.bind(self.informers, self.queue)  # type: ignore[arg-type]
        self.cache = self.informers.by_kind["scaledobjects"]

    async def store(self, obj: dict[str, Any] | None) -> None:
        """The informer's view changes to ``obj`` (None: deleted); the worker syncs."""
        if obj is None:
            self.cache.lister.objects.pop(KEY, None)
        else:
            self.cache.lister.objects[KEY] = obj
        await self.server.reconcile(KEY)

    async def value(self, metric: str) -> float:
        return await self.server.handler.metric_value("ns", "so", metric)


def test_events_of_the_informer_enqueue_the_object_key() -> None:
    harness = Harness(Values())
    handler = harness.cache.handlers[0]
    obj = scaled_object()
    handler.on_add(obj)
    handler.on_update(obj, scaled_object(status={"health": {}}))
    handler.on_delete(obj)
    assert harness.queue.added == [KEY, KEY, KEY]


def test_an_added_scaled_object_is_served() -> None:
    harness = Harness(Values(queue=7))

    async def scenario() -> float:
        await harness.store(scaled_object())
        return await harness.value("s0-queue")

    assert run(scenario()) == 7


def test_a_new_generation_rebuilds_the_scalers() -> None:
    harness = Harness(Values(queue=7, jobs=3))

    async def scenario() -> tuple[float, float | None]:
        await harness.store(scaled_object())
        await harness.store(scaled_object(2, [push("jobs")]))
        new = await harness.value("s0-jobs")
        try:
            old: float | None = await harness.value("s0-queue")
        except LookupError:
            old = None
        return new, old

    assert run(scenario()) == (3, None)


def test_the_same_generation_keeps_the_scalers() -> None:
    harness = Harness(Values(queue=7))

    async def scenario() -> bool:
        await harness.store(scaled_object())
        first = harness.server.handler.entry(KEY)
        await harness.store(scaled_object(status={"conditions": []}))
        return first is harness.server.handler.entry(KEY)

    assert run(scenario())


@pytest.mark.parametrize(
    "gone",
    [
        None,
        scaled_object(2, deleting=True),
        scaled_object(2, [{"type": "no-such-scaler", "metadata": {}}]),
    ],
    ids=["deleted", "being-deleted", "trigger-keda-refuses"],
)
def test_a_scaled_object_no_longer_servable_is_forgotten(gone: dict[str, Any] | None) -> None:
    harness = Harness(Values(queue=7))

    async def scenario() -> None:
        await harness.store(scaled_object())
        await harness.store(gone)
        await harness.value("s0-queue")

    with pytest.raises(LookupError):
        run(scenario())
    assert harness.server.handler.entry(KEY) is None


FALLBACK = {"failureThreshold": 2, "replicas": 4}
FAILING = {"s0-queue": {"numberOfFailures": 3, "status": "Failing"}}


def test_the_health_the_leader_writes_is_adopted() -> None:
    harness = Harness(Values(queue="source down"))

    async def scenario() -> float:
        await harness.store(scaled_object(fallback=FALLBACK))
        await harness.store(scaled_object(fallback=FALLBACK, status={"health": FAILING}))
        return await harness.value("s0-queue")

    # Past the threshold the server answers the fallback: target 5 x 4 replicas.
    assert run(scenario()) == 20
    assert harness.api.reads == [("deployments", "web", "scale")]


def test_without_the_leaders_health_a_failed_read_is_an_error() -> None:
    harness = Harness(Values(queue="source down"))

    async def scenario() -> None:
        await harness.store(scaled_object(fallback=FALLBACK))
        await harness.value("s0-queue")

    with pytest.raises(MetricUnavailable, match="source down"):
        run(scenario())


def test_its_own_failures_are_not_reset_by_unrelated_updates() -> None:
    harness = Harness(Values(queue="source down"))

    async def scenario() -> dict[str, Any]:
        await harness.store(scaled_object(fallback=FALLBACK))
        with pytest.raises(MetricUnavailable):
            await harness.value("s0-queue")
        await harness.store(scaled_object(fallback=FALLBACK, status={"conditions": []}))
        entry = harness.server.handler.entry(KEY)
        assert entry is not None
        return entry.health

    health = run(scenario())
    assert health["s0-queue"]["numberOfFailures"] == 1


class Fixed:
    def __init__(self, value: float) -> None:
        self.value = value

    async def read(self, now: datetime) -> ScalerReading:
        return ScalerReading(self.value, True)

    async def close(self) -> None:
        return None


def handler_reading(value: float) -> ScaleHandler:
    def build(_spec: Any, _env: ScalerEnv) -> Fixed:
        return Fixed(value)

    async def replicas(_so: Any) -> int:
        return 1

    def env(namespace: str, _selector: str | None) -> ScalerEnv:
        return ScalerEnv(api=None, namespace=namespace)  # type: ignore[arg-type]

    return ScaleHandler(Clock(), env, replicas, builder=build)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("leader_has_it", "expected"),
    [(True, 1.0), (False, 2.0)],
    ids=["leading-operator-first", "else-the-metrics-server"],
)
def test_first_source_prefers_the_handler_that_knows_the_object(
    leader_has_it: bool, expected: float
) -> None:
    operator, server = handler_reading(1.0), handler_reading(2.0)
    harness = Harness(Values())

    async def scenario() -> float:
        await harness.store(scaled_object())
        entry = harness.server.handler.entry(KEY)
        assert entry is not None
        args = (entry.so, 1, entry.specs, None, None)
        await server.put(KEY, *args)
        if leader_has_it:
            await operator.put(KEY, *args)
        return await FirstSource([operator, server]).metric_value("ns", "so", "s0-queue")

    assert run(scenario()) == expected


def test_first_source_answers_unknown_objects_from_the_last_handler() -> None:
    source = FirstSource([handler_reading(1.0), handler_reading(2.0)])
    with pytest.raises(LookupError):
        run(source.metric_value("ns", "missing", "s0-queue"))
