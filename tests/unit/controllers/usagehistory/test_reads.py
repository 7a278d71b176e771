"""The usage history's CPU and memory sums over one read equal two reads, errors included.

``InProcessMetricsClient.resource_metrics`` answers several resources from one read of the
pods' usage; ``usage_sums`` uses it when the client can (``ResourcesReader``) and otherwise
asks ``resource_metric`` once per resource. Every case is asked both ways.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.api.selectors import Selector
from podscale.apiserver.metricsapis.pod_usage import ContainerUsage, PodUsage
from podscale.apiserver.state import ServerState
from podscale.controllers.hpa import InProcessMetricsClient
from podscale.controllers.hpa.metrics_client import MetricsClient
from podscale.controllers.usagehistory.controller import (
    ResourcesReader,
    reads_resources,
    usage_sums,
)
from podscale.controllers.usagehistory.points import Target
from podscale.hpa.types import MetricsUnavailable, PodMetric
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
WINDOW = timedelta(seconds=15)
TARGET = Target("ns", "apps/v1", "Deployment", "web")


def record(name: str, *containers: tuple[str, int, int]) -> PodUsage:
    return PodUsage("ns", name, NOW, WINDOW, tuple(ContainerUsage(*c) for c in containers))


RECORDS = [
    record("web-0", ("c", 200_000_000, 64 * 1024**2), ("side", 5_000_000, 8 * 1024**2)),
    record("web-1", ("c", 310_500_000, 70 * 1024**2), ("side", 1, 1)),
]

# As ``MetricsStorage`` serves them: each record with its pod's sums; a pod without
# containers (no sample), and a name read twice (the later record counts).
SUMMED = [
    RECORDS[0]._replace(cpu_milli=205, memory_milli=72 * 1024**2 * 1000),
    PodUsage("ns", "empty", None, timedelta(0), ()),
    RECORDS[1]._replace(cpu_milli=312, memory_milli=70 * 1024**2 * 1000 + 1000),
    RECORDS[0]._replace(containers=RECORDS[0].containers[:1]),
]


class Reader:
    """A ``PodUsageReader`` answering ``answer`` (an exception is raised), counting reads."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.reads = 0

    def pod_usage_selected(self, namespace: str, selector: Selector) -> list[PodUsage] | None:
        self.reads += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer  # type: ignore[no-any-return]

    def pod_metrics(self, namespace: str | None) -> list[dict[str, Any]]:
        """The fallback read (``pod_usage_selected`` answered None): one pod, cpu only."""
        return [
            {
                "metadata": {"name": "web-0", "namespace": "ns", "labels": {"app": "web"}},
                "timestamp": "2026-03-01T10:00:00Z",
                "window": "15s",
                "containers": [{"name": "c", "usage": {"cpu": "250m"}}],
            }
        ]

    def node_metrics(self) -> list[dict[str, Any]]:
        return []


class OneByOne:
    """The same client seen as a plain ``MetricsClient``: one ``resource_metric`` per call."""

    def __init__(self, client: InProcessMetricsClient) -> None:
        self.client = client

    async def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str | None
    ) -> tuple[dict[str, PodMetric], datetime]:
        return await self.client.resource_metric(resource, namespace, selector, container)


def client_of(provider: object | None) -> InProcessMetricsClient:
    clock = FakeClock(NOW)
    state = ServerState(store=MemoryStore(clock), clock=clock, metrics_provider=provider)
    return InProcessMetricsClient(state)


def outcome(answer: object) -> object:
    """An answer, or an error as its type and text (two raises are two objects)."""
    if isinstance(answer, Exception):
        return (type(answer).__name__, str(answer))
    return answer


CASES = [
    (lambda: Reader(RECORDS), "app=web", None),
    (lambda: Reader(SUMMED), "app=web", None),
    (lambda: Reader(RECORDS), "app=web", "side"),
    (lambda: Reader(RECORDS), "app=web", "missing"),
    (lambda: Reader([]), "app=web", None),
    (lambda: Reader(ValueError("boom")), "app=web", None),
    (lambda: Reader(None), "app=web", None),
    (lambda: Reader(RECORDS), "app in (", None),
    (lambda: None, "app=web", None),
]
IDS = [
    "records",
    "summed-records",
    "a-container",
    "a-missing-container",
    "empty",
    "failing",
    "fallback",
    "bad-selector",
    "no-provider",
]


@pytest.mark.parametrize(("make", "selector", "container"), CASES, ids=IDS)
def test_one_read_answers_each_resource_as_its_own_read(
    make: Any, selector: str, container: str | None
) -> None:
    async def both() -> tuple[dict[str, object], dict[str, object], int, int]:
        one_read, own_reads = make(), make()
        together = await client_of(one_read).resource_metrics(
            ("cpu", "memory"), "ns", selector, container
        )
        separately: dict[str, object] = {}
        for resource in ("cpu", "memory"):
            try:
                separately[resource] = await client_of(own_reads).resource_metric(
                    resource, "ns", selector, container
                )
            except MetricsUnavailable as err:
                separately[resource] = err
        reads = (getattr(one_read, "reads", 0), getattr(own_reads, "reads", 0))
        return (
            {r: outcome(a) for r, a in together.items()},
            {r: outcome(a) for r, a in separately.items()},
            *reads,
        )

    together, separately, one, own = asyncio.run(both())
    assert together == separately
    if own:
        # One read of the usage where the reader answered; where it declined (None), that
        # read and then each resource's own, as ``resource_metric`` reads.
        assert own == 2
        assert one == (3 if make().answer is None else 1)


@pytest.mark.parametrize(("make", "selector", "container"), CASES, ids=IDS)
def test_usage_sums_are_those_of_two_reads(make: Any, selector: str, container: str | None) -> None:
    async def both() -> tuple[object, object]:
        client = client_of(make())
        plain: MetricsClient = OneByOne(client_of(make()))  # type: ignore[assignment]
        assert isinstance(client, ResourcesReader)
        assert not isinstance(plain, ResourcesReader)
        return await usage_sums(client, TARGET, selector), await usage_sums(plain, TARGET, selector)

    one, two = asyncio.run(both())
    assert one == two


def test_the_sums_add_up_each_resource_over_the_pods() -> None:
    usage = asyncio.run(usage_sums(client_of(Reader(RECORDS)), TARGET, "app=web"))
    assert usage.cpu_milli == 200 + 5 + 311 + 1  # each pod's containers, milli-cores rounded up
    assert usage.memory_milli == (64 + 8 + 70) * 1024**2 * 1000 + 1000


class _WithMethod:
    async def resource_metrics(self, *args: Any) -> Any:
        return {}


class _Without:
    pass


class _NoneOnClass:
    resource_metrics = None


class _Dynamic:
    def __getattr__(self, name: str) -> Any:
        if name == "resource_metrics":
            return lambda *args: {}
        raise AttributeError(name)


class _Failing:
    @property
    def resource_metrics(self) -> Any:
        raise AttributeError("not here")


def _instance_attribute(value: Any) -> Any:
    obj = _Without()
    obj.resource_metrics = value  # type: ignore[attr-defined]
    return obj


def _shadowed() -> Any:
    obj = _WithMethod()
    obj.resource_metrics = None  # type: ignore[method-assign]
    return obj


@pytest.mark.parametrize(
    "client",
    [
        _WithMethod(),
        _Without(),
        _NoneOnClass(),
        _Dynamic(),
        _Failing(),
        _instance_attribute(lambda *args: {}),
        _instance_attribute(None),
        _shadowed(),
    ],
    ids=[
        "method",
        "none",
        "none-on-class",
        "getattr",
        "property-failing",
        "instance-attribute",
        "instance-attribute-none",
        "method-shadowed-by-none",
    ],
)
def test_reads_resources_is_the_protocol_check(client: Any) -> None:
    assert reads_resources(client) == isinstance(client, ResourcesReader)
