"""The HPA controller's side of replicas fights (``controllers.hpa.contest_target``): reading
the target's managedFields and keeping each HPA's ``ContestState`` in the state store."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from podscale.api.kinds import KindInfo, kind_for
from podscale.client.http import ApiError
from podscale.controllers.hpa.contest_target import UNREADABLE, ContestMemory, read_owners
from podscale.history import MemoryHistory
from podscale.hpa.contest import (
    REPLICAS_WRITES_STATE,
    ContestState,
    ReplicasWrite,
    record_own_write,
)

DEPLOY = kind_for("apps/v1", "Deployment")
NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
OWNERS = [{"manager": "argocd-controller", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]


class OneAnswer:
    """A ``ControllerApi`` whose only ``get`` answers ``answer`` (or raises it)."""

    def __init__(self, answer: dict[str, Any] | ApiError) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str, str]] = []

    async def get(
        self, kind: KindInfo, namespace: str | None, name: str, subresource: str | None = None
    ) -> dict[str, Any]:
        self.asked.append((kind.kind, namespace or "", name))
        if isinstance(self.answer, ApiError):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"metadata": {"name": "web", "managedFields": OWNERS}}, OWNERS),
        ({"metadata": {"name": "web"}}, None),
        (ApiError(403, {"reason": "Forbidden"}), None),
        (ApiError(404, {"reason": "NotFound"}), None),
        (ApiError(500, {"reason": "InternalError"}), UNREADABLE),
        (ApiError(429, {"reason": "TooManyRequests"}), UNREADABLE),
    ],
    ids=[
        "managed-fields-of-the-object",
        "none-kept",
        "forbidden-counts-as-none",
        "gone-counts-as-none",
        "server-error-waits-for-the-next-sync",
        "throttled-waits-for-the-next-sync",
    ],
)
def test_read_owners(answer: dict[str, Any] | ApiError, expected: Any) -> None:
    api = OneAnswer(answer)
    assert asyncio.run(read_owners(api, DEPLOY, "default", "web")) == expected  # type: ignore[arg-type]
    assert api.asked == [("Deployment", "default", "web")]


def test_memory_stores_only_what_a_restart_needs() -> None:
    store = MemoryHistory()
    memory = ContestMemory(store)
    memory.load("default/web", None)
    memory.put("default/web", "uid-1", ContestState(expected=3))  # first sight: not stored
    assert store.get_state("uid-1", REPLICAS_WRITES_STATE) is None
    own = record_own_write(ContestState(expected=3), 5, NOW)
    memory.put("default/web", "uid-1", own)
    assert store.get_state("uid-1", REPLICAS_WRITES_STATE) == {
        "expectedReplicas": 5,
        "lastAutoscalerWrite": {"replicas": 5, "time": "2026-03-01T10:00:00Z"},
        "writes": [],
    }
    write = ReplicasWrite("argocd-controller", "Update", "", "2026-03-01T10:01:00Z", 1, 5)
    memory.put("default/web", "uid-1", own._replace(expected=1, writes=(write,)))
    stored = store.get_state("uid-1", REPLICAS_WRITES_STATE)
    assert stored is not None
    assert stored["writes"][0]["manager"] == "argocd-controller"
    # A restarted controller starts from the document.
    again = ContestMemory(store)
    again.load("default/web", store.get_state("uid-1", REPLICAS_WRITES_STATE))
    assert again.get("default/web").writes == (write,)
    again.forget("default/web")
    assert again.get("default/web") == ContestState()


def test_without_a_store_memory_still_remembers() -> None:
    memory = ContestMemory(None)
    memory.put("default/web", "uid-1", ContestState(expected=4))
    assert memory.get("default/web").expected == 4


class _CountingStore(MemoryHistory):
    """A state store counting its writes, failing the next ``failing`` ones."""

    def __init__(self) -> None:
        super().__init__()
        self.puts = 0
        self.failing = 0

    def put_state(self, uid: str, name: str, document: dict[str, Any]) -> None:
        self.puts += 1
        if self.failing:
            self.failing -= 1
            raise OSError("disk full")
        super().put_state(uid, name, document)


def test_an_unchanged_state_is_settled_and_a_changed_one_stored() -> None:
    store = _CountingStore()
    memory = ContestMemory(store)
    memory.load("default/web", None)
    own = record_own_write(ContestState(expected=3), 5, NOW)
    memory.put("default/web", "uid-1", own)
    assert store.puts == 1
    for replicas in (5, 5, 6):  # only the expected count moves: the same document
        memory.put("default/web", "uid-1", own._replace(expected=replicas))
    assert store.puts == 1
    write = ReplicasWrite("argocd-controller", "Update", "", "2026-03-01T10:01:00Z", 1, 5)
    memory.put("default/web", "uid-1", own._replace(writes=(write,)))
    assert store.puts == 2
    # Equal to the settled state but not of its types (True for 1): not taken as settled,
    # its document is compared with the stored one as it always was (and found equal).
    odd = own._replace(writes=(write._replace(replicas=True),))  # type: ignore[arg-type]
    plain_store = _CountingStore()
    plain = ContestMemory(plain_store)
    plain.load("default/web", store.get_state("uid-1", REPLICAS_WRITES_STATE))
    plain.put("default/web", "uid-1", odd)
    memory.put("default/web", "uid-1", odd)
    assert store.puts == 2 + plain_store.puts


def test_a_failed_store_is_retried_with_the_same_state() -> None:
    store = _CountingStore()
    memory = ContestMemory(store)
    memory.load("default/web", None)
    own = record_own_write(ContestState(expected=3), 5, NOW)
    store.failing = 1
    memory.put("default/web", "uid-1", own)
    assert store.get_state("uid-1", REPLICAS_WRITES_STATE) is None
    memory.put("default/web", "uid-1", own)  # not settled: stored now
    assert store.puts == 2
    assert store.get_state("uid-1", REPLICAS_WRITES_STATE) is not None
    # A reload (a re-created HPA) forgets what was settled: compared afresh.
    memory.load("default/web", None)
    memory.put("default/web", "uid-1", own)
    assert store.puts == 3
