"""``InProcessApi.list_shared`` (``apiserver.operations.shared_list``): the same list as
``list`` without options, in every served version, decoding only what changed since the
caller's previous list."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest

from podscale.api.kinds import KindInfo, kind_for
from podscale.apiserver.operations import shared_list
from podscale.apiserver.operations.shared_list import SharedItems
from podscale.client.inprocess import InProcessApi
from podscale.store.memory import MemoryStore
from podscale.testing import FakeClock

JSON = dict[str, Any]
T = TypeVar("T")

POD = kind_for("v1", "Pod")
HPA_V1 = kind_for("autoscaling/v1", "HorizontalPodAutoscaler")
HPA_V2 = kind_for("autoscaling/v2", "HorizontalPodAutoscaler")


def run(coro: Awaitable[T]) -> T:
    return asyncio.run(coro)  # type: ignore[arg-type]


def _pod(name: str, namespace: str) -> JSON:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def _hpa(name: str, namespace: str) -> JSON:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 1,
            "maxReplicas": 5,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 50},
                    },
                }
            ],
        },
    }


Make = Callable[[str, str], JSON]
CASES: list[tuple[KindInfo, KindInfo, Make, str | None]] = [
    (POD, POD, _pod, "default"),
    (POD, POD, _pod, None),
    (HPA_V2, HPA_V2, _hpa, "default"),
    (HPA_V2, HPA_V1, _hpa, None),  # served in another version than it is stored
]
IDS = ["pods-in-namespace", "pods-everywhere", "hpa-stored-version", "hpa-converted"]


async def _scenario(written: KindInfo, read: KindInfo, make: Make, scope: str | None) -> None:
    clock = FakeClock(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    api = InProcessApi.for_store(MemoryStore(clock), clock)
    shared = SharedItems()
    await api.create(kind_for("v1", "Namespace"), None, {"metadata": {"name": "other"}})
    for name, namespace in (("a", "default"), ("b", "default"), ("c", "other")):
        await api.create(written, namespace, make(name, namespace))

    async def both() -> tuple[JSON, JSON]:
        return await api.list(read, scope), await api.list_shared(read, scope, shared)

    plain, first = await both()
    assert first == plain
    assert first["items"]

    changed = await api.get(written, "default", "b")
    changed["metadata"]["labels"] = {"changed": "yes"}
    await api.update(written, "default", changed)
    await api.delete(written, "default", "a")
    await api.create(written, "default", make("d", "default"))
    plain, second = await both()
    assert second == plain
    names = [item["metadata"]["name"] for item in second["items"]]
    assert "a" not in names
    assert "d" in names
    b = next(item for item in second["items"] if item["metadata"]["name"] == "b")
    assert b["metadata"]["labels"] == {"changed": "yes"}  # the new version
    if scope is None:  # "c" was not written: the very item of the first list
        c = [item for item in first["items"] if item["metadata"]["name"] == "c"]
        assert any(item is c[0] for item in second["items"])


@pytest.mark.parametrize(("written", "read", "make", "scope"), CASES, ids=IDS)
def test_a_shared_list_is_the_list(
    written: KindInfo, read: KindInfo, make: Make, scope: str | None
) -> None:
    run(_scenario(written, read, make, scope))


def test_a_served_item_is_what_a_list_serves() -> None:
    data = b'{"metadata":{"name":"h","namespace":"default"},"spec":{"maxReplicas":3}}'
    item = shared_list.served_item(data, HPA_V2)
    assert (item["apiVersion"], item["kind"]) == ("autoscaling/v2", "HorizontalPodAutoscaler")
    assert item["status"] == {"currentReplicas": 0, "desiredReplicas": 0}


def test_each_kind_and_namespace_has_its_memo_and_another_kind_replaces_it() -> None:
    shared = SharedItems()
    pods = shared.memo(POD, "default")
    assert shared.memo(POD, "default") is pods
    assert shared.memo(POD, None) is not pods
    assert shared.memo(HPA_V1, "default") is not shared.memo(HPA_V2, "default")
    renamed = KindInfo(**{**POD.__dict__, "list_kind": "Other"})
    assert shared.memo(renamed, "default") is not pods
