"""``InProcessMetricsClient`` keeps the values of the records it last read per query: its
answers equal ``pod_usage_values`` of what the provider served at each read (the general
path), whether the records are the same objects again, new ones, or a list the provider
changed in place; and each caller gets a dict of its own."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from podscale.apiserver.metricsapis.pod_usage import ContainerUsage, PodUsage
from podscale.apiserver.state import ServerState
from podscale.controllers.hpa import InProcessMetricsClient
from podscale.controllers.hpa.metrics_values import pod_usage_values
from podscale.hpa.types import MetricsUnavailable
from podscale.store.memory import MemoryStore
from podscale.testing.clock import FakeClock

NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)


def record(name: str, cpu: int, *, at: int = 0) -> PodUsage:
    return PodUsage(
        "ns",
        name,
        NOW + timedelta(seconds=at),
        timedelta(seconds=15),
        (ContainerUsage("c", cpu * 1_000_000, 1024 * cpu),),
    )


class Provider:
    """A ``PodUsageReader`` serving ``records`` (the test changes it between reads)."""

    def __init__(self, records: list[PodUsage]) -> None:
        self.records = records

    def pod_usage_selected(self, namespace: str, selector: Any) -> list[PodUsage] | None:
        return self.records

    def pod_metrics(self, namespace: str | None) -> list[dict[str, Any]]:
        return []

    def node_metrics(self) -> list[dict[str, Any]]:
        return []


def client_of(provider: Provider) -> InProcessMetricsClient:
    clock = FakeClock(NOW)
    return InProcessMetricsClient(
        ServerState(store=MemoryStore(clock), clock=clock, metrics_provider=provider)
    )


def same_objects(provider: Provider) -> None:
    provider.records = list(provider.records)


def new_objects(provider: Provider) -> None:
    provider.records = [record("a", 7, at=15), record("b", 9, at=15)]


def changed_in_place(provider: Provider) -> None:
    provider.records[0] = record("a", 11)


def emptied(provider: Provider) -> None:
    provider.records = []


@pytest.mark.parametrize(
    "change",
    [same_objects, new_objects, changed_in_place, emptied],
    ids=["same-records-again", "new-records", "list-changed-in-place", "no-records"],
)
@pytest.mark.parametrize("resource", ["cpu", "memory"])
def test_answers_equal_the_general_path(change: Any, resource: str) -> None:
    provider = Provider([record("a", 3), record("b", 5)])
    client = client_of(provider)

    async def both() -> tuple[Any, Any]:
        single: Any
        try:
            single = await client.resource_metric(resource, "ns", "app=web", None)
        except MetricsUnavailable as err:
            single = str(err)
        several = await client.resource_metrics([resource], "ns", "app=web", None)
        answer = several[resource]
        return single, str(answer) if isinstance(answer, MetricsUnavailable) else answer

    def expected() -> Any:
        try:
            return pod_usage_values(list(provider.records), resource, None)
        except MetricsUnavailable as err:
            return str(err)

    first = asyncio.run(both())
    assert first == (expected(), expected())
    first[0][0].clear()  # the caller's own dict: the kept values are not changed through it
    change(provider)
    assert asyncio.run(both()) == (expected(), expected())


def test_callers_get_dicts_of_their_own() -> None:
    client = client_of(Provider([record("a", 3)]))
    first, _ = asyncio.run(client.resource_metric("cpu", "ns", "app=web", None))
    second, _ = asyncio.run(client.resource_metric("cpu", "ns", "app=web", None))
    assert first == second
    assert first is not second
